// Expressions: IR expression -> IntExpr / FloatExpr / HandleExpr (see Compiler.h).
#include <algorithm>
#include <cmath>

#include "Compiler.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Tensor.h"
#include "vtac/ir/MatchBufferIndices.h"

namespace vtac::backend::interp {

using ir::DataType;
using ir::NodeKind;

namespace {

// Calls make(wrap) with the cheapest wrapping policy that is exact for `type`.
template <class F> IntPtr withWrap(IntType type, F &&make) {
  if (!type.isBool && type.isSigned && type.bits == 32) return make(WrapInt32{});
  if (!type.isBool && type.bits == 64) return make(WrapInt64{});
  return make(WrapGeneric{type});
}

// True when every value of `source` is a value of `target` (the cast changes nothing).
bool representable(IntType source, IntType target) {
  if (target.isBool) return source.isBool;
  if (source.isBool) return true;
  if (source.isSigned == target.isSigned) return source.bits <= target.bits;
  return !source.isSigned && target.isSigned && source.bits < target.bits;
}

template <class Cmp> IntPtr makeIntCompare(bool isUnsigned64, IntPtr a, IntPtr b) {
  if (isUnsigned64) return std::make_unique<IntCompare<Cmp, uint64_t>>(std::move(a), std::move(b));
  return std::make_unique<IntCompare<Cmp, int64_t>>(std::move(a), std::move(b));
}

template <class Op> FloatPtr makeFloatBinary(FloatWidth width, FloatPtr a, FloatPtr b) {
  switch (width) {
  case FloatWidth::F16: return std::make_unique<FloatBinary<Op, FloatWidth::F16>>(std::move(a), std::move(b));
  case FloatWidth::F32: return std::make_unique<FloatBinary<Op, FloatWidth::F32>>(std::move(a), std::move(b));
  default: return std::make_unique<FloatBinary<Op, FloatWidth::F64>>(std::move(a), std::move(b));
  }
}

struct UnaryMath {
  const char *op;
  double (*function)(double);
};

double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double exp10(double x) { return std::pow(10.0, x); }

const UnaryMath kUnaryMath[] = {
    {"tir.exp", [](double x) { return std::exp(x); }},
    {"tir.exp2", [](double x) { return std::exp2(x); }},
    {"tir.exp10", exp10},
    {"tir.log", [](double x) { return std::log(x); }},
    {"tir.log2", [](double x) { return std::log2(x); }},
    {"tir.log10", [](double x) { return std::log10(x); }},
    {"tir.log1p", [](double x) { return std::log1p(x); }},
    {"tir.sqrt", [](double x) { return std::sqrt(x); }},
    {"tir.rsqrt", rsqrt},
    {"tir.sigmoid", sigmoid},
    {"tir.tanh", [](double x) { return std::tanh(x); }},
    {"tir.sinh", [](double x) { return std::sinh(x); }},
    {"tir.cosh", [](double x) { return std::cosh(x); }},
    {"tir.sin", [](double x) { return std::sin(x); }},
    {"tir.cos", [](double x) { return std::cos(x); }},
    {"tir.tan", [](double x) { return std::tan(x); }},
    {"tir.asin", [](double x) { return std::asin(x); }},
    {"tir.acos", [](double x) { return std::acos(x); }},
    {"tir.atan", [](double x) { return std::atan(x); }},
    {"tir.erf", [](double x) { return std::erf(x); }},
    {"tir.fabs", [](double x) { return std::fabs(x); }},
    {"tir.abs", [](double x) { return std::fabs(x); }},
    {"tir.floor", [](double x) { return std::floor(x); }},
    {"tir.ceil", [](double x) { return std::ceil(x); }},
    {"tir.trunc", [](double x) { return std::trunc(x); }},
    {"tir.round", [](double x) { return std::round(x); }},
    {"tir.nearbyint", [](double x) { return std::nearbyint(x); }},
};

}  // namespace

ir::SourceLoc FunctionCompiler::locOf(const ir::Node &node) const {
  return node.loc().isKnown() ? node.loc() : stmtLoc_;
}

void FunctionCompiler::fail(const ir::Node &node, const llvm::Twine &message) {
  if (failed_) return;
  failed_ = true;
  error_ = diagnosticError(locOf(node), message);
}

llvm::Error FunctionCompiler::takeError() { return std::move(error_); }

VarKind FunctionCompiler::kindOf(DataType dtype) {
  if (dtype.isFloat()) return VarKind::Float;
  if (dtype.isHandle()) return VarKind::RawHandle;
  return VarKind::Int;  // int, uint, bool, and void (a call whose result is ignored)
}

const VarInfo *FunctionCompiler::lookup(const ir::Var *var) const {
  auto it = vars_.find(var);
  return it == vars_.end() ? nullptr : &it->second;
}

bool FunctionCompiler::checkScalar(const ir::ExprNode &expr) {
  if (!expr.dtype.isVector()) return true;
  fail(expr, "vector expressions (" + expr.dtype.str() + ") are not supported by the interpreter");
  return false;
}

Operand FunctionCompiler::compileOperand(const ir::Expr &expr) {
  Operand operand;
  if (auto *imm = expr.as<ir::IntImm>()) {
    operand.value = imm->value;
    return operand;
  }
  if (auto *var = expr.as<ir::Var>()) {
    const VarInfo *info = lookup(var);
    if (info && info->kind == VarKind::Int) {
      operand.kind = Operand::Kind::Slot;
      operand.slot = info->slot;
      return operand;
    }
  }
  // Index arithmetic over variables only: evaluated inline by the access.
  auto *binary = expr.as<ir::BinaryExpr>();
  bool additive = expr->kind() == NodeKind::Add || expr->kind() == NodeKind::Sub ||
                  (expr->kind() == NodeKind::Mul && (binary->a.isa<ir::IntImm>() || binary->b.isa<ir::IntImm>()));
  if (binary && additive && kindOf(expr->dtype) == VarKind::Int && checkScalar(*expr)) {
    AffineTerms terms = collectAffine(*binary);
    if (terms.exprs.empty() && terms.slots.size() <= size_t(AffineSum::kMaxTerms)) {
      operand.kind = Operand::Kind::Affine;
      operand.type = IntType::of(expr->dtype);
      operand.affine.constant = terms.constant;
      for (auto &term : terms.slots) {
        operand.affine.slots[operand.affine.count] = term.first;
        operand.affine.coefficients[operand.affine.count++] = term.second;
      }
      return operand;
    }
    // Not only variables: compiled as an expression node instead (these terms are dropped).
  }
  operand.kind = Operand::Kind::Expr;
  operand.expr = compileInt(expr);
  return operand;
}

SlotAssign FunctionCompiler::compileAssign(int slot, const ir::Expr &value) {
  SlotAssign assign;
  assign.slot = slot;
  switch (kindOf(value->dtype)) {
  case VarKind::Float: assign.floatValue = compileFloat(value); break;
  case VarKind::Int: assign.intValue = compileInt(value); break;
  default: assign.handleValue = compileHandle(value); break;
  }
  return assign;
}

BufferAccess FunctionCompiler::compileAccess(const ir::Buffer &buffer,
                                            const std::vector<ir::Expr> &indices,
                                            const ir::Node &at) {
  // A match_buffer view reads and writes its source.
  if (auto view = views_.find(&buffer); view != views_.end() && indices.size() <= view->second.region.size())
    return compileAccess(*view->second.buffer, ir::matchBufferSourceIndices(view->second, indices), at);
  BufferAccess access;
  access.bufferName = buffer.name;
  access.loc = locOf(at);
  access.elementBytes = buffer.dtype.bytes();
  const VarInfo *data = lookup(buffer.data.get());
  if (!data || data->kind != VarKind::Storage) {
    fail(at, "buffer '" + buffer.name + "' has no storage here (its data variable '" +
                 buffer.data->name + "' is not bound)");
    return access;
  }
  access.dataSlot = data->slot;
  if (!isSupportedTensorType(buffer.dtype)) {  // the element types loads and stores know
    fail(at, "buffer '" + buffer.name + "' has element type " + buffer.dtype.str() +
                 ", which the interpreter does not support");
    return access;
  }
  size_t rank = buffer.shape.size();
  if (indices.size() != rank) {
    fail(at, "buffer '" + buffer.name + "' has " + llvm::Twine(rank) + " dimensions but is accessed with " +
                 llvm::Twine(indices.size()) + " indices");
    return access;
  }
  if (!buffer.strides.empty() && buffer.strides.size() != rank) {
    fail(at, "buffer '" + buffer.name + "' has " + llvm::Twine(buffer.strides.size()) +
                 " strides for " + llvm::Twine(rank) + " dimensions");
    return access;
  }
  access.dims.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    BufferAccess::Dim &dim = access.dims[d];
    dim.index = compileOperand(indices[d]);
    dim.extent = compileOperand(buffer.shape[d]);
    if (!buffer.strides.empty()) {
      dim.stride = compileOperand(buffer.strides[d]);
      continue;
    }
    // Compact row-major stride: the product of the later extents, folded when constant.
    int64_t constant = 1;
    IntPtr product;
    for (size_t k = d + 1; k < rank; ++k) {
      if (auto *imm = buffer.shape[k].as<ir::IntImm>()) {
        constant *= imm->value;
        continue;
      }
      IntPtr extent = compileInt(buffer.shape[k]);
      product = product ? std::make_unique<IntBinary<OpMul, WrapInt64>>(std::move(product), std::move(extent), WrapInt64{})
                        : std::move(extent);
    }
    if (!product) {
      dim.stride.value = constant;
    } else {
      dim.stride.kind = Operand::Kind::Expr;
      dim.stride.expr = constant == 1 ? std::move(product)
                                      : std::make_unique<IntBinary<OpMul, WrapInt64>>(
                                            std::move(product), std::make_unique<IntConst>(constant), WrapInt64{});
    }
  }
  if (buffer.elemOffset) access.elemOffset = compileOperand(buffer.elemOffset);
  bool noOffset = access.elemOffset.isConst() && access.elemOffset.value == 0;
  access.isFlat = rank == 1 && buffer.strides.empty() && noOffset;
  access.isConstLayout = rank > 1 && noOffset && std::all_of(access.dims.begin(), access.dims.end(), [](const BufferAccess::Dim &dim) {
                           return dim.extent.isConst() && dim.stride.isConst();
                         });
  return access;
}

