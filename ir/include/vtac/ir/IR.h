// Everything of the IR library in one include.
#pragma once

#include "vtac/ir/AttrValue.h"
#include "vtac/ir/DataType.h"
#include "vtac/ir/Expr.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Functor.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Node.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/RegionInference.h"
#include "vtac/ir/SourceLoc.h"
#include "vtac/ir/Stmt.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Verifier.h"
#include "vtac/ir/Visitor.h"
