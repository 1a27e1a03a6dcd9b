// lift-coproc-uop-scope / lift-coproc-scope (TVM's LiftAttrScope("coproc_uop_scope") and
// LiftAttrScope("coproc_scope")): an attribute of the key is moved up through loops, other
// attributes and `if`s without else, to the nearest allocation (placed just inside it) or to a
// sequence, where consecutive statements under the same attribute are grouped under one; when
// every statement of a sequence agrees, lifting goes on above it. Two attributes are the same
// when their nodes are the same object and their values equal (an integer by value, anything
// else — e.g. a micro-kernel's "VTAPushALUOp" — by identity, as TVM compares them): so DMA loads
// of one queue share a coproc_scope, GEMM micro-ops of one nest share a micro-kernel, and two ALU
// stages never do. A `while` loop under such an attribute is an error.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> liftCoprocUopScope(const ir::PrimFuncRef &func, PassContext &context);
llvm::Expected<ir::PrimFuncRef> liftCoprocScope(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