// ---- integers -------------------------------------------------------------------------------

IntPtr FunctionCompiler::compileInt(const ir::Expr &expr) {
  const ir::ExprNode &e = *expr;
  if (!checkScalar(e)) return std::make_unique<IntConst>(0);
  if (kindOf(e.dtype) != VarKind::Int) {
    fail(e, "expected an integer expression, found one of type " + e.dtype.str());
    return std::make_unique<IntConst>(0);
  }
  IntType type = e.dtype.isVoid() ? IntType{} : IntType::of(e.dtype);
  switch (e.kind()) {
  case NodeKind::IntImm:
    return std::make_unique<IntConst>(type.wrap(static_cast<const ir::IntImm &>(e).value));
  case NodeKind::Var: {
    auto &var = static_cast<const ir::Var &>(e);
    const VarInfo *info = lookup(&var);
    if (!info) return std::make_unique<UnboundIntVar>(var.name, stmtLoc_);  // a Var's own location is its declaration
    if (info->kind != VarKind::Int) {
      fail(e, "variable '" + var.name + "' is not an integer");
      return std::make_unique<IntConst>(0);
    }
    return std::make_unique<IntSlot>(info->slot);
  }
  case NodeKind::Cast: return compileIntCast(static_cast<const ir::Cast &>(e));
  case NodeKind::Not: {
    auto node = std::make_unique<LogicalNot>();
    node->a = compileInt(static_cast<const ir::Not &>(e).a);
    return node;
  }
  case NodeKind::Select: {
    auto &select = static_cast<const ir::Select &>(e);
    return compileSelect<IntSelect>(select.condition, select.trueValue, select.falseValue, false,
                                    &FunctionCompiler::compileInt);
  }
  case NodeKind::BufferLoad: {
    auto &load = static_cast<const ir::BufferLoad &>(e);
    BufferAccess access = compileAccess(*load.buffer, load.indices, e);
    DataType element = load.buffer->dtype;
    return forIntElement(element, [&](auto tag) -> IntPtr {
      auto node = std::make_unique<IntLoad<decltype(tag)>>();
      node->access = std::move(access);
      return node;
    });
  }
  case NodeKind::Call: return compileIntCall(static_cast<const ir::Call &>(e));
  case NodeKind::Let: {
    auto &let = static_cast<const ir::Let &>(e);
    auto node = std::make_unique<IntLet>();
    int slot = newSlot();
    node->binding = compileAssign(slot, let.value);
    auto guard = bind(let.var.get(), {slot, kindOf(let.var->dtype), let.var->dtype});
    node->body = compileInt(let.body);
    return node;
  }
  default:
    break;
  }
  if (auto *binary = expr.as<ir::BinaryExpr>()) {
    if (ir::BinaryExpr::isComparison(e.kind())) return compileComparison(*binary);
    if (e.kind() == NodeKind::And) {
      auto node = std::make_unique<LogicalAnd>();
      node->a = compileInt(binary->a);
      node->b = compileInt(binary->b);
      return node;
    }
    if (e.kind() == NodeKind::Or) {
      auto node = std::make_unique<LogicalOr>();
      node->a = compileInt(binary->a);
      node->b = compileInt(binary->b);
      return node;
    }
    return compileIntBinary(*binary);
  }
  fail(e, llvm::Twine(ir::nodeKindName(e.kind())) + " is not supported by the interpreter");
  return std::make_unique<IntConst>(0);
}

