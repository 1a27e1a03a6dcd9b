#include "tir/LowerOpaqueBlock.h"

#include <algorithm>

#include "tir/BufferLayout.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

bool isPragmaKey(const std::string &key) { return key.compare(0, 7, "pragma_") == 0; }

class OpaqueBlockLowerer : public FirstErrorMutator {
public:
  explicit OpaqueBlockLowerer(StorageAlignments alignments) : alignments_(std::move(alignments)) {}

  ir::Stmt visitBlockRealize(const ir::BlockRealize &op) override {
    const ir::Block &block = *op.block;
    if (!op.iterValues.empty()) fail(op, "block '" + block.name + "' is not opaque; run convert-blocks-to-opaque first");
    if (!block.matchBuffers.empty()) fail(op, "block '" + block.name + "' still matches buffers; run lower-match-buffer first");
    if (block.init) fail(op, "block '" + block.name + "' still has T.init(); run lower-init-block first");
    ir::Stmt body = visitStmt(block.body);
    if (op.predicate) body = ir::make<ir::IfThenElse>(visitExpr(op.predicate), body, nullptr, op.loc());
    for (auto it = block.allocBuffers.rbegin(); it != block.allocBuffers.rend(); ++it) {
      const ir::BufferRef &buffer = *it;
      // At the alloc_buffer's own line when the frontend recorded one.
      ir::SourceLoc at = buffer->loc().isKnown() ? buffer->loc() : block.loc();
      body = ir::make<ir::DeclBuffer>(buffer, body, at);
      // The block's storage alignments would go with it; the allocation keeps them (as TVM's).
      ir::AttrMap annotations;
      auto aligned = alignments_.find(buffer->data.get());
      if (aligned != alignments_.end())
        annotations.set("buffer_dim_align", allocationAlignAnnotation(aligned->second));
      body = ir::make<ir::Allocate>(buffer->data, buffer->dtype, allocationShape(*buffer), nullptr, body,
                                    annotations, at);
    }
    auto pragmas = pragmaAttrs(block.annotations, block);
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it)
      body = ir::make<ir::AttrStmt>(ir::intImm(0), it->first, it->second, body, block.loc());
    return body;
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Expr min = visitExpr(op.min), extent = visitExpr(op.extent);
    bool unitLoop = ir::isOne(extent) && op.annotations.empty();
    if (unitLoop) unitLoopStarts_[op.loopVar.get()] = min;
    ir::Stmt body = visitStmt(op.body);
    if (unitLoop) unitLoopStarts_.erase(op.loopVar.get());
    auto pragmas = pragmaAttrs(op.annotations, op);
    ir::AttrMap kept;
    for (const auto &[key, value] : op.annotations)
      if (!isPragmaKey(key)) kept.set(key, value);
    if (op.forKind == ir::ForKind::ThreadBinding && op.threadBinding) {
      const std::string &tag = op.threadBinding->threadTag;
      auto iter = ir::make<ir::IterVar>(op.loopVar, ir::Range{min, extent}, ir::IterType::ThreadIndex, tag, op.loc());
      body = ir::make<ir::AttrStmt>(iter, ir::threadLaunchKey(tag), extent, body,
                                    op.loc());
    } else if (unitLoop) {
      return body;
    } else if (pragmas.empty() && min == op.min && extent == op.extent && body == op.body) {
      return ir::Stmt(&op);
    } else {
      body = ir::make<ir::For>(op.loopVar, min, extent, op.forKind, body, nullptr, kept, op.loc());
    }
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it)
      body = ir::make<ir::AttrStmt>(op.loopVar, it->first, it->second, body, op.loc());
    return body;
  }

  ir::Expr visitVar(const ir::Var &op) override {
    auto it = unitLoopStarts_.find(&op);
    if (it == unitLoopStarts_.end()) return ir::Expr(&op);
    return ir::castExpr(op.dtype, it->second);
  }

private:
  // The `pragma_*` annotations as (key, value) in key order (AttrMap keeps keys sorted).
  std::vector<std::pair<std::string, ir::Expr>> pragmaAttrs(const ir::AttrMap &annotations, const ir::Node &at) {
    std::vector<std::pair<std::string, ir::Expr>> result;
    for (const auto &[key, value] : annotations) {
      if (!isPragmaKey(key)) continue;
      ir::Expr expr;
      if (value.isExpr()) expr = visitExpr(value.asExpr());
      else if (value.isBool()) expr = ir::boolImm(value.asBool());
      else if (value.isInt()) expr = ir::intImm(value.asInt());
      else if (value.isFloat()) expr = ir::floatImm(value.asFloat());
      else if (value.isString()) expr = ir::make<ir::StringImm>(value.asString());
      else fail(at, "annotation '" + key + "' has a value that cannot become a T.attr value");
      if (expr) result.emplace_back(key, expr);
    }
    return result;
  }

  ir::VarMap unitLoopStarts_;
  StorageAlignments alignments_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerOpaqueBlock(const ir::PrimFuncRef &func, PassContext &) {
  if (isFromLegacyTeSchedule(*func)) return func;
  OpaqueBlockLowerer lowerer(collectStorageAlignments(func->body));
  return mutateBody(func, lowerer);
}

}  // namespace vtac::passes
