// The window operators' layouts, struct info inference and printing, after TVM's
// src/relax/op/nn/convolution.cc and pooling.cc: R.nn.conv2d slides a (dilated) kernel over
// the padded data and sums over its input channels (those of its group), the pools take the
// maximum or average of each window, the adaptive pool splits the input into a given number
// of windows. Shapes are computed in the canonical order N, C, H, W (O, I, H, W for the
// kernel) and read from / written to the dimensions the layouts name.
#include <algorithm>
#include <functional>

#include <llvm/ADT/StringExtras.h>

#include "vtac/ir/Arith.h"
#include "vtac/ir/RelaxOperators.h"

namespace vtac::ir::relax {

namespace {

Expr int64Imm(int64_t value) { return intImm(value, DataType::int64()); }

// The position of each of `axes` ("NCHW") in `layout` ("NHWC" -> 0, 3, 1, 2); -1 where absent.
std::vector<int> positionsOf(llvm::StringRef layout, llvm::StringRef axes) {
  std::vector<std::string> parsed = layoutAxes(layout).value_or(std::vector<std::string>{});
  std::vector<int> positions;
  for (char axis : axes) {
    auto it = std::find(parsed.begin(), parsed.end(), std::string(1, axis));
    positions.push_back(it == parsed.end() ? -1 : int(it - parsed.begin()));
  }
  return positions;
}

// A sum as its terms (subtracted?, term) and its constant.
struct SignedTerms {
  std::vector<std::pair<bool, Expr>> terms;
  int64_t constant = 0;
};

SignedTerms flattenSum(const Expr &sum) {
  SignedTerms flat;
  std::function<void(const Expr &, bool)> visit = [&](const Expr &e, bool negated) {
    if (const auto *imm = e.as<IntImm>()) {
      flat.constant += negated ? -imm->value : imm->value;
    } else if (e->kind() == NodeKind::Add || e->kind() == NodeKind::Sub) {
      const auto &node = static_cast<const BinaryExpr &>(*e);
      visit(node.a, negated);
      visit(node.b, e->kind() == NodeKind::Sub ? !negated : negated);
    } else {
      flat.terms.emplace_back(negated, e);
    }
  };
  visit(sum, false);
  return flat;
}

// A sum built in the order TVM's canonical simplifier prints it: the terms added, then a
// positive constant, then the terms subtracted, then a negative constant (`h + 1 - kh`).
Expr canonicalSum(const SignedTerms &flat) {
  Expr result;
  auto add = [&](Expr term, bool subtracted) {
    if (!result) result = subtracted ? binary(NodeKind::Sub, int64Imm(0), term) : term;
    else result = binary(subtracted ? NodeKind::Sub : NodeKind::Add, result, term);
  };
  for (const auto &[subtracted, term] : flat.terms)
    if (!subtracted) add(term, false);
  if (flat.constant > 0) add(int64Imm(flat.constant), false);
  for (const auto &[subtracted, term] : flat.terms)
    if (subtracted) add(term, true);
  if (flat.constant < 0) add(int64Imm(-flat.constant), true);
  return result ? result : int64Imm(0);
}

std::string printInts(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string quoted(const std::string &text) { return "\"" + text + "\""; }

// The size of a window operator's output along one spatial dimension, as TVM's inference
// computes and simplifies it.
Expr windowOutputSize(const Expr &in, const Expr &window, int64_t padding, int64_t dilation, int64_t stride,
                      bool ceilMode) {
  int64_t rounding = ceilMode ? stride - 1 : 0;
  const auto *inSize = in.as<IntImm>(), *windowSize = window.as<IntImm>();
  if (inSize && windowSize) {
    int64_t numerator = inSize->value + padding - dilation * (windowSize->value - 1) - 1 + rounding;
    int64_t quotient = numerator / stride - (numerator % stride != 0 && numerator < 0);
    return int64Imm(quotient + 1);
  }
  SignedTerms numerator = flattenSum(
      simplify(in + int64Imm(padding) - int64Imm(dilation) * (window - int64Imm(1)) - int64Imm(1 - rounding)));
  if (stride == 1) {
    numerator.constant += 1;
    return canonicalSum(numerator);
  }
  // floordiv(x + c, s) + 1 with s dividing c is floordiv(x, s) + c / s + 1, as TVM simplifies it.
  SignedTerms size;
  size.constant = 1;
  if (numerator.constant % stride == 0) {
    size.constant += numerator.constant / stride;
    numerator.constant = 0;
  }
  size.terms.emplace_back(false, floorDivExpr(canonicalSum(numerator), int64Imm(stride)));
  return canonicalSum(size);
}

// Why the window cannot slide along one spatial dimension, or "": the paddings, the dilated
// window or the output size overflow 64-bit integers ("its output height overflows int64"),
// or, for constant sizes, the window is larger than the padded input ("its output height would
// be empty: the window (5 with dilation) is larger than the padded input (4)"). `padding` is
// set to the two paddings' sum.
std::string windowProblem(const char *dimension, const Expr &in, const Expr &window, int64_t padBefore,
                          int64_t padAfter, int64_t dilation, int64_t stride, bool ceilMode, int64_t &padding) {
  std::string overflow = std::string("its output ") + dimension + " overflows int64";
  if (__builtin_add_overflow(padBefore, padAfter, &padding)) return overflow;
  const auto *inSize = in.as<IntImm>(), *windowSize = window.as<IntImm>();
  if (!inSize || !windowSize) return "";
  int64_t dilated, padded, numerator;
  if (__builtin_mul_overflow(dilation, windowSize->value - 1, &dilated) || __builtin_add_overflow(dilated, 1, &dilated) ||
      __builtin_add_overflow(inSize->value, padding, &padded) ||
      __builtin_sub_overflow(padded, dilated, &numerator) ||
      __builtin_add_overflow(numerator, ceilMode ? stride : 1, &numerator))
    return overflow;
  if (dilated <= padded) return "";
  return std::string("its output ") + dimension + " would be empty: the window (" + std::to_string(dilated) +
         (dilation > 1 ? " with dilation" : "") + ") is larger than the padded input (" + std::to_string(padded) + ")";
}

// A conv2d layout as TVM's BijectiveLayout to NCHW (OIHW for the kernel) reads it: for each
// canonical axis, where its primal axis is and, when the layout splits it, where its sub-axis is
// and the sub-axis's factor ("NCHW1n16c": N at 0 with 1n at 4, C at 1 with 16c at 5, H at 2, W at 3).
struct CanonicalLayout {
  struct Axis {
    size_t primal = 0;
    std::optional<size_t> sub;
    int64_t factor = 1;
  };
  size_t rank = 0;
  std::vector<Axis> axes;  // in the canonical order
};

// nullopt when `layout` does not convert to `canonical`: a primal axis missing or not one of
// them, a sub-axis of a primal axis the layout lacks, a factor of 0 or beyond int64.
std::optional<CanonicalLayout> canonicalLayout(llvm::StringRef layout, llvm::StringRef canonical) {
  std::optional<std::vector<std::string>> parsed = layoutAxes(layout);
  if (!parsed) return std::nullopt;
  CanonicalLayout result;
  result.rank = parsed->size();
  result.axes.resize(canonical.size());
  std::vector<bool> seen(canonical.size(), false);
  for (size_t position = 0; position < parsed->size(); ++position) {
    llvm::StringRef axis = (*parsed)[position];
    size_t index = canonical.find(llvm::toUpper(axis.back()));
    if (index == llvm::StringRef::npos) return std::nullopt;
    if (axis.size() == 1) {
      seen[index] = true;
      result.axes[index].primal = position;
      continue;
    }
    int64_t factor;
    if (axis.drop_back().getAsInteger(10, factor) || factor < 1) return std::nullopt;
    result.axes[index].sub = position;
    result.axes[index].factor = factor;
  }
  // (layoutAxes refuses an axis twice, so each canonical axis seen once is all of them)
  if (std::count(seen.begin(), seen.end(), true) != int(canonical.size())) return std::nullopt;
  return result;
}

// `size // factor`, simplified as TVM's analyzer does for a size that a split multiplied
// (`c * 16 // 16` is c).
Expr dividedBy(const Expr &size, int64_t factor) {
  if (size->kind() == NodeKind::Mul)
    if (const auto *scale = static_cast<const BinaryExpr &>(*size).b.as<IntImm>(); scale && scale->value % factor == 0)
      return simplify(static_cast<const BinaryExpr &>(*size).a * int64Imm(scale->value / factor));
  return simplify(floorDivExpr(size, int64Imm(factor)));
}

const char *kCanonicalNames[] = {"batch", "channels", "height", "width"};

std::optional<TensorStructInfo> inferConv2D(const Call &call, const std::vector<TensorStructInfo> &in,
                                            SourceLoc callLoc, RelaxDiagnostic &diagnostic) {
  const auto &attrs = std::get<Conv2DAttrs>(call.attrs);
  const char *names[] = {"data", "weight"};
  const std::string layouts[] = {attrs.dataLayout, attrs.kernelLayout};
  // The parser has checked that the layouts convert (layoutProblem).
  const CanonicalLayout canonicalLayouts[] = {*canonicalLayout(attrs.dataLayout, "NCHW"),
                                              *canonicalLayout(attrs.kernelLayout, "OIHW")};
  const CanonicalLayout out = *canonicalLayout(attrs.outLayout, "NCHW");
  for (size_t i = 0; i < 2; ++i)
    if (in[i].rank() >= 0 && size_t(in[i].rank()) != canonicalLayouts[i].rank) {
      diagnostic = {call.args[i].loc, std::string("R.nn.conv2d needs ") + names[i] + " of rank " +
                                          std::to_string(canonicalLayouts[i].rank) + " (layout " + layouts[i] +
                                          "), got rank " + std::to_string(in[i].rank())};
      return std::nullopt;
    }
  DataType dtype = attrs.outDtype;
  if (dtype.isVoid() && !in[0].dtype.isVoid() && !in[1].dtype.isVoid()) {
    if (in[0].dtype != in[1].dtype) {
      diagnostic = {callLoc, "R.nn.conv2d needs data and weight of one element type unless out_dtype is given, got " +
                                 in[0].dtype.str() + " and " + in[1].dtype.str()};
      return std::nullopt;
    }
    dtype = in[0].dtype;
  }
  if (!in[0].shape || !in[1].shape) return TensorStructInfo{std::nullopt, int(out.rank), dtype, {}};
  // The sizes in NCHW / OIHW: a split axis's primal size times its factor (TVM's ForwardShape),
  // its sub-axis's size the factor when it is constant (TVM checks it).
  std::vector<Expr> canonicalSizes[2];
  for (size_t i = 0; i < 2; ++i)
    for (const CanonicalLayout::Axis &axis : canonicalLayouts[i].axes) {
      Expr size = (*in[i].shape)[axis.primal];
      if (axis.sub) {
        const auto *subSize = (*in[i].shape)[*axis.sub].as<IntImm>();
        if (subSize && subSize->value != axis.factor) {
          diagnostic = {call.args[i].loc, std::string("R.nn.conv2d needs dimension ") + std::to_string(*axis.sub) +
                                              " of the " + names[i] + " (" + (*layoutAxes(layouts[i]))[*axis.sub] +
                                              " in layout " + layouts[i] + ") to be " + std::to_string(axis.factor) +
                                              ", got " + std::to_string(subSize->value)};
          return std::nullopt;
        }
        int64_t product;
        if (const auto *constant = size.as<IntImm>()) {
          if (__builtin_mul_overflow(constant->value, axis.factor, &product)) {
            diagnostic = {call.args[i].loc, std::string("R.nn.conv2d: the ") + names[i] + "'s " +
                                                (i ? "OIHW" : "NCHW") + " size through layout " + layouts[i] +
                                                " overflows int64"};
            return std::nullopt;
          }
          size = int64Imm(product);
        } else {
          size = simplify(size * int64Imm(axis.factor));
        }
      }
      canonicalSizes[i].push_back(size);
    }
  auto dataDim = [&](int axis) { return canonicalSizes[0][size_t(axis)]; };
  auto kernelDim = [&](int axis) { return canonicalSizes[1][size_t(axis)]; };
  const auto *channels = dataDim(1).as<IntImm>(), *kernelChannels = kernelDim(1).as<IntImm>();
  if (channels && kernelChannels && channels->value != kernelChannels->value * attrs.groups) {
    diagnostic = {call.args[1].loc, "R.nn.conv2d needs the data's channels (" + std::to_string(channels->value) +
                                        ") to be the weight's input channels (" + std::to_string(kernelChannels->value) +
                                        ") times groups (" + std::to_string(attrs.groups) + ")"};
    return std::nullopt;
  }
  const auto *filters = kernelDim(0).as<IntImm>();
  if (filters && filters->value % attrs.groups != 0) {
    diagnostic = {call.args[1].loc, "R.nn.conv2d needs groups (" + std::to_string(attrs.groups) +
                                        ") to divide the weight's output channels (" + std::to_string(filters->value) + ")"};
    return std::nullopt;
  }
  const char *dimensions[] = {"height", "width"};
  std::vector<Expr> canonical = {dataDim(0), kernelDim(0)};
  for (int d = 0; d < 2; ++d) {
    int64_t padding;
    std::string problem = windowProblem(dimensions[d], dataDim(2 + d), kernelDim(2 + d), attrs.padding[size_t(d)],
                                        attrs.padding[size_t(d) + 2], attrs.dilation[size_t(d)], attrs.strides[size_t(d)],
                                        false, padding);
    if (!problem.empty()) {
      diagnostic = {callLoc, "R.nn.conv2d: " + problem};
      return std::nullopt;
    }
    canonical.push_back(windowOutputSize(dataDim(2 + d), kernelDim(2 + d), padding, attrs.dilation[size_t(d)],
                                         attrs.strides[size_t(d)], false));
  }
  // The output in its layout: a split axis's size divided by its factor (TVM's BackwardShape,
  // which would floor a constant that does not divide: an error here), the sub-axis the factor.
  std::vector<Expr> shape(out.rank);
  for (size_t axis = 0; axis < 4; ++axis) {
    const CanonicalLayout::Axis &split = out.axes[axis];
    Expr size = canonical[axis];
    if (split.sub) {
      shape[*split.sub] = int64Imm(split.factor);
      if (const auto *constant = size.as<IntImm>()) {
        if (constant->value % split.factor != 0) {
          diagnostic = {callLoc, "R.nn.conv2d: out_layout " + quoted(attrs.outLayout) + " splits the output's " +
                                     kCanonicalNames[axis] + " (" + std::to_string(constant->value) + ") by " +
                                     std::to_string(split.factor) + ", which does not divide " +
                                     (axis == 1 ? "them" : "it")};
          return std::nullopt;
        }
        size = int64Imm(constant->value / split.factor);
      } else {
        size = dividedBy(size, split.factor);
      }
    }
    shape[split.primal] = size;
  }
  return TensorStructInfo::known(std::move(shape), dtype);
}

// The pools: the input's shape with the height and width of the layout replaced.
std::optional<TensorStructInfo> inferPool(const Call &call, const TensorStructInfo &in, SourceLoc callLoc,
                                          RelaxDiagnostic &diagnostic) {
  bool adaptive = std::holds_alternative<AdaptivePool2DAttrs>(call.attrs);
  const std::string &layout =
      adaptive ? std::get<AdaptivePool2DAttrs>(call.attrs).layout : std::get<Pool2DAttrs>(call.attrs).layout;
  int rank = int(layoutAxes(layout)->size());
  if (in.rank() >= 0 && in.rank() != rank) {
    diagnostic = {call.args[0].loc, "R." + call.callee + " needs data of rank " + std::to_string(rank) + " (layout " +
                                        layout + "), got rank " + std::to_string(in.rank())};
    return std::nullopt;
  }
  if (!in.shape) return TensorStructInfo{std::nullopt, rank, in.dtype, {}};
  std::vector<int> spatial = positionsOf(layout, "HW");
  std::vector<Expr> shape = *in.shape;
  for (size_t d = 0; d < 2; ++d) {
    Expr &size = shape[size_t(spatial[d])];
    if (adaptive) {
      const auto &outputSize = std::get<AdaptivePool2DAttrs>(call.attrs).outputSize;
      if (outputSize) size = int64Imm((*outputSize)[d]);
      continue;
    }
    const auto &attrs = std::get<Pool2DAttrs>(call.attrs);
    int64_t padding;
    Expr window = int64Imm(attrs.poolSize[d]);
    std::string problem = windowProblem(d ? "width" : "height", size, window, attrs.padding[d], attrs.padding[d + 2],
                                        attrs.dilation[d], attrs.strides[d], attrs.ceilMode, padding);
    if (!problem.empty()) {
      diagnostic = {callLoc, "R." + call.callee + ": " + problem};
      return std::nullopt;
    }
    size = windowOutputSize(size, window, padding, attrs.dilation[d], attrs.strides[d], attrs.ceilMode);
  }
  return TensorStructInfo::known(std::move(shape), in.dtype);
}

}  // namespace

std::optional<std::vector<std::string>> layoutAxes(llvm::StringRef layout) {
  std::vector<std::string> axes;
  for (size_t i = 0; i < layout.size();) {
    size_t digits = i;
    while (digits < layout.size() && llvm::isDigit(layout[digits])) ++digits;
    char letter = digits < layout.size() ? layout[digits] : '\0';
    bool subordinate = digits > i;
    if (!(subordinate ? llvm::isLower(letter) : llvm::isUpper(letter))) return std::nullopt;
    std::string axis = layout.substr(i, digits + 1 - i).str();
    for (const std::string &seen : axes)
      if (seen.back() == letter) return std::nullopt;
    axes.push_back(axis);
    i = digits + 1;
  }
  return axes;
}

std::string layoutProblem(const Call &call, llvm::StringRef attribute) {
  std::string layout, expected;
  bool supported;
  if (const auto *conv = std::get_if<Conv2DAttrs>(&call.attrs)) {
    // conv2d's layouts convert to NCHW (OIHW): the four primal axes, each maybe split.
    layout = attribute == "data_layout" ? conv->dataLayout : attribute == "kernel_layout" ? conv->kernelLayout : conv->outLayout;
    llvm::StringRef axes = attribute == "kernel_layout" ? "OIHW" : "NCHW";
    supported = canonicalLayout(layout, axes).has_value();
    expected = "an order of " + axes.str() + ", any of them split by a factor, such as " +
               (attribute == "kernel_layout" ? "OIHW16o16i" : "NCHW1n16c");
  } else {
    const auto *pool = std::get_if<Pool2DAttrs>(&call.attrs);
    const auto *adaptive = std::get_if<AdaptivePool2DAttrs>(&call.attrs);
    const std::string &input = pool ? pool->layout : adaptive->layout;
    layout = attribute == "layout" ? input : pool ? pool->outLayout : adaptive->outLayout;
    std::optional<std::vector<std::string>> axes = layoutAxes(layout);
    auto has = [&](const char *axis) { return axes && std::count(axes->begin(), axes->end(), axis); };
    supported = attribute == "layout" ? has("H") && has("W") : layout == input;
    expected = attribute == "layout" ? "a layout with H and W, such as NCHW or NCHW16c" : "the input's layout, " + input;
  }
  if (supported) return "";
  return "R." + call.callee + ": " + attribute.str() + " \"" + layout + "\" is not supported yet (" + expected + ")";
}

std::optional<TensorStructInfo> inferWindowOperator(const Call &call, const std::vector<TensorStructInfo> &in,
                                                    SourceLoc callLoc, RelaxDiagnostic &diagnostic) {
  if (std::holds_alternative<Conv2DAttrs>(call.attrs)) return inferConv2D(call, in, callLoc, diagnostic);
  return inferPool(call, in[0], callLoc, diagnostic);
}

std::string printWindowAttributes(const Call &call) {
  if (const auto *conv = std::get_if<Conv2DAttrs>(&call.attrs))
    return ", strides=" + printInts(conv->strides) + ", padding=" + printInts(conv->padding) +
           ", dilation=" + printInts(conv->dilation) + ", groups=" + std::to_string(conv->groups) +
           ", data_layout=" + quoted(conv->dataLayout) + ", kernel_layout=" + quoted(conv->kernelLayout) +
           ", out_layout=" + quoted(conv->outLayout) +
           ", out_dtype=" + quoted(conv->outDtype.isVoid() ? "void" : conv->outDtype.str());
  if (const auto *pool = std::get_if<Pool2DAttrs>(&call.attrs))
    return ", pool_size=" + printInts(pool->poolSize) + ", strides=" + printInts(pool->strides) +
           ", dilation=" + printInts(pool->dilation) + ", padding=" + printInts(pool->padding) +
           ", ceil_mode=" + (pool->ceilMode ? "True" : "False") +
           ", count_include_pad=" + (pool->countIncludePad ? "True" : "False") + ", layout=" + quoted(pool->layout) +
           ", out_layout=" + quoted(pool->outLayout);
  const auto &adaptive = std::get<AdaptivePool2DAttrs>(call.attrs);
  return ", output_size=" + (adaptive.outputSize ? printInts(*adaptive.outputSize) : std::string("None")) +
         ", layout=" + quoted(adaptive.layout) + ", out_layout=" + quoted(adaptive.outLayout);
}

}  // namespace vtac::ir::relax
