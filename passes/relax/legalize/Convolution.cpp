// legalize-ops for R.nn.conv2d: topi.nn.conv (TVM's legalize_ops/nn.py, topi/nn/conv2d.py),
// written for any order of N, C, H, W (O, I, H, W for the kernel) with H before W. The data
// padded in block `pad_temp` (always, a copy when the padding is 0), then a sum over the input
// channels of the output channel's group (rc) and the kernel (ry, rx) in block
// `conv2d_nchw` (`group_conv2d_nchw` for groups > 1; the layout in lower case):
//   out[nn, ff, yy, xx] += pad_temp[nn, rc, yy * stride + ry * dilation, ...] * weight[ff, rc, ry, rx]
// (both operands cast to out_dtype first when it differs), with the channel
// `ff // (filters / groups) * (channels / groups) + rc` for groups > 1; the reduction axes in
// the data layout's order of C, H, W. Like TVM's, it refuses an output layout other than the
// data's and grouped convolutions of symbolic channels.
//
// In VTA's packed layouts (data NCHW{b}n{c}c, kernel OIHW{o}o{c}i, output NCHW{b}n{o}c; TVM's
// legalization leaves layouts with sub-axes alone) it is VTA's own compute, conv2d_packed of
// vta/python/vta/top/vta_conv2d.py, which the auto-scheduler's packed conv2d rule recognises:
// the data padded along H and W only, when padded, in block `pad_data` (topi.nn.pad), then
//   res[b_o, c_o, i, j, b_i, c_i] += int32(pad_data[b_o, k_o, i * sh + d_i, j * sw + d_j, b_i, k_i])
//                                    * int32(kernel[c_o, k_o, d_i, d_j, c_i, k_i])
// over k_o, d_i, d_j, k_i; for int8 data and weight, out_dtype int32, groups 1 and dilation 1
// only, as VTA has it (other packed convolutions are refused).
#include "Legalize.h"

#include <algorithm>

#include <llvm/ADT/StringExtras.h>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

// Where each of `axes` ("NCHW") is in `layout` (TVM's data_permutation_to).
std::vector<size_t> positionsOf(const std::string &layout, llvm::StringRef axes) {
  std::vector<size_t> positions;
  for (char axis : axes) positions.push_back(layout.find(axis));
  return positions;
}

// The inverse permutation: for each position of the layout, which of the canonical axes it
// holds (TVM's data_permutation_from, np.argsort of the positions).
std::vector<size_t> inverse(const std::vector<size_t> &positions) {
  std::vector<size_t> axes(positions.size());
  for (size_t k = 0; k < positions.size(); ++k) axes[positions[k]] = k;
  return axes;
}

// "R.nn.conv2d <why> is not supported yet (<what is>)".
llvm::Error refuse(const relax::Call &call, const std::string &why, const std::string &supported = "") {
  return ir::diagnosticError(call.calleeLoc, "R.nn.conv2d " + why + " is not supported yet" +
                                                 (supported.empty() ? "" : " (" + supported + ")"));
}

// Whether the layouts are VTA's packed ones: data NCHW{b}n{c}c, kernel OIHW{o}o{c}i, output
// NCHW{b}n{o}c.
bool packedLayouts(const relax::Conv2DAttrs &attrs) {
  // "NCHW1n16c" with prefix "NCHW" and sub-axes n, c -> 1, 16
  auto factors = [](llvm::StringRef layout, llvm::StringRef prefix, char first,
                    char second) -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<std::vector<std::string>> axes = relax::layoutAxes(layout);
    if (!axes || axes->size() != 6 || !layout.starts_with(prefix) || axes->at(4).back() != first ||
        axes->at(5).back() != second)
      return std::nullopt;
    int64_t a, b;
    if (llvm::StringRef(axes->at(4)).drop_back().getAsInteger(10, a) ||
        llvm::StringRef(axes->at(5)).drop_back().getAsInteger(10, b))
      return std::nullopt;
    return std::pair{a, b};
  };
  auto data = factors(attrs.dataLayout, "NCHW", 'n', 'c'), kernel = factors(attrs.kernelLayout, "OIHW", 'o', 'i'),
       out = factors(attrs.outLayout, "NCHW", 'n', 'c');
  return data && kernel && out && kernel->second == data->second && out->first == data->first &&
         out->second == kernel->first;
}

