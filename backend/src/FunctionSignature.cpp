#include "vtac/backend/FunctionSignature.h"

#include <functional>
#include <limits>
#include <optional>

#include "vtac/backend/Diagnostic.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Visitor.h"

namespace vtac::backend {

namespace {

// A shape expression as the user wrote it: "16", "n", or "?" for anything compound.
std::string describeDim(const ir::Expr &dim) {
  if (auto *imm = dim.as<ir::IntImm>()) return std::to_string(imm->value);
  if (auto *var = dim.as<ir::Var>()) return var->name;
  return "?";
}

std::string describeShape(const ir::Buffer &buffer) {
  std::string text = "(";
  for (size_t d = 0; d < buffer.shape.size(); ++d) text += (d ? ", " : "") + describeDim(buffer.shape[d]);
  if (buffer.shape.size() == 1) text += ",";
  return text + ")";
}

// Value of a size expression built from constants and bound size variables.
std::optional<int64_t> evalSize(const ir::Expr &expr, const SizeBindings &sizes) {
  if (auto *imm = expr.as<ir::IntImm>()) return imm->value;
  if (auto *var = expr.as<ir::Var>()) {
    auto it = sizes.find(var);
    if (it == sizes.end()) return std::nullopt;
    return it->second;
  }
  if (auto *cast = expr.as<ir::Cast>()) return evalSize(cast->value, sizes);
  auto *binary = expr.as<ir::BinaryExpr>();
  if (!binary) return std::nullopt;
  std::optional<int64_t> a = evalSize(binary->a, sizes), b = evalSize(binary->b, sizes);
  if (!a || !b) return std::nullopt;
  switch (expr->kind()) {
  case ir::NodeKind::Add: return *a + *b;
  case ir::NodeKind::Sub: return *a - *b;
  case ir::NodeKind::Mul: return *a * *b;
  case ir::NodeKind::Min: return std::min(*a, *b);
  case ir::NodeKind::Max: return std::max(*a, *b);
  case ir::NodeKind::Div:
  case ir::NodeKind::FloorDiv:
    if (*b == 0) return std::nullopt;
    return *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)) && expr->kind() == ir::NodeKind::FloorDiv);
  default: return std::nullopt;
  }
}

// The variables of a buffer's layout: a caller's array determines those standing alone as a
// dimension, stride or offset; one only a compound dimension names (`n` of `n * 32`) is given
// with --size.
void forEachLayoutVar(const ir::Buffer &buffer, const std::function<void(const ir::Var *)> &fn) {
  auto visit = [&](const ir::Expr &e) {
    if (e) ir::preOrderVisit(e, [&](const ir::Node &n) {
      if (auto *var = n.as<ir::Var>()) fn(var);
    });
  };
  for (const ir::Expr &dim : buffer.shape) visit(dim);
  for (const ir::Expr &stride : buffer.strides) visit(stride);
  visit(buffer.elemOffset);
}

}  // namespace

llvm::Expected<FunctionSignature> FunctionSignature::of(ir::PrimFuncRef function, llvm::StringRef name) {
  FunctionSignature signature;
  signature.function_ = function;
  signature.name_ = name.str();
  for (const ir::VarRef &param : function->params) {
    ir::BufferRef buffer = function->bufferOf(param);
    if (!buffer && param->dtype.isHandle())
      return diagnosticError(param->loc(), "parameter '" + param->name +
                                               "' is a handle without a buffer (T.match_buffer) to give it a shape");
    signature.params_.push_back({param->name, buffer ? buffer->dtype : param->dtype, bool(buffer), buffer});
  }
  // The layout variables of the buffers that no scalar parameter binds, each once.
  for (const ParamInfo &param : signature.params_) {
    if (!param.isBuffer) continue;
    forEachLayoutVar(*param.buffer, [&](const ir::Var *var) {
      bool isScalarParam = llvm::any_of(function->params, [&](const ir::VarRef &p) { return p.get() == var; });
      if (!isScalarParam && !llvm::is_contained(signature.sizeVars_, var)) signature.sizeVars_.push_back(var);
    });
  }
  return signature;
}

int FunctionSignature::paramIndex(llvm::StringRef name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return int(i);
  return -1;
}

