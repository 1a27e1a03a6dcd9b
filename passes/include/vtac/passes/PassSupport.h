// What the passes share: a function with a new body, a mutator that keeps the first located
// error, running one over a function's body. (Thread and storage ranks: ir/StorageScope.h.)
#pragma once

#include <optional>
#include <string>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {

// `func` itself when `body` is its body (a pass that changed nothing returns the same object),
// otherwise a copy of it with `body`.
inline ir::PrimFuncRef withBody(const ir::PrimFuncRef &func, ir::Stmt body) {
  if (body == func->body) return func;
  ir::PrimFunc *copy = ir::copyNode(*func);
  copy->body = std::move(body);
  return ir::PrimFuncRef(copy);
}

// A mutator that keeps the first error it meets, located at a node, and goes on (the result
// is discarded when there is one).
class FirstErrorMutator : public ir::StmtExprMutator {
public:
  bool failed() const { return failure_.has_value(); }
  // The first error, or success; an error at a node without a location (one a schedule built)
  // is located at `unlocatedAt`.
  llvm::Error takeError(const ir::SourceLoc &unlocatedAt = {}) {
    if (!failure_) return llvm::Error::success();
    ir::SourceLoc loc = failure_->loc().isKnown() ? failure_->loc() : unlocatedAt;
    llvm::Error error = ir::diagnosticError(loc, failure_->text());
    failure_.reset();
    return error;
  }

protected:
  void fail(const ir::SourceLoc &at, const std::string &message) {
    if (!failure_) failure_.emplace(at, message);
  }
  void fail(const ir::Node &at, const std::string &message) { fail(at.loc(), message); }
  // Keeps `error` (a DiagnosticError, or success) unless an earlier one is kept.
  void fail(llvm::Error error) {
    llvm::handleAllErrors(std::move(error), [&](const ir::DiagnosticError &e) { fail(e.loc(), e.text()); });
  }

private:
  std::optional<ir::DiagnosticError> failure_;
};

// The function with `mutator` applied to its body, or the mutator's first error (located at
// `unlocatedAt` when its node had no location).
template <class Mutator>
llvm::Expected<ir::PrimFuncRef> mutateBody(const ir::PrimFuncRef &func, Mutator &mutator,
                                           const ir::SourceLoc &unlocatedAt = {}) {
  ir::Stmt body = mutator.visitStmt(func->body);
  if (llvm::Error error = mutator.takeError(unlocatedAt)) return error;
  return withBody(func, std::move(body));
}

// A function attribute set to true: True, T.bool(True) or a non-zero integer.
inline bool attrIsTrue(const ir::PrimFunc &func, llvm::StringRef key) {
  const ir::AttrValue *flag = func.attrs.find(key);
  if (!flag) return false;
  if (flag->isBool()) return flag->asBool();
  if (flag->isInt()) return flag->asInt() != 0;
  return flag->isExpr() && !ir::isZero(flag->asExpr());
}

// TVM's IsFromLegacyTESchedule: the TensorIR-only passes leave TE-lowered functions alone.
inline bool isFromLegacyTeSchedule(const ir::PrimFunc &func) { return attrIsTrue(func, "from_legacy_te_schedule"); }

// `tir.noalias`: no two buffer parameters over distinct data variables overlap.
inline bool promisesNoAlias(const ir::PrimFunc &func) { return attrIsTrue(func, "tir.noalias"); }

}  // namespace vtac::passes