IntPtr FunctionCompiler::compileIntBinary(const ir::BinaryExpr &op) {
  IntType type = IntType::of(op.dtype);
  switch (op.kind()) {
  case NodeKind::Add:
  case NodeKind::Sub:
  case NodeKind::Mul:
    return compileAffine(op);
  case NodeKind::Min:
  case NodeKind::Max: {
    IntPtr a = compileInt(op.a), b = compileInt(op.b);
    bool isMin = op.kind() == NodeKind::Min;
    if (type.isUInt64())
      return isMin ? IntPtr(std::make_unique<IntBinary<OpUMin, WrapInt64>>(std::move(a), std::move(b), WrapInt64{}))
                   : IntPtr(std::make_unique<IntBinary<OpUMax, WrapInt64>>(std::move(a), std::move(b), WrapInt64{}));
    return isMin ? IntPtr(std::make_unique<IntBinary<OpMin, WrapInt64>>(std::move(a), std::move(b), WrapInt64{}))
                 : IntPtr(std::make_unique<IntBinary<OpMax, WrapInt64>>(std::move(a), std::move(b), WrapInt64{}));
  }
  case NodeKind::Div:
  case NodeKind::Mod:
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: {
    auto node = std::make_unique<IntDivide>();
    node->op = op.kind() == NodeKind::Div    ? IntDivide::Kind::TruncDiv
               : op.kind() == NodeKind::Mod  ? IntDivide::Kind::TruncMod
               : op.kind() == NodeKind::FloorDiv ? IntDivide::Kind::FloorDiv
                                                 : IntDivide::Kind::FloorMod;
    node->type = type;
    node->a = compileInt(op.a);
    node->b = compileInt(op.b);
    node->loc = locOf(op);
    return node;
  }
  default:
    fail(op, llvm::Twine(ir::nodeKindName(op.kind())) + " is not an integer operator");
    return std::make_unique<IntConst>(0);
  }
}

