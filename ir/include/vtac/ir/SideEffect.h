// What evaluating an expression may do besides computing its value (TVM's tir::SideEffect):
// Pure (arithmetic, pure builtins such as T.exp or T.shift_right), ReadsMemory (a buffer load:
// the value depends on when it is evaluated) or Opaque (extern and runtime calls, access
// pointers, VTA intrinsics). Passes may drop, duplicate or move only pure expressions.
#pragma once

#include "vtac/ir/Expr.h"

namespace vtac::ir {

enum class SideEffect : uint8_t { Pure, ReadsMemory, Opaque };

SideEffect sideEffect(const Expr &e);

}  // namespace vtac::ir
