#include "tir/UnrollLoop.h"

#include <climits>
#include <unordered_set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassOptions.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {

std::vector<std::string> unrollLoopOptions() {
  return {"unroll-loop.auto-max-step", "unroll-loop.auto-max-depth", "unroll-loop.auto-max-extent",
          "unroll-loop.explicit-unroll", "unroll-loop.unroll-local-access"};
}

namespace {

struct UnrollConfig {
  int64_t autoMaxStep = 0;
  int64_t autoMaxDepth = 8;
  int64_t autoMaxExtent = 0;
  bool explicitUnroll = true;
  bool unrollLocalAccess = false;
};

llvm::Expected<UnrollConfig> readUnrollConfig(const PassContext &context) {
  UnrollConfig config;
  struct Field {
    const char *name;
    int64_t *value;
  };
  int64_t explicitUnroll = 1, localAccess = 0;
  const std::vector<std::string> names = unrollLoopOptions();
  for (Field f : {Field{names[0].c_str(), &config.autoMaxStep}, Field{names[1].c_str(), &config.autoMaxDepth},
                  Field{names[2].c_str(), &config.autoMaxExtent}, Field{names[3].c_str(), &explicitUnroll},
                  Field{names[4].c_str(), &localAccess}}) {
    llvm::Expected<int64_t> value = integerOption(context, f.name, *f.value);
    if (!value) return value.takeError();
    *f.value = *value;
  }
  config.explicitUnroll = explicitUnroll != 0;
  config.unrollLocalAccess = localAccess != 0;
  return config;
}

// Gives the variables and buffers a copied body defines (loop and let variables, allocations,
// decl_buffers) fresh objects, so each unrolled copy defines its own (TVM runs ConvertSSA for
// this).
class FreshDefinitions : public ir::StmtExprMutator {
public:
  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::VarRef fresh = rename(op.bufferVar);
    freshData_[op.bufferVar.get()] = fresh;
    ir::Stmt visited = ir::StmtExprMutator::visitAllocate(op);
    ir::Allocate *copy = ir::copyNode(*visited.as<ir::Allocate>());
    copy->bufferVar = fresh;
    return ir::Stmt(copy);
  }
  ir::Stmt visitDeclBuffer(const ir::DeclBuffer &op) override {
    ir::Buffer *fresh = ir::copyNode(*op.buffer);
    if (auto it = freshData_.find(fresh->data.get()); it != freshData_.end()) fresh->data = it->second;
    buffers_[op.buffer.get()] = ir::BufferRef(fresh);
    ir::Stmt visited = ir::StmtExprMutator::visitDeclBuffer(op);
    ir::DeclBuffer *copy = ir::copyNode(*visited.as<ir::DeclBuffer>());
    copy->buffer = buffers_[op.buffer.get()];
    return ir::Stmt(copy);
  }
  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    return withFreshBuffer(op, ir::StmtExprMutator::visitBufferLoad(op));
  }
  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    return withFreshBuffer(op, ir::StmtExprMutator::visitBufferStore(op));
  }
  ir::Stmt visitFor(const ir::For &op) override {
    ir::VarRef fresh = rename(op.loopVar);
    ir::Stmt visited = ir::StmtExprMutator::visitFor(op);
    ir::For *copy = ir::copyNode(*visited.as<ir::For>());
    copy->loopVar = fresh;
    return ir::Stmt(copy);
  }
  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    ir::Expr value = visitExpr(op.value);
    ir::VarRef fresh = rename(op.var);
    return ir::Stmt(new ir::LetStmt(fresh, value, visitStmt(op.body), op.loc()));
  }
  ir::Expr visitVar(const ir::Var &op) override {
    auto it = renamed_.find(&op);
    return it == renamed_.end() ? ir::Expr(&op) : it->second;
  }

private:
  // The visited load or store, over this copy's buffer when the copy declares its own.
  template <class Access, class Visited> Visited withFreshBuffer(const Access &op, Visited visited) {
    auto it = buffers_.find(op.buffer.get());
    if (it == buffers_.end()) return visited;
    Access *copy = ir::copyNode(*visited.template as<Access>());
    copy->buffer = it->second;
    return Visited(copy);
  }
  ir::VarRef rename(const ir::VarRef &var) {
    ir::VarRef fresh(new ir::Var(*var));
    renamed_[var.get()] = fresh;
    return fresh;
  }
  ir::VarMap renamed_;
  std::unordered_map<const ir::Var *, ir::VarRef> freshData_;
  std::unordered_map<const ir::Buffer *, ir::BufferRef> buffers_;
};