// VTA's conv2d_packed (see the header).
llvm::Expected<LegalizedOperator> legalizePacked(const relax::Call &call) {
  const auto &attrs = std::get<relax::Conv2DAttrs>(call.attrs);
  if (!packedLayouts(attrs))
    return refuse(call, "with layouts (\"" + attrs.dataLayout + "\", \"" + attrs.kernelLayout + "\", \"" + attrs.outLayout +
                  "\")",
                  "layouts with sub-axes: VTA's packed NCHW{b}n{c}c data, OIHW{o}o{c}i kernel, NCHW{b}n{o}c output");
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  llvm::Expected<ir::BufferRef> kernel = builder.input(call.args[1]);
  if (!kernel) return kernel.takeError();
  ir::DataType outDtype = call.outSinfo.dtype;
  std::string what;
  if (attrs.groups != 1) what = "groups " + std::to_string(attrs.groups);
  else if (attrs.dilation != std::vector<int64_t>{1, 1}) what = "dilation other than 1";
  else if ((*data)->dtype != ir::DataType::intTy(8) || (*kernel)->dtype != ir::DataType::intTy(8) ||
           outDtype != ir::DataType::int32())
    what = (*data)->dtype.str() + " data, " + (*kernel)->dtype.str() + " weight and " + outDtype.str() + " output";
  if (!what.empty())
    return refuse(call, "in packed layouts with " + what,
                  "VTA's packed conv2d: groups 1, dilation 1, int8 data and weight, out_dtype int32");

  // (VTA pads when padding[0] is set, both sides alike; here any padding, each side its own.)
  const std::vector<int64_t> &p = attrs.padding;
  ir::BufferRef padded = *data;
  if (std::any_of(p.begin(), p.end(), [](int64_t side) { return side > 0; }))
    padded = builder.pad(*data, {0, 0, p[0], p[1], 0, 0}, {0, 0, p[2], p[3], 0, 0}, zeroOf((*data)->dtype), true,
                         "pad_data", "i");
  ComputeBuilder::Reduction reduction{{{(*data)->shape[1], "k_o"},
                                       {(*kernel)->shape[2], "d_i"},
                                       {(*kernel)->shape[3], "d_j"},
                                       {(*data)->shape[5], "k_i"}},
                                      zeroOf(outDtype),
                                      ir::NodeKind::Add};
  return builder.reduce(
      "conv2d", "res", std::vector<std::string>{"b_o", "c_o", "i", "j", "b_i", "c_i"}, call.outSinfo, reduction,
      [&](const ComputeBuilder::Indices &out, const ComputeBuilder::Indices &ks) {
        const Expr &b_o = out[0], &c_o = out[1], &i = out[2], &j = out[3], &b_i = out[4], &c_i = out[5];
        const Expr &k_o = ks[0], &d_i = ks[1], &d_j = ks[2], &k_i = ks[3];
        auto constant = [&](int64_t value) { return ir::intImm(value, i->dtype); };
        Expr row = ir::addExpr(ir::mulExpr(i, constant(attrs.strides[0])), d_i);
        Expr column = ir::addExpr(ir::mulExpr(j, constant(attrs.strides[1])), d_j);
        return ir::binary(ir::NodeKind::Mul,
                          ir::castExpr(outDtype, ir::bufferLoad(padded, {b_o, k_o, row, column, b_i, k_i})),
                          ir::castExpr(outDtype, ir::bufferLoad(*kernel, {c_o, k_o, d_i, d_j, c_i, k_i})));
      });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeConvolution(const relax::Call &call) {
  const auto &attrs = std::get<relax::Conv2DAttrs>(call.attrs);
  // layouts with sub-axes
  if (attrs.dataLayout.size() != 4 || attrs.kernelLayout.size() != 4 || attrs.outLayout.size() != 4)
    return legalizePacked(call);
  if (attrs.outLayout != attrs.dataLayout)
    return refuse(call, "with out_layout \"" + attrs.outLayout + "\" other than data_layout \"" + attrs.dataLayout + "\"");
  // topi.nn.conv takes the spatial axes in the layout's order and pairs them with the strides
  // as height, width: a layout with W first would swap them.
  if (attrs.dataLayout.find('H') > attrs.dataLayout.find('W') || attrs.kernelLayout.find('H') > attrs.kernelLayout.find('W'))
    return refuse(call, "with W before H in a layout (\"" + attrs.dataLayout + "\", \"" + attrs.kernelLayout + "\")");

  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  llvm::Expected<ir::BufferRef> weight = builder.input(call.args[1]);
  if (!weight) return weight.takeError();
  std::vector<size_t> dataTo = positionsOf(attrs.dataLayout, "NCHW"), kernelTo = positionsOf(attrs.kernelLayout, "OIHW");
  std::vector<size_t> dataFrom = inverse(dataTo), kernelFrom = inverse(kernelTo);
  Expr channels = (*data)->shape[dataTo[1]], filters = (*weight)->shape[kernelTo[0]];
  const auto *channelCount = channels.as<ir::IntImm>(), *filterCount = filters.as<ir::IntImm>();
  if (attrs.groups > 1 && (!channelCount || !filterCount)) return refuse(call, "with groups and symbolic channels");
  Expr groupChannels = attrs.groups > 1 ? ir::intImm(channelCount->value / attrs.groups, channels->dtype) : channels;

  std::vector<int64_t> before(4, 0), after(4, 0);
  for (size_t d = 0; d < 2; ++d) {
    before[dataTo[2 + d]] = attrs.padding[d];
    after[dataTo[2 + d]] = attrs.padding[d + 2];
  }
  ir::BufferRef padded = builder.pad(*data, before, after, zeroOf((*data)->dtype), true);

  // The reduction axes rc, ry, rx in the order of C, H, W in the data layout.
  std::vector<size_t> reductionOrder;  // reductionOrder[j]: which of rc, ry, rx the j-th axis is
  for (size_t p = 0; p < 4; ++p)
    if (dataFrom[p] != 0) reductionOrder.push_back(dataFrom[p] - 1);
  std::pair<Expr, std::string> canonical[] = {{groupChannels, "rc"},
                                             {(*weight)->shape[kernelTo[2]], "ry"},
                                             {(*weight)->shape[kernelTo[3]], "rx"}};
  ir::DataType outDtype = call.outSinfo.dtype;
  ComputeBuilder::Reduction reduction{{}, zeroOf(outDtype), ir::NodeKind::Add};
  for (size_t j : reductionOrder) reduction.axes.push_back(canonical[j]);

  std::string block = std::string(attrs.groups > 1 ? "group_" : "") + "conv2d_" + llvm::StringRef(attrs.dataLayout).lower();
  return builder.reduce(
      "conv2d", block, "i", call.outSinfo, reduction,
      [&](const ComputeBuilder::Indices &out, const ComputeBuilder::Indices &ks) {
        Expr r[3];
        for (size_t j = 0; j < 3; ++j) r[reductionOrder[j]] = ks[j];
        Expr nn = out[dataTo[0]], ff = out[dataTo[1]], yy = out[dataTo[2]], xx = out[dataTo[3]];
        auto constant = [&](int64_t value) { return ir::intImm(value, ff->dtype); };
        Expr channel = attrs.groups == 1 ? r[0]
                                         : ir::addExpr(ir::mulExpr(ir::floorDivExpr(ff, constant(filterCount->value / attrs.groups)),
                                                                   constant(channelCount->value / attrs.groups)),
                                                       r[0]);
        Expr dataCanonical[] = {
            nn, channel,
            ir::addExpr(ir::mulExpr(yy, constant(attrs.strides[0])), ir::mulExpr(r[1], constant(attrs.dilation[0]))),
            ir::addExpr(ir::mulExpr(xx, constant(attrs.strides[1])), ir::mulExpr(r[2], constant(attrs.dilation[1])))};
        Expr kernelCanonical[] = {ff, r[0], r[1], r[2]};
        std::vector<Expr> dataIndices, kernelIndices;
        for (size_t p = 0; p < 4; ++p) {
          dataIndices.push_back(dataCanonical[dataFrom[p]]);
          kernelIndices.push_back(kernelCanonical[kernelFrom[p]]);
        }
        return ir::binary(ir::NodeKind::Mul, ir::castExpr(outDtype, ir::bufferLoad(padded, dataIndices)),
                          ir::castExpr(outDtype, ir::bufferLoad(*weight, kernelIndices)));
      });
}

}  // namespace vtac::passes::legalize
