#include "vtac/ir/SideEffect.h"

#include <algorithm>

#include <llvm/ADT/StringSwitch.h>

#include "vtac/ir/Visitor.h"

namespace vtac::ir {

static bool isPureBuiltin(const std::string &op) {
  return llvm::StringSwitch<bool>(op)
      .Cases("tir.if_then_else", "tir.likely", "tir.shift_left", "tir.shift_right", "tir.bitwise_and", true)
      .Cases("tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not", "tir.exp", "tir.exp2", true)
      .Cases("tir.exp10", "tir.log", "tir.log2", "tir.log10", "tir.log1p", true)
      .Cases("tir.sqrt", "tir.rsqrt", "tir.tanh", "tir.sigmoid", "tir.sin", true)
      .Cases("tir.cos", "tir.tan", "tir.erf", "tir.floor", "tir.ceil", true)
      .Cases("tir.round", "tir.trunc", "tir.nearbyint", "tir.fabs", "tir.pow", true)
      .Cases("tir.fmod", "tir.popcount", "tir.isnan", "tir.isinf", "tir.isfinite", true)
      .Cases("tir.call_pure_extern", "tir.call_llvm_pure_intrin", "tir.reinterpret", true)
      .Cases("tir.vectorlow", "tir.vectorhigh", true)
      .Default(false);
}

SideEffect sideEffect(const Expr &e) {
  SideEffect worst = SideEffect::Pure;
  preOrderVisit(e, [&](const Node &n) {
    if (n.isa<BufferLoad>()) worst = std::max(worst, SideEffect::ReadsMemory);
    if (const auto *call = n.as<Call>(); call && !isPureBuiltin(call->op)) worst = SideEffect::Opaque;
  });
  return worst;
}

}  // namespace vtac::ir