FunctionCompiler::AffineTerms FunctionCompiler::collectAffine(const ir::BinaryExpr &root) {
  AffineTerms terms;
  std::function<void(const ir::Expr &, uint64_t)> collect = [&](const ir::Expr &e, uint64_t coefficient) {
    if (e->dtype != root.dtype) {  // a different width wraps differently: opaque term
      terms.exprs.emplace_back(compileInt(e), coefficient);
      return;
    }
    if (auto *imm = e.as<ir::IntImm>()) {
      terms.constant += coefficient * uint64_t(imm->value);
      return;
    }
    if (auto *var = e.as<ir::Var>()) {
      const VarInfo *info = lookup(var);
      if (info && info->kind == VarKind::Int) {
        for (auto &term : terms.slots)
          if (term.first == info->slot) {
            term.second += coefficient;
            return;
          }
        terms.slots.emplace_back(info->slot, coefficient);
        return;
      }
    }
    if (auto *binary = e.as<ir::BinaryExpr>()) {
      switch (e->kind()) {
      case NodeKind::Add:
        collect(binary->a, coefficient);
        collect(binary->b, coefficient);
        return;
      case NodeKind::Sub:
        collect(binary->a, coefficient);
        collect(binary->b, 0 - coefficient);
        return;
      case NodeKind::Mul:
        if (auto *imm = binary->b.as<ir::IntImm>()) return collect(binary->a, coefficient * uint64_t(imm->value));
        if (auto *imm = binary->a.as<ir::IntImm>()) return collect(binary->b, coefficient * uint64_t(imm->value));
        break;
      default:
        break;
      }
    }
    terms.exprs.emplace_back(compileInt(e), coefficient);
  };
  collect(ir::Expr(&root), 1);
  return terms;
}

IntPtr FunctionCompiler::compileAffine(const ir::BinaryExpr &root) {
  IntType type = IntType::of(root.dtype);
  // A product of two non-constants is not affine: a plain multiply node.
  if (root.kind() == NodeKind::Mul && !root.a.isa<ir::IntImm>() && !root.b.isa<ir::IntImm>())
    return withWrap(type, [&](auto wrap) -> IntPtr {
      return std::make_unique<IntBinary<OpMul, decltype(wrap)>>(compileInt(root.a), compileInt(root.b), wrap);
    });
  AffineTerms terms = collectAffine(root);
  if (terms.exprs.empty() && terms.slots.empty()) return std::make_unique<IntConst>(type.wrap(int64_t(terms.constant)));
  if (terms.exprs.empty() && terms.slots.size() == 1 && terms.slots[0].second == 1 && terms.constant == 0)
    return std::make_unique<IntSlot>(terms.slots[0].first);
  // a + b or a - b of two non-variables (e.g. an accumulation): one binary node.
  if (terms.slots.empty() && terms.constant == 0 && terms.exprs.size() == 2 && terms.exprs[0].second == 1 &&
      (terms.exprs[1].second == 1 || terms.exprs[1].second == uint64_t(-1)))
    return withWrap(type, [&](auto wrap) -> IntPtr {
      IntPtr a = std::move(terms.exprs[0].first), b = std::move(terms.exprs[1].first);
      if (terms.exprs[1].second == 1)
        return std::make_unique<IntBinary<OpAdd, decltype(wrap)>>(std::move(a), std::move(b), wrap);
      return std::make_unique<IntBinary<OpSub, decltype(wrap)>>(std::move(a), std::move(b), wrap);
    });
  return withWrap(type, [&](auto wrap) -> IntPtr {
    auto node = std::make_unique<IntAffine<decltype(wrap)>>();
    node->wrap = wrap;
    node->sum.constant = terms.constant;
    for (auto &term : terms.slots) {
      if (node->sum.count < AffineSum::kMaxTerms) {
        node->sum.slots[node->sum.count] = term.first;
        node->sum.coefficients[node->sum.count++] = term.second;
      } else {
        node->exprTerms.push_back({std::make_unique<IntSlot>(term.first), term.second});
      }
    }
    for (auto &term : terms.exprs) node->exprTerms.push_back({std::move(term.first), term.second});
    return node;
  });
}

