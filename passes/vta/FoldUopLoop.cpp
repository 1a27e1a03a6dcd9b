#include "vta/FoldUopLoop.h"

#include <array>
#include <climits>
#include <unordered_map>

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {
namespace {

bool isUopPush(const ir::Call &call) { return call.op == "tir.vta.uop_push" && call.args.size() == 8; }
const ir::StringImm *externName(const ir::Call &call) {
  return call.op == "tir.call_extern" && !call.args.empty() ? call.args[0].as<ir::StringImm>() : nullptr;
}
bool isUopLoopMarker(const ir::Call &call) {
  const auto *name = externName(call);
  return name && (name->value == "VTAUopLoopBegin" || name->value == "VTAUopLoopEnd");
}
bool isUopLoopBegin(const ir::Stmt &stmt) {
  const auto *eval = stmt.as<ir::Evaluate>();
  const auto *call = eval ? eval->value.as<ir::Call>() : nullptr;
  const auto *name = call ? externName(*call) : nullptr;
  return name && name->value == "VTAUopLoopBegin";
}

// Replaces the dst/src/wgt indices of every micro-op by their part that does not depend on the
// loop variable, collecting the factors of the loop variable.
class FactorExtractor : public ir::StmtExprMutator {
public:
  explicit FactorExtractor(ir::VarRef var) : var_(std::move(var)) {}

  std::array<std::optional<int64_t>, 3> factors;
  std::string whyNot;                  // a reason the loop cannot fold
  const ir::Call *unexpected = nullptr;  // a call that has no place in a GEMM micro-kernel

  ir::Expr visitCall(const ir::Call &op) override {
    if (!isUopPush(op)) {
      if (op.op != "tir.vta.command_handle" && op.op != "tir.tvm_thread_context" && !unexpected)
        unexpected = &op;
      return StmtExprMutator::visitCall(op);
    }
    std::vector<ir::Expr> args = op.args;
    for (int i = 0; i < 3; ++i) {
      // An index over int64 loops (legalize-ops' sizes) comes cast to int32: its factor is the
      // int64 expression's, and the rest is cast as the whole was (an SRAM index, which fits).
      const auto *narrowed = args[2 + i].as<ir::Cast>();
      if (narrowed && !(narrowed->dtype == ir::DataType::int32() && narrowed->value->dtype == ir::DataType::int64()))
        narrowed = nullptr;
      auto eq = ir::detectLinearEquation(narrowed ? narrowed->value : args[2 + i], {var_});
      if (!eq) {
        note("a micro-op index is not linear in '" + var_->name + "'");
        return ir::Expr(&op);
      }
      if (factors[i] && *factors[i] != eq->coeffs[0]) {
        note("the micro-ops step by different factors in '" + var_->name + "'");
        return ir::Expr(&op);
      }
      factors[i] = eq->coeffs[0];
      args[2 + i] = narrowed ? ir::castExpr(ir::DataType::int32(), eq->base) : eq->base;
    }
    return ir::make<ir::Call>(op.dtype, op.op, args, op.loc());
  }

private:
  void note(const std::string &reason) {
    if (whyNot.empty()) whyNot = reason;
  }
  ir::VarRef var_;
};

class UopLoopFolder : public FirstErrorMutator {
public:
  explicit UopLoopFolder(PassContext &context)
      : context_(context), uopDepth_(context.vta.uopDepth), logUopBuffSize_(context.vta.logUopBuffSize) {}

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    const auto *name = op.value.as<ir::StringImm>();
    if (op.key != "coproc_uop_scope" || !name) return StmtExprMutator::visitAttrStmt(op);
    scopeLoc_ = locatedIn(op);
    if (name->value != vta::kGemmPush) return lowerAluKernel(op);
    checkResetFlags(op);
    ir::Stmt body = op.body;
    std::vector<ir::Stmt> begins;
    while (begins.size() < 2) {
      const auto *loop = body.as<ir::For>();
      if (!loop) break;
      FactorExtractor extractor(loop->loopVar);
      ir::Stmt rest = extractor.visitStmt(loop->body);
      if (extractor.unexpected) {
        fail(*extractor.unexpected, "unexpected call '" + extractor.unexpected->op +
                                        "' in a GEMM micro-kernel");
        return ir::Stmt(&op);
      }
      std::string whyNot = extractor.whyNot;
      if (whyNot.empty() && !extractor.factors[0]) whyNot = "it holds no micro-op";
      if (whyNot.empty() && ir::usesVar(rest, loop->loopVar.get()))
        whyNot = "'" + loop->loopVar->name + "' is used outside the micro-op indices";
      if (!whyNot.empty()) {
        context_.emitRemark(loop->loc(), "fold-uop-loop: loop '" + loop->loopVar->name +
                                             "' stays in the GEMM micro-kernel (one micro-op per "
                                             "iteration) because " + whyNot);
        break;
      }
      begins.push_back(vta::evaluate(vta::callExtern(
          "VTAUopLoopBegin", {loop->extent, ir::intImm(*extractor.factors[0]),
                              ir::intImm(*extractor.factors[1]), ir::intImm(*extractor.factors[2])},
          loop->loc())));
      body = rest;
    }
    checkConsecutiveWrites(body);
    if (begins.empty()) return finishKernel(op, op.body);
    std::vector<ir::Stmt> stmts = begins;
    stmts.push_back(body);
    for (size_t i = 0; i < begins.size(); ++i)
      stmts.push_back(vta::evaluate(vta::callExtern("VTAUopLoopEnd", {}, op.loc())));
    return finishKernel(op, ir::seq(stmts, op.loc()));
  }

  ir::Stmt visitFor(const ir::For &op) override {
    enclosingLoops_[op.loopVar.get()] = &op;
    ir::Stmt result = StmtExprMutator::visitFor(op);
    enclosingLoops_.erase(op.loopVar.get());
    return result;
  }

private:
  // inject-alu-intrin turns the nest under an ALU pragma into micro-op loops, and
  // lift-coproc-uop-scope lifts the kernel's scope over the stage's loops outside the pragma (as
  // TVM's LiftAttrScope does). The runtime cannot record such a host loop around micro-op loops
  // ("VTAUopLoopBegin after a micro-op"). The loop becomes the kernel's outer micro-op loop when
  // the kernel has one level left and the micro-ops step linearly in it; otherwise the scope goes
  // back inside the loop, one kernel per iteration.
  ir::Stmt lowerAluKernel(const ir::AttrStmt &op) {
    std::vector<const ir::For *> hostLoops;
    ir::Stmt body = op.body;
    while (const auto *loop = body.as<ir::For>()) {
      if (!hasUopLoop(loop->body)) break;
      hostLoops.push_back(loop);
      body = loop->body;
    }
    for (int levels = uopLoopLevels(body); !hostLoops.empty() && levels < 2; ++levels) {
      std::optional<ir::Stmt> folded = foldAluLoop(*hostLoops.back(), body);
      if (!folded) break;
      body = *folded;
      hostLoops.pop_back();
    }
    for (const ir::For *loop : hostLoops) enclosingLoops_[loop->loopVar.get()] = loop;
    ir::Stmt kernel = finishKernel(op, body);
    for (auto loop = hostLoops.rbegin(); loop != hostLoops.rend(); ++loop) {
      enclosingLoops_.erase((*loop)->loopVar.get());
      kernel = ir::make<ir::For>((*loop)->loopVar, (*loop)->min, (*loop)->extent, (*loop)->forKind, kernel,
                                 (*loop)->threadBinding, (*loop)->annotations, (*loop)->loc());
    }
    return kernel;
  }

  // The kernel scope with `body`, checked against the micro-op SRAM and closed over one key.
  ir::Stmt finishKernel(const ir::AttrStmt &scope, ir::Stmt body) {
    checkFitsUopSram(scope, body);
    std::vector<ir::VarRef> captured = ir::undefinedVars(body);
    if (captured.size() < 2) {
      if (body.get() == scope.body.get()) return ir::Stmt(&scope);
      return ir::make<ir::AttrStmt>(scope.node, scope.key, scope.value, body, scope.loc());
    }
    return closeOverOneKey(scope, body, captured);
  }

  std::optional<ir::Stmt> foldAluLoop(const ir::For &loop, const ir::Stmt &body) {
    auto min = ir::asConstInt(loop.min);
    if (!min || *min != 0) return std::nullopt;
    FactorExtractor extractor(loop.loopVar);
    ir::Stmt rest = extractor.visitStmt(body);
    if (!extractor.whyNot.empty() || !extractor.factors[0] || ir::usesVar(rest, loop.loopVar.get()))
      return std::nullopt;
    return ir::seq({vta::evaluate(vta::callExtern("VTAUopLoopBegin", {loop.extent, ir::intImm(*extractor.factors[0]),
                                                                    ir::intImm(*extractor.factors[1]),
                                                                    ir::intImm(*extractor.factors[2])},
                                                  loop.loc())),
                    rest, vta::evaluate(vta::callExtern("VTAUopLoopEnd", {}, loop.loc()))},
                   loop.loc());
  }

  static int uopLoopLevels(const ir::Stmt &body) {
    int levels = 0;
    if (const auto *seq = body.as<ir::SeqStmt>())
      for (const ir::Stmt &s : seq->stmts) levels += isUopLoopBegin(s);
    return levels;
  }
  static bool hasUopLoop(const ir::Stmt &stmt) {
    bool found = false;
    ir::preOrderVisit(stmt, [&](const ir::Node &n) {
      const auto *call = n.as<ir::Call>();
      found |= call && isUopLoopMarker(*call);
    });
    return found;
  }

  // The runtime records a micro-kernel once and replays it keyed by its closure, which TVM's
  // runtime (UopKernelMap) limits to one int32. A kernel that reads several loop variables (a
  // thread index and a loop, say) reads one key instead: their mixed-radix number, from which
  // it recovers each by division, so it is recorded once per combination of their values.
  ir::Stmt closeOverOneKey(const ir::AttrStmt &scope, const ir::Stmt &body, const std::vector<ir::VarRef> &captured) {
    ir::VarRef key = ir::makeVar("uop_key", ir::DataType::int32());
    ir::Expr packed = ir::intImm(0);
    ir::VarMap unpack;
    int64_t radix = 1;
    for (const ir::VarRef &var : captured) {
      auto found = enclosingLoops_.find(var.get());
      const ir::For *loop = found == enclosingLoops_.end() ? nullptr : found->second;
      auto min = loop ? ir::asConstInt(loop->min) : std::nullopt;
      auto extent = loop ? ir::asConstInt(loop->extent) : std::nullopt;
      bool integer = var->dtype == ir::DataType::int32() || var->dtype == ir::DataType::int64();
      if (!min || !extent || *extent < 1 || !integer || radix * *extent > INT32_MAX) {
        std::string names;
        for (const ir::VarRef &v : captured) names += (names.empty() ? "'" : ", '") + v->name + "'";
        fail(scope, "the micro-kernel depends on " + std::to_string(captured.size()) + " variables (" + names +
                        "); the runtime caches a micro-kernel by one int32 value, and '" + var->name +
                        "' is not an integer loop variable of constant range that could go into it");
        return ir::Stmt(&scope);
      }
      // (an int64 loop, as legalize-ops' sizes give, goes into the int32 key as its offset,
      // which the key's range bounds)
      packed = packed + ir::castExpr(ir::DataType::int32(), ir::Expr(var) - ir::intImm(*min, var->dtype)) * radix;
      unpack[var.get()] = ir::castExpr(
          var->dtype, ir::floorModExpr(ir::floorDivExpr(key, ir::intImm(radix)), ir::intImm(*extent)) + *min);
      radix *= *extent;
    }
    ir::Stmt kernel = ir::make<ir::AttrStmt>(scope.node, scope.key, scope.value, ir::substitute(body, unpack), scope.loc());
    return ir::make<ir::LetStmt>(key, ir::simplify(packed), kernel, scope.loc());
  }

  // The runtime records the micro-ops a kernel pushes once its loops are folded and refuses
  // the kernel if they do not all fit the micro-op SRAM; the count is known here.
  void checkFitsUopSram(const ir::AttrStmt &scope, const ir::Stmt &body) {
    std::optional<int64_t> uops = uopCount(body);
    if (!uops || *uops <= int64_t(uopDepth_)) return;
    fail(scope, "the micro-kernel records " + std::to_string(*uops) + " micro-ops, but the micro-op SRAM holds " +
                    std::to_string(uopDepth_) + " (LOG_UOP_BUFF_SIZE " + std::to_string(logUopBuffSize_) +
                    "): tensorize or apply the ALU pragma at a deeper loop, or raise LOG_UOP_BUFF_SIZE");
  }

  // One GEMM micro-kernel is either a reset or an accumulation: the runtime takes reset_out once
  // per kernel.
  void checkResetFlags(const ir::AttrStmt &scope) {
    std::optional<int64_t> first;
    ir::preOrderVisit(scope.body, [&](const ir::Node &n) {
      const auto *push = n.as<ir::Call>();
      if (!push || !isUopPush(*push)) return;
      std::optional<int64_t> reset = ir::asConstInt(push->args[1]);
      if (!reset) return fail(*push, "a micro-op's reset flag is not a constant");
      if (first && *first != *reset)
        fail(*push, "the GEMM micro-kernel mixes reset and accumulating micro-ops (nothing separates the "
                    "reset nest from the update nest, so they were merged into one kernel; VTA runs one kind "
                    "per kernel): load or compute something between them, e.g. compute_at the input copies "
                    "inside the reduction loop");
      first = reset;
    });
  }

  // The runtime rejects a micro-op that writes the accumulator tile of one of the two micro-ops
  // before it (VTAUopPush's pipeline-hazard check): a loop of two or more iterations whose
  // micro-ops' dst ignores the loop variable while one iteration pushes at most two micro-ops
  // (micro-op k and k + n, n <= 2, then write the same tile).
  void checkConsecutiveWrites(const ir::Stmt &body) {
    ir::preOrderVisit(body, [&](const ir::Node &n) {
      const auto *loop = n.as<ir::For>();
      auto extent = loop ? ir::asConstInt(loop->extent) : std::nullopt;
      if (!extent || *extent < 2) return;
      std::optional<int64_t> perIteration = uopCount(loop->body);
      if (!perIteration || *perIteration == 0 || *perIteration > 2) return;
      bool ignores = true;
      ir::preOrderVisit(loop->body, [&](const ir::Node &m) {
        const auto *push = m.as<ir::Call>();
        if (!push || !isUopPush(*push)) return;
        auto eq = ir::detectLinearEquation(push->args[2], {loop->loopVar});
        ignores &= eq && eq->coeffs[0] == 0;
      });
      if (ignores)
        fail(*loop, "consecutive micro-ops of loop '" + loop->loopVar->name +
                        "' write the same accumulator tile, which VTA's runtime rejects (make a "
                        "loop over output tiles the innermost)");
    });
  }

  // Micro-ops one execution of `stmt` pushes (micro-op loop markers push none); nullopt when
  // not a nest of constant loops.
  static std::optional<int64_t> uopCount(const ir::Stmt &stmt) {
    if (const auto *loop = stmt.as<ir::For>()) {
      auto extent = ir::asConstInt(loop->extent);
      auto inner = uopCount(loop->body);
      if (!extent || !inner) return std::nullopt;
      return *extent * *inner;
    }
    if (const auto *seq = stmt.as<ir::SeqStmt>()) {
      int64_t total = 0;
      for (const ir::Stmt &s : seq->stmts) {
        auto c = uopCount(s);
        if (!c) return std::nullopt;
        total += *c;
      }
      return total;
    }
    if (const auto *eval = stmt.as<ir::Evaluate>()) {
      const auto *call = eval->value.as<ir::Call>();
      if (call && isUopPush(*call)) return 1;
      if (call && isUopLoopMarker(*call)) return 0;
    }
    return std::nullopt;
  }

  // A loop a schedule primitive made (compute_at, split) has no source location: the diagnostic
  // then points at the micro-kernel's first located node (its micro-op, from the tensorized block).
  void fail(const ir::Node &at, const std::string &message) {
    FirstErrorMutator::fail(at.loc().isKnown() ? at.loc() : scopeLoc_, message);
  }

  static ir::SourceLoc locatedIn(const ir::AttrStmt &scope) {
    ir::SourceLoc found = scope.loc();
    ir::preOrderVisit(scope.body, [&](const ir::Node &n) {
      if (!found.isKnown() && n.loc().isKnown()) found = n.loc();
    });
    return found;
  }

  ir::SourceLoc scopeLoc_;
  std::unordered_map<const ir::Var *, const ir::For *> enclosingLoops_;

  PassContext &context_;
  uint32_t uopDepth_, logUopBuffSize_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> foldUopLoop(const ir::PrimFuncRef &func, PassContext &context) {
  UopLoopFolder folder(context);
  return mutateBody(func, folder, func->loc());
}

}  // namespace vtac::passes
