#include "vtac/codegen/VectorLanes.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::codegen {

llvm::Expected<ir::Expr> vectorLane(const ir::Expr &expr, int lane) {
  if (expr->dtype.isScalar()) return expr;
  auto lanesOf = [&](const std::vector<ir::Expr> &operands) -> llvm::Expected<std::vector<ir::Expr>> {
    std::vector<ir::Expr> result;
    for (const ir::Expr &operand : operands) {
      auto scalar = vectorLane(operand, lane);
      if (!scalar) return scalar.takeError();
      result.push_back(*scalar);
    }
    return result;
  };
  ir::DataType element = expr->dtype.elementType();
  if (auto *ramp = expr.as<ir::Ramp>())
    return ir::addExpr(ramp->base, ir::mulExpr(ir::intImm(lane, ramp->stride->dtype), ramp->stride), expr->loc());
  if (auto *broadcast = expr.as<ir::Broadcast>()) return vectorLane(broadcast->value, lane);
  if (auto *load = expr.as<ir::BufferLoad>()) {
    auto indices = lanesOf(load->indices);
    if (!indices) return indices.takeError();
    return ir::make<ir::BufferLoad>(load->buffer, std::move(*indices), expr->loc());
  }
  if (auto *binary = expr.as<ir::BinaryExpr>()) {
    auto operands = lanesOf({binary->a, binary->b});
    if (!operands) return operands.takeError();
    return ir::makeBinary(binary->kind(), (*operands)[0], (*operands)[1], expr->loc());
  }
  if (auto *cast = expr.as<ir::Cast>()) {
    auto value = vectorLane(cast->value, lane);
    if (!value) return value.takeError();
    return ir::make<ir::Cast>(element, *value, expr->loc());
  }
  if (auto *negation = expr.as<ir::Not>()) {
    auto value = vectorLane(negation->a, lane);
    if (!value) return value.takeError();
    return ir::make<ir::Not>(*value, expr->loc());
  }
  if (auto *select = expr.as<ir::Select>()) {
    auto operands = lanesOf({select->condition, select->trueValue, select->falseValue});
    if (!operands) return operands.takeError();
    return ir::make<ir::Select>((*operands)[0], (*operands)[1], (*operands)[2], expr->loc());
  }
  if (auto *call = expr.as<ir::Call>()) {
    auto args = lanesOf(call->args);
    if (!args) return args.takeError();
    return ir::make<ir::Call>(element, call->op, std::move(*args), expr->loc());
  }
  return ir::diagnosticError(expr->loc(), "the C emitter does not support this vector expression (" +
                                              expr->dtype.str() + ")");
}

}  // namespace vtac::codegen
