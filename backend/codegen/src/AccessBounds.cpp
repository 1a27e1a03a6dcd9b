#include "vtac/codegen/AccessBounds.h"

#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Builtins.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Visitor.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

ir::Expr toInt64(const ir::Expr &e) { return ir::castExpr(DataType::int64().withLanes(e->dtype.lanes()), e); }

ir::Expr product(const std::vector<ir::Expr> &factors, int64_t elementBytes) {
  ir::Expr bytes = ir::intImm(elementBytes, DataType::int64());
  for (const ir::Expr &factor : factors) bytes = ir::mulExpr(bytes, toInt64(factor));
  return bytes;
}

// The value of lane `lane` of an index affine in the lane; null for any other vector.
ir::Expr laneValue(const ir::Expr &e, int64_t lane) {
  if (e->dtype.isScalar()) return e;
  if (auto *ramp = e.as<ir::Ramp>())
    return ir::addExpr(ramp->base, ir::mulExpr(ramp->stride, ir::intImm(lane, ramp->stride->dtype)));
  if (auto *broadcast = e.as<ir::Broadcast>()) return broadcast->value;
  if (auto *cast = e.as<ir::Cast>()) {
    ir::Expr value = laneValue(cast->value, lane);
    return value ? ir::castExpr(cast->dtype.elementType(), value) : nullptr;
  }
  auto *binary = e.as<ir::BinaryExpr>();
  if (!binary) return nullptr;
  ir::NodeKind kind = e->kind();
  bool affine = kind == ir::NodeKind::Add || kind == ir::NodeKind::Sub ||
                (kind == ir::NodeKind::Mul && (binary->a.isa<ir::Broadcast>() || binary->b.isa<ir::Broadcast>()));
  if (!affine) return nullptr;
  ir::Expr a = laneValue(binary->a, lane), b = laneValue(binary->b, lane);
  return a && b ? ir::makeBinary(kind, a, b) : nullptr;
}

}  // namespace

AccessBounds::AccessBounds(const HostFunction &function) {
  for (const HostParam &param : function.params)
    if (param.buffer && param.bindsData)
      allocationBytes_[param.buffer->data.get()] = product(param.buffer->shape, param.buffer->dtype.bytes());
  auto scan = [&](const ir::Stmt &body) {
    ir::preOrderVisit(body, [&](const ir::Node &node) {
      if (auto *allocate = node.as<ir::Allocate>()) {
        allocationBytes_[allocate->bufferVar.get()] = product(allocate->extents, allocate->dtype.bytes());
        return;
      }
      auto *let = node.as<ir::LetStmt>();
      if (!let || !let->var->dtype.isHandle()) return;
      const ir::Var *source = ir::storageViewedBy(let->value);
      if (!source) return;
      auto found = allocationBytes_.find(source);
      if (found != allocationBytes_.end()) allocationBytes_[let->var.get()] = found->second;
    });
  };
  scan(function.body);
  for (const ParallelTask &task : function.tasks) {
    scan(task.body);
    const ir::Var &loopVar = *ir::cast<ir::For>(task.body)->loopVar;
    bindLoop(loopVar, task.loopRange.min, task.loopRange.extent);
    taskLoopVars_.insert(&loopVar);
  }
}

void AccessBounds::bindLoop(const ir::Var &var, const ir::Expr &min, const ir::Expr &extent) {
  if (var.dtype.isIntOrUInt() && !taskLoopVars_.count(&var)) analyzer_.bind(ir::VarRef(&var), ir::Range{min, extent});
}

void AccessBounds::bindLet(const ir::Var &var, const ir::Expr &value) {
  if (var.dtype.isIntOrUInt() && var.dtype.isScalar()) analyzer_.bind(ir::VarRef(&var), value);
}

ir::Expr AccessBounds::allocationBytes(const ir::Var &data) const {
  auto found = allocationBytes_.find(&data);
  return found == allocationBytes_.end() ? nullptr : found->second;
}

ir::Expr AccessBounds::flatIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) const {
  // Scalar and vector operands mix: the IR's operators broadcast the scalar.
  ir::Expr flat = buffer.elemOffset ? toInt64(buffer.elemOffset) : ir::intImm(0, DataType::int64());
  ir::Expr stride = ir::intImm(1, DataType::int64());
  for (size_t i = indices.size(); i-- > 0;) {
    ir::Expr dimStride = buffer.strides.empty() ? stride : toInt64(buffer.strides[i]);
    flat = ir::addExpr(flat, ir::mulExpr(toInt64(indices[i]), dimStride));
    if (buffer.strides.empty() && i < buffer.shape.size()) stride = ir::mulExpr(stride, toInt64(buffer.shape[i]));
  }
  return flat;
}

bool AccessBounds::provesInRange(const ir::Expr &index, const ir::Expr &limit) {
  int lanes = index->dtype.lanes();
  for (int64_t lane : {int64_t(0), int64_t(lanes - 1)}) {
    ir::Expr value = laneValue(index, lane);
    if (!value) return false;
    value = toInt64(value);
    ir::arith::IntBound bound = analyzer_.constIntBound(analyzer_.simplify(value));
    if (bound.min < 0 && !analyzer_.canProve(ir::binary(ir::NodeKind::GE, value, ir::intImm(0, DataType::int64()))))
      return false;
    ir::arith::IntBound limitBound = analyzer_.constIntBound(limit);
    if (bound.max < limitBound.min) continue;
    if (!analyzer_.canProve(ir::binary(ir::NodeKind::LT, value, toInt64(limit)))) return false;
  }
  return true;
}

bool AccessBounds::excludes(const ir::Expr &e, int64_t value) {
  if (!e->dtype.isScalar()) {
    auto *broadcast = e.as<ir::Broadcast>();
    return broadcast && excludes(broadcast->value, value);
  }
  ir::arith::IntBound bound = analyzer_.constIntBound(e);
  return bound.min > value || bound.max < value;
}

}  // namespace vtac::codegen