IntPtr FunctionCompiler::compileComparison(const ir::BinaryExpr &op) {
  DataType operand = op.a->dtype;
  if (kindOf(operand) == VarKind::Float) {
    FloatPtr a = compileFloat(op.a), b = compileFloat(op.b);
    switch (op.kind()) {
    case NodeKind::EQ: return std::make_unique<FloatCompare<CmpEQ>>(std::move(a), std::move(b));
    case NodeKind::NE: return std::make_unique<FloatCompare<CmpNE>>(std::move(a), std::move(b));
    case NodeKind::LT: return std::make_unique<FloatCompare<CmpLT>>(std::move(a), std::move(b));
    case NodeKind::LE: return std::make_unique<FloatCompare<CmpLE>>(std::move(a), std::move(b));
    case NodeKind::GT: return std::make_unique<FloatCompare<CmpGT>>(std::move(a), std::move(b));
    default: return std::make_unique<FloatCompare<CmpGE>>(std::move(a), std::move(b));
    }
  }
  if (kindOf(operand) != VarKind::Int) {
    fail(op, "comparison of " + operand.str() + " values is not supported by the interpreter");
    return std::make_unique<IntConst>(0);
  }
  bool isUnsigned64 = IntType::of(operand).isUInt64();
  IntPtr a = compileInt(op.a), b = compileInt(op.b);
  switch (op.kind()) {
  case NodeKind::EQ: return makeIntCompare<CmpEQ>(isUnsigned64, std::move(a), std::move(b));
  case NodeKind::NE: return makeIntCompare<CmpNE>(isUnsigned64, std::move(a), std::move(b));
  case NodeKind::LT: return makeIntCompare<CmpLT>(isUnsigned64, std::move(a), std::move(b));
  case NodeKind::LE: return makeIntCompare<CmpLE>(isUnsigned64, std::move(a), std::move(b));
  case NodeKind::GT: return makeIntCompare<CmpGT>(isUnsigned64, std::move(a), std::move(b));
  default: return makeIntCompare<CmpGE>(isUnsigned64, std::move(a), std::move(b));
  }
}

IntPtr FunctionCompiler::compileIntCast(const ir::Cast &cast) {
  IntType target = IntType::of(cast.dtype);
  DataType from = cast.value->dtype;
  switch (kindOf(from)) {
  case VarKind::Int: {
    IntType source = IntType::of(from);
    if (representable(source, target)) return compileInt(cast.value);
    if (target.isBool)
      return makeIntCompare<CmpNE>(false, compileInt(cast.value), std::make_unique<IntConst>(0));
    return withWrap(target, [&](auto wrap) -> IntPtr {
      return std::make_unique<IntWrap<decltype(wrap)>>(compileInt(cast.value), wrap);
    });
  }
  case VarKind::Float: {
    auto node = std::make_unique<IntFromFloat>();
    node->type = target;
    node->a = compileFloat(cast.value);
    node->loc = locOf(cast);
    return node;
  }
  default:
    fail(cast, "cannot cast a " + from.str() + " value to " + cast.dtype.str());
    return std::make_unique<IntConst>(0);
  }
}

