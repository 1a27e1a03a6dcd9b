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

}  // namespace

llvm::Expected<LegalizedOperator> legalizeConvolution(const relax::Call &call) {
  const auto &attrs = std::get<relax::Conv2DAttrs>(call.attrs);
  auto refuse = [&](const std::string &why) {
    return ir::diagnosticError(call.calleeLoc, "R.nn.conv2d " + why + " is not supported yet");
  };
  if (attrs.outLayout != attrs.dataLayout)
    return refuse("with out_layout \"" + attrs.outLayout + "\" other than data_layout \"" + attrs.dataLayout + "\"");
  // topi.nn.conv takes the spatial axes in the layout's order and pairs them with the strides
  // as height, width: a layout with W first would swap them.
  if (attrs.dataLayout.find('H') > attrs.dataLayout.find('W') || attrs.kernelLayout.find('H') > attrs.kernelLayout.find('W'))
    return refuse("with W before H in a layout (\"" + attrs.dataLayout + "\", \"" + attrs.kernelLayout + "\")");

  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  llvm::Expected<ir::BufferRef> weight = builder.input(call.args[1]);
  if (!weight) return weight.takeError();
  std::vector<size_t> dataTo = positionsOf(attrs.dataLayout, "NCHW"), kernelTo = positionsOf(attrs.kernelLayout, "OIHW");
  std::vector<size_t> dataFrom = inverse(dataTo), kernelFrom = inverse(kernelTo);
  Expr channels = (*data)->shape[dataTo[1]], filters = (*weight)->shape[kernelTo[0]];
  const auto *channelCount = channels.as<ir::IntImm>(), *filterCount = filters.as<ir::IntImm>();
  if (attrs.groups > 1 && (!channelCount || !filterCount)) return refuse("with groups and symbolic channels");
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
