// Packed conv2d on VTA: TVM's schedule_conv2d_packed as TensorIR steps.
//
// Recognised by structure: one reduction block over (bo, co, i, j, bi, ci | ic, dy, dx, ic_t)
// that accumulates int32 products of two int8 rank-6 buffers, the data (NCHW1n16c, read at
// [bo, ic, i * stride + dy, j * stride + dx, bi, ic_t]) and the kernel (read at
// [co, ic, dy, dx, ci, ic_t]); each may come from a producer block (the padding stage, a copy)
// or straight from a parameter (then it is cached). After it a chain of elementwise blocks (shift,
// clip, add of another tensor brought in by a copy stage) ends in a block that writes the function's
// output.
//
// The schedule is the tutorial's (samples/conv2d_vta_schedule.py): the output is tiled in oc
// blocks, rows and columns; the convolution and the epilogue are computed per output tile, the
// input and weight tiles loaded per ic block into the SRAMs by DMA, the GEMM tensorized (reset,
// then update), the epilogue on the ALU, the result stored by DMA. Tiles are divisors of the
// extents that fit every SRAM (each virtual thread has its own copy), chosen by the least DRAM
// traffic the tiling implies (input tiles re-read per oc block, weights per output tile, output
// and added tensors once); two virtual threads (on oc blocks, else on rows) where they fit.
#include <algorithm>
#include <map>