IntPtr FunctionCompiler::compileIntCall(const ir::Call &call) {
  IntType type = call.dtype.isVoid() ? IntType{} : IntType::of(call.dtype);
  const std::string &op = call.op;
  auto needArgs = [&](size_t count) { return checkArity(call, count); };
  if (op == "tir.if_then_else") {
    if (!needArgs(3)) return std::make_unique<IntConst>(0);
    return compileSelect<IntSelect>(call.args[0], call.args[1], call.args[2], true, &FunctionCompiler::compileInt);
  }
  // T.assume(cond) is a fact for the compiler to use, not a check: true, its operand unevaluated.
  if (op == "tir.assume") {
    if (!needArgs(1)) return std::make_unique<IntConst>(0);
    return std::make_unique<IntConst>(1);
  }
  if (op == "tir.shift_right" || op == "tir.shift_left") {
    if (!needArgs(2)) return std::make_unique<IntConst>(0);
    auto node = std::make_unique<IntShift>();
    node->left = op == "tir.shift_left";
    node->type = type;
    node->a = compileInt(call.args[0]);
    node->b = compileInt(call.args[1]);
    node->loc = locOf(call);
    return node;
  }
  if (op == "tir.bitwise_and" || op == "tir.bitwise_or" || op == "tir.bitwise_xor") {
    if (!needArgs(2)) return std::make_unique<IntConst>(0);
    // Bitwise operations of normalised values are normalised: no wrapping needed.
    IntPtr a = compileInt(call.args[0]), b = compileInt(call.args[1]);
    if (op == "tir.bitwise_and") return std::make_unique<IntBinary<OpAnd, WrapInt64>>(std::move(a), std::move(b), WrapInt64{});
    if (op == "tir.bitwise_or") return std::make_unique<IntBinary<OpOr, WrapInt64>>(std::move(a), std::move(b), WrapInt64{});
    return std::make_unique<IntBinary<OpXor, WrapInt64>>(std::move(a), std::move(b), WrapInt64{});
  }
  if (op == "tir.bitwise_not") {
    if (!needArgs(1)) return std::make_unique<IntConst>(0);
    auto node = std::make_unique<IntNot>();
    node->type = type;
    node->a = compileInt(call.args[0]);
    return node;
  }
  if (op == "tir.abs") {
    if (!needArgs(1)) return std::make_unique<IntConst>(0);
    auto node = std::make_unique<IntSelect>();
    node->lazy = true;
    node->condition = makeIntCompare<CmpLT>(false, compileInt(call.args[0]), std::make_unique<IntConst>(0));
    node->onTrue = withWrap(type, [&](auto wrap) -> IntPtr {
      return std::make_unique<IntBinary<OpSub, decltype(wrap)>>(std::make_unique<IntConst>(0), compileInt(call.args[0]), wrap);
    });
    node->onFalse = compileInt(call.args[0]);
    return node;
  }
  if (op == "tir.tvm_thread_context" || op == "tir.likely") {
    if (!needArgs(1)) return std::make_unique<IntConst>(0);
    return compileInt(call.args[0]);
  }
  if (auto external = compileExternCall(call)) {
    auto node = std::make_unique<IntCall>();
    node->call = std::move(*external);
    node->type = type;
    return node;
  }
  fail(call, "unknown intrinsic '" + op + "' (not built in and not registered)");
  return std::make_unique<IntConst>(0);
}

std::optional<ExternCall> FunctionCompiler::compileExternCall(const ir::Call &call) {
  std::string name;
  size_t first = 0;
  if (call.op == "tir.call_extern" || call.op == "tir.call_pure_extern") {
    auto *callee = call.args.empty() ? nullptr : call.args[0].as<ir::StringImm>();
    if (!callee) {
      fail(call, "'" + call.op + "' needs the callee's name as its first argument");
      return std::nullopt;
    }
    name = callee->value;
    first = 1;
  } else {
    name = call.op;
  }
  const ExternEntry *entry = registry_.find(name);
  if (!entry) {
    if (first == 1) fail(call, "call to unregistered extern function '" + name + "'");
    return std::nullopt;
  }
  size_t count = call.args.size() - first;
  if (entry->arity >= 0 && count != size_t(entry->arity)) {
    fail(call, "'" + name + "' takes " + llvm::Twine(entry->arity) + " arguments, got " + llvm::Twine(count));
    return std::nullopt;
  }
  usesDeviceMemory_ |= entry->usesDeviceMemory;
  ExternCall external;
  external.entry = entry;
  external.name = name;
  external.returnType = call.dtype;
  external.loc = locOf(call);
  for (size_t i = first; i < call.args.size(); ++i) external.arguments.push_back(compileArgument(call.args[i]));
  external.scratch.resize(count);
  return external;
}

bool FunctionCompiler::checkArity(const ir::Call &call, size_t count) {
  if (call.args.size() == count) return true;
  fail(call, "'" + call.op + "' takes " + llvm::Twine(count) + " arguments, got " + llvm::Twine(call.args.size()));
  return false;
}

ArgumentExpr FunctionCompiler::compileArgument(const ir::Expr &expr) {
  ArgumentExpr argument;
  if (auto *text = expr.as<ir::StringImm>()) {
    argument.isString = true;
    argument.stringValue = text->value;
    return argument;
  }
  switch (kindOf(expr->dtype)) {
  case VarKind::Int: argument.intValue = compileInt(expr); break;
  case VarKind::Float: argument.floatValue = compileFloat(expr); break;
  default: argument.handleValue = compileHandle(expr); break;
  }
  return argument;
}

// ---- floats ---------------------------------------------------------------------------------

