// legalize-ops for the elementwise binary operators: R.add, subtract, multiply, divide, maximum,
// minimum, power, floor_divide, left_shift, right_shift, bitwise_and, bitwise_or, bitwise_xor
// and the comparisons (equal, not_equal, less, less_equal, greater, greater_equal) become topi's
// broadcast computes (TVM's legalize_ops/binary.py with topi/broadcast.h; a shift is the
// builtin T.shift_right(a, b), as TIR's `a >> b`; power is T.pow; floor_divide is T.floor(a / b)
// of floats and T.floordiv of integers; a comparison is TIR's `a < b`, a bool, with greater and
// greater_equal written as `b < a` and `b <= a`, as topi writes them):
// block `T_add` (`T_right_shift`, `T_less`, ...) over the result's shape with iterators
// ax0, ax1, ...; each operand is indexed by the result's iterators aligned at the last
// dimension, with 0 where it broadcasts (its size is 1 and the other's is not). A scalar
// R.const operand is folded into the expression (the second first, as TVM tries it), so the
// prim_func takes only the other tensor.
#include "Legalize.h"

#include <cassert>

#include "vtac/ir/Arith.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

llvm::Expected<LegalizedOperator> legalizeBinary(const relax::Call &call) {
  // The TIR operation of each: an arithmetic node, or a builtin call (`op`); `swapped` takes
  // the operands in the other order.
  struct Operation {
    llvm::StringRef name;
    ir::NodeKind kind;
    const char *op = nullptr;
    bool swapped = false;
  };
  static const Operation operations[] = {
      {"add", ir::NodeKind::Add},     {"subtract", ir::NodeKind::Sub},
      {"multiply", ir::NodeKind::Mul}, {"divide", ir::NodeKind::Div},
      {"maximum", ir::NodeKind::Max}, {"minimum", ir::NodeKind::Min},
      {"left_shift", ir::NodeKind::Call, "tir.shift_left"},   {"right_shift", ir::NodeKind::Call, "tir.shift_right"},
      {"bitwise_and", ir::NodeKind::Call, "tir.bitwise_and"}, {"bitwise_or", ir::NodeKind::Call, "tir.bitwise_or"},
      {"bitwise_xor", ir::NodeKind::Call, "tir.bitwise_xor"}, {"power", ir::NodeKind::Call, "tir.pow"},
      {"floor_divide", ir::NodeKind::FloorDiv},
      {"equal", ir::NodeKind::EQ},    {"not_equal", ir::NodeKind::NE},
      {"less", ir::NodeKind::LT},     {"less_equal", ir::NodeKind::LE},
      {"greater", ir::NodeKind::LT, nullptr, true}, {"greater_equal", ir::NodeKind::LE, nullptr, true}};
  const Operation *operation = std::find_if(std::begin(operations), std::end(operations),
                                            [&](const Operation &o) { return o.name == call.callee; });
  assert(operation != std::end(operations) && "every elementwise binary operator has a TIR operation");
  // TVM folds the second operand when it is a scalar constant, else tries the first.
  Expr folded[2] = {nullptr, scalarConstant(call.args[1])};
  if (!folded[1]) folded[0] = scalarConstant(call.args[0]);

  ComputeBuilder builder;
  ir::BufferRef buffers[2];
  std::vector<Expr> shapes[2];
  for (size_t i = 0; i < 2; ++i) {
    if (folded[i]) continue;
    llvm::Expected<ir::BufferRef> buffer = builder.input(call.args[i]);
    if (!buffer) return buffer.takeError();
    buffers[i] = *buffer;
    shapes[i] = buffers[i]->shape;
  }
  auto operand = [&](size_t i, const ComputeBuilder::Indices &axes) -> Expr {
    if (folded[i]) return folded[i];
    return ir::bufferLoad(buffers[i], broadcastIndices(axes, shapes[i], shapes[1 - i]));
  };
  return builder.compute(call.callee, "T_" + call.callee, "ax", call.outSinfo, [&](const ComputeBuilder::Indices &axes) {
    Expr a = operand(0, axes), b = operand(1, axes);
    if (operation->swapped) std::swap(a, b);
    if (operation->op) return Expr(ir::make<ir::Call>(a->dtype, operation->op, std::vector<Expr>{a, b}));
    // topi's floor_divide: a float quotient rounded down; integers divide flooring.
    if (operation->kind == ir::NodeKind::FloorDiv && a->dtype.isFloat())
      return Expr(ir::make<ir::Call>(a->dtype, "tir.floor", std::vector<Expr>{ir::makeBinary(ir::NodeKind::Div, a, b)}));
    // Folding as TVM's operators do (x / 1 is x), so the result is what TVMScript reads back.
    return ir::makeBinary(operation->kind, a, b);
  });
}

}  // namespace vtac::passes::legalize