#include "Rules.h"
#include "TraceWriter.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::autoschedule {
namespace {

constexpr const char *kInp = "local.inp_buffer", *kWgt = "local.wgt_buffer", *kAcc = "local.acc_buffer";

std::vector<const ir::Block *> blocksOf(const ir::PrimFunc &func) {
  std::vector<const ir::Block *> blocks;
  ir::preOrderVisit(func.body, [&](const ir::Node &n) {
    if (const auto *b = n.as<ir::Block>(); b && !b->iterVars.empty()) blocks.push_back(b);
  });
  return blocks;
}

bool isParam(const ir::PrimFunc &func, const ir::Buffer *buffer) {
  return std::any_of(func.bufferMap.begin(), func.bufferMap.end(),
                     [&](const auto &entry) { return entry.second.get() == buffer; });
}

const ir::Block *writerOf(const std::vector<const ir::Block *> &blocks, const ir::Buffer *buffer) {
  for (const ir::Block *b : blocks)
    for (const ir::BufferRegion &w : b->writes)
      if (w.buffer.get() == buffer) return b;
  return nullptr;
}

int readIndex(const ir::Block &block, const ir::Buffer *buffer) {
  for (size_t i = 0; i < block.reads.size(); ++i)
    if (block.reads[i].buffer.get() == buffer) return int(i);
  return -1;
}

bool isVarOf(const ir::Expr &e, const ir::IterVarRef &iv) { return e.get() == iv->var.get(); }

std::optional<int64_t> extentOf(const ir::IterVarRef &iv) {
  return iv->dom.defined() ? ir::asConstInt(iv->dom.extent) : std::nullopt;
}

struct PackedConv {
  const ir::Block *conv = nullptr;
  const ir::Buffer *data = nullptr, *kernel = nullptr;
  const ir::Block *dataStage = nullptr, *kernelStage = nullptr;  // null: read from a parameter
  std::vector<const ir::Block *> epilogue;  // between the convolution and the output block
  std::vector<const ir::Block *> loads;     // stages that bring another tensor into the epilogue
  const ir::Block *output = nullptr;
  int64_t ocTiles = 0, height = 0, width = 0, icTiles = 0, kh = 0, kw = 0, stride = 1;
  int64_t inHeight = 0, inWidth = 0, padTop = 0, padLeft = 0;  // the data tensor in DRAM
};

// The convolution block, or null: the iteration types, dtypes and access pattern above.
const ir::Block *findConvolution(const std::vector<const ir::Block *> &blocks, PackedConv &conv) {
  for (const ir::Block *b : blocks) {
    if (!b->init || b->iterVars.size() != 10 || b->writes.size() != 1 || b->reads.size() != 2) continue;
    bool types = true;
    for (size_t i = 0; i < 10; ++i)
      types &= b->iterVars[i]->iterType == (i < 6 ? ir::IterType::DataPar : ir::IterType::CommReduce);
    const ir::Buffer &out = *b->writes[0].buffer;
    if (!types || out.dtype != ir::DataType::int32() || out.shape.size() != 6) continue;
    for (const ir::BufferRegion &r : b->reads)
      if (r.buffer->dtype != ir::DataType::intTy(8) || r.region.size() != 6) types = false;
    if (!types) continue;
    // the kernel is read at [co, ic, dy, dx, ci, ic_t], the data at [bo, ic, ...]
    const auto &iv = b->iterVars;
    conv.data = conv.kernel = nullptr;
    for (const ir::BufferRegion &r : b->reads) {
      if (isVarOf(r.region[0].min, iv[1]) && isVarOf(r.region[2].min, iv[7]) &&
          isVarOf(r.region[3].min, iv[8]) && isVarOf(r.region[4].min, iv[5]))
        conv.kernel = r.buffer.get();
      else if (isVarOf(r.region[0].min, iv[0]) && isVarOf(r.region[1].min, iv[6]) &&
               isVarOf(r.region[4].min, iv[4]) && isVarOf(r.region[5].min, iv[9]))
        conv.data = r.buffer.get();
    }
    if (conv.kernel && conv.data && conv.kernel != conv.data) return b;
  }
  return nullptr;
}

// The stride: the data row index `i * stride + dy` at i = 1, dy = 0.
std::optional<int64_t> strideOf(const ir::Block &conv, const ir::Buffer *data) {
  const ir::Expr &row = conv.reads[size_t(readIndex(conv, data))].region[2].min;
  ir::VarMap at;
  for (size_t i = 0; i < conv.iterVars.size(); ++i)
    at[conv.iterVars[i]->var.get()] = ir::intImm(i == 2 ? 1 : 0, conv.iterVars[i]->var->dtype);
  return ir::asConstInt(ir::simplify(ir::substitute(row, at)));
}

// Recognises the function, or says in `why` what does not fit.
std::optional<PackedConv> recognise(const ir::PrimFunc &func, std::string &why) {
  std::vector<const ir::Block *> blocks = blocksOf(func);
  PackedConv conv;
  conv.conv = findConvolution(blocks, conv);
  if (!conv.conv) {
    why = "no int8 x int8 -> int32 packed convolution block";
    return std::nullopt;
  }
  const auto &iv = conv.conv->iterVars;
  auto bo = extentOf(iv[0]), oc = extentOf(iv[1]), h = extentOf(iv[2]), w = extentOf(iv[3]);
  auto ic = extentOf(iv[6]), kh = extentOf(iv[7]), kw = extentOf(iv[8]);
  auto stride = strideOf(*conv.conv, conv.data);
  if (!bo || !oc || !h || !w || !ic || !kh || !kw || !stride || *stride < 1) {
    why = "the convolution's extents or stride are not constant";
    return std::nullopt;
  }
  conv.ocTiles = *oc, conv.height = *h, conv.width = *w, conv.icTiles = *ic, conv.kh = *kh, conv.kw = *kw;
  conv.stride = *stride;
  // Producers of the data and the kernel: a block of the function, or a parameter.
  for (auto [buffer, stage] : {std::pair{conv.data, &conv.dataStage}, std::pair{conv.kernel, &conv.kernelStage}}) {
    *stage = writerOf(blocks, buffer);
    bool ok = *stage ? (*stage)->iterVars.size() == 6 && (*stage)->reads.size() == 1 &&
                           isParam(func, (*stage)->reads[0].buffer.get())
                     : isParam(func, buffer);
    if (!ok) {
      why = "the convolution's input '" + buffer->name + "' is neither a parameter nor a copy of one";
      return std::nullopt;
    }
  }
  const ir::Buffer *dram = conv.dataStage ? conv.dataStage->reads[0].buffer.get() : conv.data;
  auto inH = ir::asConstInt(dram->shape[2]), inW = ir::asConstInt(dram->shape[3]);
  auto padH = ir::asConstInt(conv.data->shape[2]), padW = ir::asConstInt(conv.data->shape[3]);
  if (!inH || !inW || !padH || !padW) {
    why = "the input's shape is not constant";
    return std::nullopt;
  }
  conv.inHeight = *inH, conv.inWidth = *inW;
  conv.padTop = (*padH - *inH) / 2, conv.padLeft = (*padW - *inW) / 2;
  // The epilogue: each block reads the previous stage; the last writes a parameter.
  const ir::Buffer *current = conv.conv->writes[0].buffer.get();
  while (!conv.output) {
    const ir::Block *next = nullptr;
    for (const ir::Block *b : blocks)
      if (b != conv.conv && readIndex(*b, current) >= 0) next = next ? nullptr : b;
    if (!next || next->iterVars.size() != 6 || next->writes.size() != 1 || next->reads.size() > 2 ||
        std::any_of(next->iterVars.begin(), next->iterVars.end(),
                    [](const ir::IterVarRef &v) { return v->iterType != ir::IterType::DataPar; })) {
      why = "the convolution's result is not consumed by one elementwise chain";
      return std::nullopt;
    }
    // Another tensor comes into the epilogue through a stage of its own that copies (or widens:
    // an ACC_8BIT load) a parameter into an int32 buffer, loaded into the accumulator SRAM by
    // DMA. Added straight from an int8 parameter, its accumulator copy would be an int8 buffer,
    // which storage-rewrite sizes and offsets as int8 (a quarter of its slots): not supported.
    for (const ir::BufferRegion &read : next->reads) {
      if (read.buffer.get() == current) continue;
      const ir::Block *load = writerOf(blocks, read.buffer.get());
      if (!load || load->iterVars.size() != 6 || load->reads.size() != 1 ||
          !isParam(func, load->reads[0].buffer.get()) || read.buffer->dtype != ir::DataType::int32()) {
        why = "epilogue stage '" + next->name + "' adds '" + read.buffer->name +
              "', which is not an int32 stage copying a parameter (cast it in a stage of its own)";
        return std::nullopt;
      }
      conv.loads.push_back(load);
    }
    const ir::Buffer *written = next->writes[0].buffer.get();
    if (isParam(func, written)) {
      if (written->dtype != ir::DataType::intTy(8)) {
        why = "the output stage is not a cast to int8";
        return std::nullopt;
      }
      conv.output = next;
    } else {
      conv.epilogue.push_back(next);
    }
    current = written;
  }
  return conv;
}

// ---- tiles -------------------------------------------------------------------------------------

enum class ThreadAxis { None, OcBlocks, Rows };

struct Tiling {
  int64_t oc = 1, rows = 1, cols = 1, ic = 1;  // oc and ic in tiles of BLOCK_OUT / BLOCK_IN
  ThreadAxis threads = ThreadAxis::None;
  uint64_t dramBytes = 0;
};

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> result;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) result.push_back(d);
  return result;
}