FloatPtr FunctionCompiler::compileFloat(const ir::Expr &expr) {
  const ir::ExprNode &e = *expr;
  if (!checkScalar(e)) return std::make_unique<FloatConst>(0);
  if (kindOf(e.dtype) != VarKind::Float) {
    fail(e, "expected a floating-point expression, found one of type " + e.dtype.str());
    return std::make_unique<FloatConst>(0);
  }
  FloatWidth width = floatWidthOf(e.dtype);
  switch (e.kind()) {
  case NodeKind::FloatImm:
    return std::make_unique<FloatConst>(roundToWidth(static_cast<const ir::FloatImm &>(e).value, width));
  case NodeKind::IntImm:  // a typed integer literal used as a float
    return std::make_unique<FloatConst>(roundToWidth(double(static_cast<const ir::IntImm &>(e).value), width));
  case NodeKind::Var: {
    auto &var = static_cast<const ir::Var &>(e);
    const VarInfo *info = lookup(&var);
    if (!info) return std::make_unique<UnboundFloatVar>(var.name, stmtLoc_);
    if (info->kind != VarKind::Float) {
      fail(e, "variable '" + var.name + "' is not a floating-point value");
      return std::make_unique<FloatConst>(0);
    }
    return std::make_unique<FloatSlot>(info->slot);
  }
  case NodeKind::Cast: {
    auto &cast = static_cast<const ir::Cast &>(e);
    DataType from = cast.value->dtype;
    if (kindOf(from) == VarKind::Int) {
      auto node = std::make_unique<FloatFromInt>();
      node->width = width;
      node->fromUInt64 = IntType::of(from).isUInt64();
      node->a = compileInt(cast.value);
      return node;
    }
    if (kindOf(from) == VarKind::Float) {
      if (from.bits() <= e.dtype.bits()) return compileFloat(cast.value);  // widening is exact
      auto node = std::make_unique<FloatRound>();
      node->width = width;
      node->a = compileFloat(cast.value);
      return node;
    }
    fail(e, "cannot cast a " + from.str() + " value to " + e.dtype.str());
    return std::make_unique<FloatConst>(0);
  }
  case NodeKind::Select: {
    auto &select = static_cast<const ir::Select &>(e);
    return compileSelect<FloatSelect>(select.condition, select.trueValue, select.falseValue, false,
                                      &FunctionCompiler::compileFloat);
  }
  case NodeKind::BufferLoad: {
    auto &load = static_cast<const ir::BufferLoad &>(e);
    BufferAccess access = compileAccess(*load.buffer, load.indices, e);
    return forFloatElement(load.buffer->dtype, [&](auto tag) -> FloatPtr {
      auto node = std::make_unique<FloatLoad<decltype(tag)>>();
      node->access = std::move(access);
      return node;
    });
  }
  case NodeKind::Call: return compileFloatCall(static_cast<const ir::Call &>(e));
  case NodeKind::Let: {
    auto &let = static_cast<const ir::Let &>(e);
    auto node = std::make_unique<FloatLet>();
    int slot = newSlot();
    node->binding = compileAssign(slot, let.value);
    auto guard = bind(let.var.get(), {slot, kindOf(let.var->dtype), let.var->dtype});
    node->body = compileFloat(let.body);
    return node;
  }
  default:
    break;
  }
  if (auto *binary = expr.as<ir::BinaryExpr>()) {
    FloatPtr a = compileFloat(binary->a), b = compileFloat(binary->b);
    switch (e.kind()) {
    case NodeKind::Add: return makeFloatBinary<FAdd>(width, std::move(a), std::move(b));
    case NodeKind::Sub: return makeFloatBinary<FSub>(width, std::move(a), std::move(b));
    case NodeKind::Mul: return makeFloatBinary<FMul>(width, std::move(a), std::move(b));
    case NodeKind::Div: return makeFloatBinary<FDiv>(width, std::move(a), std::move(b));
    case NodeKind::Mod: return makeFloatBinary<FMod>(width, std::move(a), std::move(b));
    case NodeKind::FloorDiv: return makeFloatBinary<FFloorDiv>(width, std::move(a), std::move(b));
    case NodeKind::FloorMod: return makeFloatBinary<FFloorMod>(width, std::move(a), std::move(b));
    case NodeKind::Min: return makeFloatBinary<FMin>(width, std::move(a), std::move(b));
    case NodeKind::Max: return makeFloatBinary<FMax>(width, std::move(a), std::move(b));
    default: break;
    }
  }
  fail(e, llvm::Twine(ir::nodeKindName(e.kind())) + " of type " + e.dtype.str() +
              " is not supported by the interpreter");
  return std::make_unique<FloatConst>(0);
}

FloatPtr FunctionCompiler::compileFloatCall(const ir::Call &call) {
  FloatWidth width = floatWidthOf(call.dtype);
  const std::string &op = call.op;
  auto needArgs = [&](size_t count) { return checkArity(call, count); };
  if (op == "tir.if_then_else") {
    if (!needArgs(3)) return std::make_unique<FloatConst>(0);
    return compileSelect<FloatSelect>(call.args[0], call.args[1], call.args[2], true, &FunctionCompiler::compileFloat);
  }
  if (op == "tir.tvm_thread_context" || op == "tir.likely") {
    if (!needArgs(1)) return std::make_unique<FloatConst>(0);
    return compileFloat(call.args[0]);
  }
  if (op == "tir.pow" || op == "tir.fmod") {
    if (!needArgs(2)) return std::make_unique<FloatConst>(0);
    FloatPtr a = compileFloat(call.args[0]), b = compileFloat(call.args[1]);
    return op == "tir.pow" ? makeFloatBinary<FPow>(width, std::move(a), std::move(b))
                           : makeFloatBinary<FMod>(width, std::move(a), std::move(b));
  }
  for (const UnaryMath &math : kUnaryMath) {
    if (op != math.op) continue;
    if (!needArgs(1)) return std::make_unique<FloatConst>(0);
    auto node = std::make_unique<FloatUnaryMath>();
    node->function = math.function;
    node->width = width;
    node->a = compileFloat(call.args[0]);
    return node;
  }
  if (auto external = compileExternCall(call)) {
    auto node = std::make_unique<FloatCall>();
    node->call = std::move(*external);
    node->width = width;
    return node;
  }
  fail(call, "unknown intrinsic '" + op + "' (not built in and not registered)");
  return std::make_unique<FloatConst>(0);
}