class LoopUnroller : public FirstErrorMutator {
public:
  explicit LoopUnroller(UnrollConfig config) : config_(config) {}

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    auto value = ir::asConstInt(op.value);
    if (op.key == "pragma_auto_unroll_max_step" && value) {
      int64_t saved = std::exchange(config_.autoMaxStep, *value);
      ir::Stmt body = visitStmt(op.body);
      config_.autoMaxStep = saved;
      return body;
    }
    if (op.key == "pragma_unroll_explicit" && value) {
      bool saved = std::exchange(config_.explicitUnroll, *value != 0);
      ir::Stmt body = visitStmt(op.body);
      config_.explicitUnroll = saved;
      return body;
    }
    return ir::StmtExprMutator::visitAttrStmt(op);
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitFor(op);
    const auto *loop = visited.as<ir::For>();
    int64_t extent = constantExtent(*loop);
    bool unroll = loop->forKind == ir::ForKind::Serial && extent >= 0 && normalLoopDepth_ == 0 &&
                  unrollDepth_ <= config_.autoMaxDepth &&
                  (extent * stepCount_ <= config_.autoMaxStep || extent <= config_.autoMaxExtent);
    if (loop->forKind == ir::ForKind::Unrolled) {
      if (extent < 0) fail(op, "cannot unroll a loop whose extent is not a constant");
      unroll = extent >= 0;
    }
    if (config_.unrollLocalAccess && extent > 0 && localIndexVars_.count(loop->loopVar.get())) unroll = true;
    if (unroll) {
      stepCount_ *= extent;
      ++unrollDepth_;
    } else {
      ++normalLoopDepth_;
    }
    if ((unroll && config_.explicitUnroll) || (extent >= 0 && extent <= config_.autoMaxExtent && config_.autoMaxExtent == 1))
      return copies(*loop, extent);
    if (unroll && loop->forKind != ir::ForKind::Unrolled) {
      ir::For *copy = ir::copyNode(*loop);
      copy->forKind = ir::ForKind::Unrolled;
      return ir::Stmt(copy);
    }
    return visited;
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    noteLocalIndices(op.buffer, op.indices);
    return ir::Expr(&op);
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ++stepCount_;
    noteLocalIndices(op.buffer, op.indices);
    return ir::StmtExprMutator::visitBufferStore(op);
  }

  ir::Stmt visitEvaluate(const ir::Evaluate &op) override {
    ++stepCount_;
    return ir::StmtExprMutator::visitEvaluate(op);
  }

  // Each member of a sequence is decided on its own; the sequence sums their steps.
  ir::Stmt visitSeqStmt(const ir::SeqStmt &op) override {
    std::vector<ir::Stmt> stmts;
    bool changed = false;
    for (const ir::Stmt &s : op.stmts) {
      int64_t steps = std::exchange(stepCount_, 0);
      int64_t unrolled = std::exchange(unrollDepth_, 0), normal = std::exchange(normalLoopDepth_, 0);
      stmts.push_back(visitStmt(s));
      changed |= stmts.back() != s;
      stepCount_ += steps;
      normalLoopDepth_ = std::max(normal, normalLoopDepth_);
      unrollDepth_ = std::max(unrolled, unrollDepth_);
    }
    return changed ? ir::seq(std::move(stmts), op.loc()) : ir::Stmt(&op);
  }

private:
  int64_t constantExtent(const ir::For &loop) {
    auto v = ir::asConstInt(analyzer_.simplify(loop.extent));
    return v && *v <= INT_MAX ? *v : -1;
  }

  ir::Stmt copies(const ir::For &loop, int64_t extent) {
    if (extent == 0) return ir::Stmt(new ir::Evaluate(ir::intImm(0), loop.loc()));
    std::vector<ir::Stmt> steps;
    for (int64_t k = 0; k < extent; ++k) {
      ir::Expr index = ir::addExpr(loop.min, ir::intImm(k, loop.loopVar->dtype));
      ir::Stmt step = ir::substitute(loop.body, {{loop.loopVar.get(), index}});
      steps.push_back(k == 0 ? step : FreshDefinitions().visitStmt(step));
    }
    return ir::seq(std::move(steps), loop.loc());
  }

  void noteLocalIndices(const ir::BufferRef &buffer, const std::vector<ir::Expr> &indices) {
    if (!config_.unrollLocalAccess) return;
    llvm::StringRef scope = buffer->scope();
    if (!scope.starts_with("local") && !scope.starts_with("warp")) return;
    for (const ir::Expr &i : indices)
      ir::preOrderVisit(i, [&](const ir::Node &n) {
        if (const auto *v = n.as<ir::Var>()) localIndexVars_.insert(v);
      });
  }

  UnrollConfig config_;
  int64_t normalLoopDepth_ = 0, unrollDepth_ = 0, stepCount_ = 0;
  std::unordered_set<const ir::Var *> localIndexVars_;
  ir::arith::Analyzer analyzer_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> unrollLoop(const ir::PrimFuncRef &func, PassContext &context) {
  auto config = readUnrollConfig(context);
  if (!config) return config.takeError();
  LoopUnroller unroller(*config);
  return mutateBody(func, unroller);
}

}  // namespace vtac::passes