// Input rows (or columns) a tile of `outputs` starting at output `first` loads from DRAM: the
// window's rows that are not padding.
int64_t loadedRows(int64_t first, int64_t outputs, int64_t stride, int64_t kernel, int64_t pad, int64_t extent) {
  int64_t begin = first * stride - pad, end = begin + (outputs - 1) * stride + kernel;
  return std::max<int64_t>(0, std::min(end, extent) - std::max<int64_t>(begin, 0));
}

class TileChooser {
public:
  TileChooser(const PackedConv &conv, const vta::Config &config) : c_(conv), config_(config) {}

  // Bytes each SRAM needs for one thread's tiles, or nullopt when one does not fit.
  struct Need {
    uint64_t inp, wgt, acc, uops;
  };
  Need need(const Tiling &t) const {
    uint64_t threads = t.threads == ThreadAxis::None ? 1 : 2;
    int64_t rows = (t.rows - 1) * c_.stride + c_.kh, cols = (t.cols - 1) * c_.stride + c_.kw;
    uint64_t inp = uint64_t(t.ic * rows * cols) * config_.inpElemBytes;
    uint64_t wgt = uint64_t(t.oc * t.ic * c_.kh * c_.kw) * config_.wgtElemBytes;
    uint64_t acc = uint64_t(t.oc * t.rows * t.cols) * config_.accElemBytes * (1 + c_.loads.size());
    // the GEMM micro-kernel: its two outer loops (oc, rows) fold into the instruction
    uint64_t uops = uint64_t(t.ic * c_.kh * c_.kw * t.cols) * config_.uopElemBytes;
    return {inp * threads, wgt * threads, acc * threads, uops};
  }
  bool fits(const Need &n) const {
    return n.inp <= uint64_t(config_.inpDepth) * config_.inpElemBytes &&
           n.wgt <= uint64_t(config_.wgtDepth) * config_.wgtElemBytes &&
           n.acc <= uint64_t(config_.accDepth) * config_.accElemBytes &&
           n.uops <= uint64_t(config_.uopDepth) * config_.uopElemBytes / 2;
  }