// ---- handles --------------------------------------------------------------------------------

HandlePtr FunctionCompiler::compileHandle(const ir::Expr &expr) {
  const ir::ExprNode &e = *expr;
  if (auto *var = expr.as<ir::Var>()) {
    const VarInfo *info = lookup(var);
    if (!info) return std::make_unique<UnboundHandleVar>(var->name, stmtLoc_);
    if (info->kind == VarKind::Storage) return std::make_unique<StorageHandle>(info->slot);
    if (info->kind == VarKind::RawHandle) return std::make_unique<RawHandleSlot>(info->slot);
    fail(e, "variable '" + var->name + "' is not a handle");
    return std::make_unique<HandleConst>(nullptr);
  }
  if (auto *text = expr.as<ir::StringImm>())  // the IR outlives the compiled function's runs
    return std::make_unique<HandleConst>(const_cast<char *>(text->value.c_str()));
  if (auto *imm = expr.as<ir::IntImm>())
    return std::make_unique<HandleConst>(reinterpret_cast<void *>(intptr_t(imm->value)));
  if (auto *call = expr.as<ir::Call>()) return compileHandleCall(*call);
  fail(e, llvm::Twine(ir::nodeKindName(e.kind())) + " of type " + e.dtype.str() +
              " is not supported by the interpreter");
  return std::make_unique<HandleConst>(nullptr);
}

HandlePtr FunctionCompiler::compileHandleCall(const ir::Call &call) {
  if ((call.op == "tir.tvm_thread_context" || call.op == "tir.likely") && call.args.size() == 1)
    return compileHandle(call.args[0]);
  if (call.op == "tir.if_then_else" && call.args.size() == 3) {
    return compileSelect<HandleSelect>(call.args[0], call.args[1], call.args[2], true,
                                       &FunctionCompiler::compileHandle);
  }
  if (call.op == "tir.tvm_access_ptr") return compileAccessPtr(call);
  if (call.op == "tir.address_of") {
    auto *load = call.args.size() == 1 ? call.args[0].as<ir::BufferLoad>() : nullptr;
    if (!load) {
      fail(call, "'tir.address_of' takes one buffer element, as in T.address_of(A[i])");
      return std::make_unique<HandleConst>(nullptr);
    }
    auto node = std::make_unique<ElementAddress>();
    node->access = compileAccess(*load->buffer, load->indices, call);
    return node;
  }
  if (call.op == "tir.tvm_thread_allreduce") {
    // Launched threads run one after another here, so there is no moment at which all of
    // them hold their values to combine.
    fail(call, "T.tvm_thread_allreduce (a reduction across threads) is not supported by the interpreter");
    return std::make_unique<HandleConst>(nullptr);
  }
  if (auto external = compileExternCall(call)) {
    auto node = std::make_unique<HandleCall>();
    node->call = std::move(*external);
    return node;
  }
  fail(call, "unknown intrinsic '" + call.op + "' (not built in and not registered)");
  return std::make_unique<HandleConst>(nullptr);
}

HandlePtr FunctionCompiler::compileAccessPtr(const ir::Call &call) {
  auto *annotation = call.args.size() == 5 ? call.args[0].as<ir::Call>() : nullptr;
  auto *data = call.args.size() == 5 ? call.args[1].as<ir::Var>() : nullptr;
  const VarInfo *info = data ? lookup(data) : nullptr;
  if (!annotation || annotation->op != "tir.type_annotation" || !data) {
    fail(call, "'tir.tvm_access_ptr' takes (T.type_annotation(dtype), data, offset, extent, mask)");
    return std::make_unique<HandleConst>(nullptr);
  }
  if (!info || info->kind != VarKind::Storage) {
    fail(call, "'" + data->name + "' is not the data of an allocation here");
    return std::make_unique<HandleConst>(nullptr);
  }
  auto node = std::make_unique<AccessPtr>();
  node->dataSlot = info->slot;
  node->elementBytes = std::max(1, annotation->dtype.bytes());
  node->offset = compileInt(call.args[2]);
  node->extent = compileInt(call.args[3]);
  node->bufferName = data->name;
  node->loc = locOf(call);
  return node;
}

}  // namespace vtac::backend::interp