llvm::Expected<SizeBindings> FunctionSignature::bindSizes(llvm::ArrayRef<const Tensor *> arguments,
                                                         const llvm::StringMap<int64_t> &namedSizes) const {
  SizeBindings sizes;
  for (const ir::Var *var : sizeVars_) {
    auto it = namedSizes.find(var->name);
    if (it != namedSizes.end()) sizes[var] = it->second;
  }
  // A size the function does not have is most likely a typo; ignoring it would hide that.
  for (const auto &named : namedSizes) {
    bool known = llvm::any_of(sizeVars_, [&](const ir::Var *var) { return var->name == named.getKey(); });
    if (known) continue;
    std::string available;
    for (const ir::Var *var : sizeVars_) available += (available.empty() ? "" : ", ") + var->name;
    return diagnosticError("'" + name_ + "' has no symbolic size '" + named.getKey() + "' (" +
                           (available.empty() ? std::string("it has none") : "its sizes: " + available) + ")");
  }
  for (size_t i = 0; i < params_.size() && i < arguments.size(); ++i) {
    const ParamInfo &param = params_[i];
    const Tensor *tensor = arguments[i];
    if (!tensor) continue;
    if (tensor->dtype() != param.dtype)
      return diagnosticError("parameter '" + param.name + "' has element type " + param.dtype.str() +
                             ", the input has " + tensor->dtype().str());
    if (!param.isBuffer) {
      if (!tensor->shape().empty())
        return diagnosticError("parameter '" + param.name + "' is a scalar, the input has shape " +
                               formatShape(tensor->shape()));
      if (param.dtype.isIntOrUInt()) sizes[function_->params[i].get()] = tensor->intAt(0);
      continue;
    }
    const ir::Buffer &buffer = *param.buffer;
    auto mismatch = [&]() {
      return diagnosticError("parameter '" + param.name + "' has shape " + describeShape(buffer) +
                             ", the input has shape " + formatShape(tensor->shape()));
    };
    llvm::ArrayRef<int64_t> shape = tensor->shape();
    if (shape.size() != buffer.shape.size()) return mismatch();
    // Binds a layout variable to `actual`, or checks it against its value so far.
    auto bindOrCheck = [&](const ir::Expr &expr, int64_t actual, const llvm::Twine &what) -> llvm::Error {
      if (auto *imm = expr.as<ir::IntImm>()) {
        if (imm->value == actual) return llvm::Error::success();
        return diagnosticError("parameter '" + param.name + "': " + what + " must be " +
                               llvm::Twine(imm->value) + ", the input has " + llvm::Twine(actual));
      }
      auto *var = expr.as<ir::Var>();
      if (!var) return llvm::Error::success();  // compound: checked once everything is bound
      auto [it, inserted] = sizes.try_emplace(var, actual);
      if (inserted || it->second == actual) return llvm::Error::success();
      return diagnosticError("parameter '" + param.name + "': " + what + " is '" + var->name + "' = " +
                             llvm::Twine(it->second) + " elsewhere, the input has " + llvm::Twine(actual));
    };
    for (size_t d = 0; d < shape.size(); ++d) {
      if (buffer.shape[d].isa<ir::IntImm>() && buffer.shape[d].as<ir::IntImm>()->value != shape[d]) return mismatch();
      if (llvm::Error error = bindOrCheck(buffer.shape[d], shape[d], "dimension " + llvm::Twine(d)))
        return error;
    }
    if (!buffer.strides.empty()) {
      int64_t compact = 1;
      for (size_t d = shape.size(); d-- > 0;) {
        if (llvm::Error error = bindOrCheck(buffer.strides[d], compact,
                                            "the stride of dimension " + llvm::Twine(d) +
                                                " (inputs are compact row-major arrays)"))
          return error;
        compact *= shape[d];
      }
    }
    if (buffer.elemOffset)
      if (llvm::Error error = bindOrCheck(buffer.elemOffset, 0, "the element offset"))
        return error;
  }
  // A compound dimension `n * scale + offset` whose variable no input gave alone determines it.
  for (size_t i = 0; i < params_.size() && i < arguments.size(); ++i) {
    if (!arguments[i] || !params_[i].isBuffer) continue;
    const ir::Buffer &buffer = *params_[i].buffer;
    for (size_t d = 0; d < buffer.shape.size(); ++d) {
      std::optional<ir::ScaledVar> dim = ir::asScaledVar(buffer.shape[d]);
      if (!dim || sizes.count(dim->var)) continue;
      __int128 scaled = __int128(arguments[i]->shape()[d]) - dim->offset;
      __int128 value = scaled / dim->scale;
      if (scaled % dim->scale != 0 || value < std::numeric_limits<int64_t>::min() ||
          value > std::numeric_limits<int64_t>::max() || !ir::fitsIntType(int64_t(value), dim->var->dtype))
        return diagnosticError("parameter '" + params_[i].name + "' has shape " + describeShape(buffer) +
                               ", the input has shape " + formatShape(arguments[i]->shape()) +
                               ", which gives no integer '" + dim->var->name + "'");
      sizes[dim->var] = int64_t(value);
    }
  }
  // Compound dimensions, now that every variable an input determines is known.
  for (size_t i = 0; i < params_.size() && i < arguments.size(); ++i) {
    if (!arguments[i] || !params_[i].isBuffer) continue;
    const ir::Buffer &buffer = *params_[i].buffer;
    for (size_t d = 0; d < buffer.shape.size(); ++d) {
      std::optional<int64_t> expected = evalSize(buffer.shape[d], sizes);
      if (expected && *expected != arguments[i]->shape()[d])
        return diagnosticError("parameter '" + params_[i].name + "' has shape " + describeShape(buffer) +
                               ", the input has shape " + formatShape(arguments[i]->shape()));
    }
  }
  return sizes;
}

llvm::Expected<std::vector<int64_t>> FunctionSignature::shapeOf(size_t index, const SizeBindings &sizes) const {
  const ParamInfo &param = params_[index];
  std::vector<int64_t> shape;
  if (!param.isBuffer) return shape;
  for (const ir::Expr &dim : param.buffer->shape) {
    std::optional<int64_t> extent = evalSize(dim, sizes);
    if (!extent)
      return diagnosticError("parameter '" + param.name + "' has shape " + describeShape(*param.buffer) +
                             " and the size '" + describeDim(dim) + "' is not known");
    if (*extent < 0)
      return diagnosticError("parameter '" + param.name + "' would have the negative extent " +
                             llvm::Twine(*extent));
    shape.push_back(*extent);
  }
  return shape;
}

llvm::Expected<Tensor> FunctionSignature::allocateArgument(size_t index, const SizeBindings &sizes) const {
  const ParamInfo &param = params_[index];
  auto shape = shapeOf(index, sizes);
  if (!shape)
    return diagnosticError(param.buffer->loc(), errorMessage(shape.takeError()) +
                                                    "; give an input that determines it, or --size NAME=VALUE");
  if (auto bytes = checkedByteSize(*shape, param.dtype.bytes()); !bytes)
    return diagnosticError(param.buffer->loc(), "cannot allocate parameter '" + param.name +
                                                    "': " + errorMessage(bytes.takeError()));
  return Tensor(param.dtype, std::move(*shape));
}

}  // namespace vtac::backend