  uint64_t dramBytes(const Tiling &t) const {
    uint64_t input = 0;
    for (int64_t y = 0; y < c_.height; y += t.rows)
      for (int64_t x = 0; x < c_.width; x += t.cols)
        input += uint64_t(loadedRows(y, t.rows, c_.stride, c_.kh, c_.padTop, c_.inHeight) *
                          loadedRows(x, t.cols, c_.stride, c_.kw, c_.padLeft, c_.inWidth));
    uint64_t ocBlocks = uint64_t(c_.ocTiles / t.oc), tiles = uint64_t((c_.height / t.rows) * (c_.width / t.cols));
    input *= ocBlocks * uint64_t(c_.icTiles) * config_.inpElemBytes;
    uint64_t weights = tiles * uint64_t(c_.ocTiles * c_.icTiles * c_.kh * c_.kw) * config_.wgtElemBytes;
    uint64_t output = uint64_t(c_.ocTiles * c_.height * c_.width) * config_.outElemBytes;
    return input + weights + output * (1 + c_.loads.size());
  }
  // Everything read once: the floor any tiling is compared with.
  uint64_t floorBytes() const {
    uint64_t input = uint64_t(c_.icTiles * distinctInputs(c_.height, c_.kh, c_.padTop, c_.inHeight) *
                              distinctInputs(c_.width, c_.kw, c_.padLeft, c_.inWidth)) *
                     config_.inpElemBytes;
    uint64_t weights = uint64_t(c_.ocTiles * c_.icTiles * c_.kh * c_.kw) * config_.wgtElemBytes;
    uint64_t output = uint64_t(c_.ocTiles * c_.height * c_.width) * config_.outElemBytes;
    return input + weights + output * (1 + c_.loads.size());
  }

  // The least DRAM traffic; then two threads over one; then the larger output tile. nullopt
  // when not even the smallest tile fits (`smallest` then holds its need).
  std::optional<Tiling> choose(Need &smallest) const {
    std::optional<Tiling> best;
    smallest = need(Tiling{});
    for (int64_t oc : divisors(c_.ocTiles))
      for (int64_t rows : divisors(c_.height))
        for (int64_t cols : divisors(c_.width))
          for (int64_t ic : divisors(c_.icTiles))
            for (ThreadAxis threads : {ThreadAxis::OcBlocks, ThreadAxis::Rows, ThreadAxis::None}) {
              Tiling t{oc, rows, cols, ic, threads, 0};
              if (threads == ThreadAxis::OcBlocks && (c_.ocTiles / oc) % 2) continue;
              if (threads == ThreadAxis::Rows && (c_.height / rows) % 2) continue;
              if (!fits(need(t))) continue;
              t.dramBytes = dramBytes(t);
              if (!best || better(t, *best)) best = t;
            }
    return best;
  }

private:
  // Input rows (or columns) some output reads.
  int64_t distinctInputs(int64_t outputs, int64_t kernel, int64_t pad, int64_t extent) const {
    std::vector<bool> read(size_t(extent), false);
    for (int64_t o = 0; o < outputs; ++o)
      for (int64_t k = 0; k < kernel; ++k)
        if (int64_t r = o * c_.stride - pad + k; r >= 0 && r < extent) read[size_t(r)] = true;
    return std::count(read.begin(), read.end(), true);
  }

  static bool better(const Tiling &a, const Tiling &b) {
    if (a.dramBytes != b.dramBytes) return a.dramBytes < b.dramBytes;
    bool aThreads = a.threads != ThreadAxis::None, bThreads = b.threads != ThreadAxis::None;
    if (aThreads != bThreads) return aThreads;
    return a.oc * a.rows * a.cols > b.oc * b.rows * b.cols;
  }

  const PackedConv &c_;
  const vta::Config &config_;
};

// ---- the schedule ------------------------------------------------------------------------------

