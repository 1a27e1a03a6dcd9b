// The variables a statement reads but does not bind (TVM's tir::UndefinedVars): what a
// micro-kernel body captures from its surroundings, for the interpreter's kernel closures and
// the code generators' closure structs alike.
//
// Bound inside: loop variables, LetStmt/Let variables, Allocate buffer variables, block
// iteration variables and alloc_buffer data variables. A buffer access uses its buffer's data
// variable. The result lists each variable once, in order of first use.
#pragma once

#include <vector>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

std::vector<VarRef> undefinedVars(const Stmt &stmt);

}  // namespace vtac::ir