void writeSchedule(const std::string &func, const PackedConv &c, const Tiling &t, TraceWriter &sch) {
  std::string res = sch.getBlock(c.output->name, func);
  std::vector<std::string> loops = sch.getLoops(res, 6);
  std::vector<std::string> b = sch.split(loops[0], 1);
  std::vector<std::string> oc = sch.split(loops[1], t.oc), y = sch.split(loops[2], t.rows),
                           x = sch.split(loops[3], t.cols);
  sch.reorder({b[0], oc[0], y[0], x[0], b[1], oc[1], y[1], x[1], loops[4], loops[5]});
  // consumers first: compute_at needs a block's consumers in place
  for (auto it = c.epilogue.rbegin(); it != c.epilogue.rend(); ++it)
    sch.computeAt(sch.getBlock((*it)->name, func), x[0]);
  std::vector<std::string> loads;
  for (const ir::Block *load : c.loads) {
    loads.push_back(sch.getBlock(load->name, func));
    sch.computeAt(loads.back(), x[0]);
  }
  std::string conv = sch.getBlock(c.conv->name, func);
  // unit loops kept: the GEMM intrinsic matches the batch-of-1 tile
  sch.computeAt(conv, x[0], true);
  std::vector<std::string> cl = sch.getLoops(conv, 14);
  std::vector<std::string> ic = sch.split(cl[10], t.ic);
  sch.reorder({ic[0], cl[4], cl[5], cl[6], ic[1], cl[11], cl[12], cl[7], cl[8], cl[9], cl[13]});
  if (t.threads == ThreadAxis::OcBlocks) {
    std::vector<std::string> v = sch.split(oc[0], 2);
    sch.reorder({v[1], b[0]});
    sch.bind(v[1], "cthread");
  } else if (t.threads == ThreadAxis::Rows) {
    std::vector<std::string> w = sch.split(y[0], 2);
    sch.reorder({w[1], b[0]});
    sch.bind(w[1], "cthread");
  }
  int64_t outer = 4 + (t.threads != ThreadAxis::None);  // loops around an output tile
  std::string data = c.dataStage ? sch.getBlock(c.dataStage->name, func)
                                 : sch.cacheRead(conv, readIndex(*c.conv, c.data), kInp);
  std::string kernel = c.kernelStage ? sch.getBlock(c.kernelStage->name, func)
                                     : sch.cacheRead(conv, readIndex(*c.conv, c.kernel), kWgt);
  if (c.dataStage) sch.setScope(data, kInp);
  if (c.kernelStage) sch.setScope(kernel, kWgt);
  sch.setScope(conv, kAcc);
  for (const std::string &load : loads) sch.setScope(load, kAcc);
  std::vector<std::string> epilogue;
  for (const ir::Block *e : c.epilogue) {
    epilogue.push_back(sch.getBlock(e->name, func));
    sch.setScope(epilogue.back(), kAcc);
  }
  sch.computeAt(data, ic[0]);
  sch.computeAt(kernel, ic[0]);
  std::string init = sch.decomposeReduction(conv, ic[0]);
  // DMA and ALU pragmas on the first loop inside the tile (unit loops are gone there)
  sch.annotate(sch.getLoop(data, outer + 1), "pragma_dma_copy");
  sch.annotate(sch.getLoop(kernel, outer + 1), "pragma_dma_copy");
  for (const std::string &load : loads) sch.annotate(sch.getLoop(load, outer), "pragma_dma_copy");
  sch.annotate(loops[5], "pragma_dma_copy");
  for (const std::string &e : epilogue) sch.annotate(sch.getLoop(e, outer), "pragma_alu");
  sch.tensorize(sch.getLoop(init, outer + 4), "vta_gemm_reset");
  sch.tensorize(cl[8], "vta_gemm");
}

std::string describe(const PackedConv &c, const Tiling &t, uint64_t floor) {
  std::string threads = t.threads == ThreadAxis::OcBlocks ? ", 2 virtual threads on oc blocks"
                        : t.threads == ThreadAxis::Rows   ? ", 2 virtual threads on rows"
                                                          : "";
  return "conv2d-packed: " + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " stride " +
         std::to_string(c.stride) + "; tiles oc " + std::to_string(t.oc) + " x rows " + std::to_string(t.rows) +
         " x cols " + std::to_string(t.cols) + " x ic " + std::to_string(t.ic) + threads +
         "; estimated DRAM bytes " + std::to_string(t.dramBytes) + " (floor " + std::to_string(floor) + ")";
}

}  // namespace

llvm::Expected<std::optional<std::string>> conv2dPacked(const std::string &name, const ir::PrimFunc &func,
                                                        const vta::Config &config, ir::Trace &trace,
                                                        std::string &why) {
  std::optional<PackedConv> conv = recognise(func, why);
  if (!conv) return std::nullopt;
  TileChooser chooser(*conv, config);
  TileChooser::Need smallest{};
  std::optional<Tiling> tiling = chooser.choose(smallest);
  if (!tiling) {
    auto bytes = [](uint64_t depth, uint64_t elemBytes) { return std::to_string(depth * elemBytes); };
    return ir::diagnosticError(
        func.loc(), "no conv2d tile fits the VTA memories: the smallest (1 oc block x 1 row x 1 column x 1 "
                    "ic block) needs " + llvm::Twine(smallest.inp) + " of " + bytes(config.inpDepth, config.inpElemBytes) +
                        " input, " + llvm::Twine(smallest.wgt) + " of " + bytes(config.wgtDepth, config.wgtElemBytes) +
                        " weight, " + llvm::Twine(smallest.acc) + " of " + bytes(config.accDepth, config.accElemBytes) +
                        " accumulator and " + llvm::Twine(smallest.uops) + " of " +
                        bytes(config.uopDepth / 2, config.uopElemBytes) + " micro-op SRAM bytes");
  }
  TraceWriter writer(trace, name + "_");
  writeSchedule(name, *conv, *tiling, writer);
  return describe(*conv, *tiling, chooser.floorBytes());
}

}  // namespace vtac::passes::autoschedule
