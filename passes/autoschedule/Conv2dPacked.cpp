// Packed conv2d on VTA: TVM's schedule_conv2d_packed as TensorIR steps.
//
// Recognised by structure: one reduction block over (bo, co, i, j, bi, ci | ic, dy, dx, ic_t)
// that accumulates int32 products of two int8 rank-6 buffers, the data (NCHW1n16c, read at
// [bo, ic, i * stride_h + dy, j * stride_w + dx, bi, ic_t]) and the kernel (read at
// [co, ic, dy, dx, ci, ic_t]); each may come from a producer block (the padding stage, a copy)
// or straight from a parameter (then it is cached). After it a chain of elementwise blocks (shift,
// clip, add of another tensor brought in by a copy stage) ends in a block that writes the function's
// output.
//
// The schedule is the tutorial's (samples/conv2d_vta_schedule.py): the output is tiled in batch
// tiles (TVM's tile_b: images sharing each kernel tile, their inputs and added tensors loaded
// image by image), oc blocks, rows and columns; the convolution and the epilogue are computed
// per output tile, the input and weight tiles loaded per ic block into the SRAMs by DMA (or the weights of every ic
// block once per oc block, for all its spatial tiles: a choice beyond the tutorial's), the GEMM
// tensorized (reset,
// then update), the epilogue on the ALU, the result stored by DMA from the batch-tile loop (whole
// BATCH x BLOCK_OUT tiles: with BATCH 2 a store per row of the tile would leave VTA's tiles). Tiles are divisors of the
// extents that fit every SRAM (each virtual thread has its own copy), chosen by the least DRAM
// traffic the tiling implies (per batch tile: input tiles re-read per oc block, weights per output
// tile, output and added tensors once), then hoisted where that fits; two virtual threads (on oc blocks or rows) where they fit and cost at
// most 10% more.
#include <algorithm>

#include "PackedStages.h"
#include "Rules.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::autoschedule {
namespace {

struct PackedConv {
  PackedStages stages;
  int64_t batchTiles = 0, ocTiles = 0, height = 0, width = 0, icTiles = 0, kh = 0, kw = 0, strideH = 1, strideW = 1;
  int64_t inHeight = 0, inWidth = 0, padTop = 0, padLeft = 0;  // the data tensor in DRAM
};

// The convolution's data and kernel among the reduction's reads: the kernel is read at
// [co, ic, dy, dx, ci, ic_t], the data at [bo, ic, ..., bi, ic_t].
bool findOperands(PackedStages &s) {
  const auto &iv = s.reduction->iterVars;
  for (const ir::BufferRegion &r : s.reduction->reads) {
    if (r.region.size() != 6) return false;
    if (isVarOf(r.region[0].min, iv[1]) && isVarOf(r.region[2].min, iv[7]) &&
        isVarOf(r.region[3].min, iv[8]) && isVarOf(r.region[4].min, iv[5]))
      s.kernel = r.buffer.get();
    else if (isVarOf(r.region[0].min, iv[0]) && isVarOf(r.region[1].min, iv[6]) &&
             isVarOf(r.region[4].min, iv[4]) && isVarOf(r.region[5].min, iv[9]))
      s.data = r.buffer.get();
  }
  return s.kernel && s.data && s.kernel != s.data;
}

// The stride along data axis 2 (rows) or 3 (columns): its index `i * stride + dy` at i = 1 and
// every other iteration variable 0.
std::optional<int64_t> strideOf(const ir::Block &conv, const ir::Buffer *data, size_t axis) {
  const ir::Expr &index = conv.reads[size_t(readIndex(conv, data))].region[axis].min;
  ir::VarMap at;
  for (size_t i = 0; i < conv.iterVars.size(); ++i)
    at[conv.iterVars[i]->var.get()] = ir::intImm(i == axis ? 1 : 0, conv.iterVars[i]->var->dtype);
  return ir::asConstInt(ir::simplify(ir::substitute(index, at)));
}

// Recognises the function, or says in `why` what does not fit.
std::optional<PackedConv> recognise(const ir::PrimFunc &func, std::string &why) {
  std::vector<const ir::Block *> blocks = blocksOf(func);
  PackedConv conv;
  PackedStages &s = conv.stages;
  s.reduction = findPackedReduction(blocks, 6, 4);
  if (!s.reduction || !findOperands(s)) {
    why = "no int8 x int8 -> int32 packed convolution block";
    return std::nullopt;
  }
  const auto &iv = s.reduction->iterVars;
  auto bo = extentOf(iv[0]), oc = extentOf(iv[1]), h = extentOf(iv[2]), w = extentOf(iv[3]);
  auto ic = extentOf(iv[6]), kh = extentOf(iv[7]), kw = extentOf(iv[8]);
  auto strideH = strideOf(*s.reduction, s.data, 2), strideW = strideOf(*s.reduction, s.data, 3);
  if (!bo || !oc || !h || !w || !ic || !kh || !kw || !strideH || !strideW || *strideH < 1 || *strideW < 1) {
    why = "the convolution's extents or stride are not constant";
    return std::nullopt;
  }
  conv.batchTiles = *bo, conv.ocTiles = *oc, conv.height = *h, conv.width = *w, conv.icTiles = *ic, conv.kh = *kh, conv.kw = *kw;
  conv.strideH = *strideH, conv.strideW = *strideW;
  if (!recogniseStages(func, blocks, 6, s, why)) return std::nullopt;
  const ir::Buffer *dram = s.dataStage ? s.dataStage->reads[0].buffer.get() : s.data;
  auto inH = ir::asConstInt(dram->shape[2]), inW = ir::asConstInt(dram->shape[3]);
  auto padH = ir::asConstInt(s.data->shape[2]), padW = ir::asConstInt(s.data->shape[3]);
  if (!inH || !inW || !padH || !padW) {
    why = "the input's shape is not constant";
    return std::nullopt;
  }
  conv.inHeight = *inH, conv.inWidth = *inW;
  conv.padTop = (*padH - *inH) / 2, conv.padLeft = (*padW - *inW) / 2;
  return conv;
}

// ---- tiles -------------------------------------------------------------------------------------

enum class ThreadAxis { None, OcBlocks, Rows };

struct Tiling {
  int64_t oc = 1, rows = 1, cols = 1, ic = 1;  // oc and ic in tiles of BLOCK_OUT / BLOCK_IN
  // Batch tiles (of BATCH images each) per output tile, which share its kernel tile: each
  // image's input and added-tensor tiles load on their own (together they are no 2D copy).
  int64_t batch = 1;
  ThreadAxis threads = ThreadAxis::None;
  // The kernel tile of every ic block loaded once per oc block, outside the spatial tiles,
  // instead of the ic chunk's per output tile.
  bool hoistKernel = false;
  uint64_t dramBytes = 0;
  // The bytes of the same tiles with the kernel not hoisted: what the tile shapes are ranked by.
  // (Ranked by their own bytes, hoisted tiles would shrink to single outputs wherever the input
  // a tile reads grows faster than its outputs, as with strided 1x1 kernels, and pay in DMA
  // requests what the bytes do not show.)
  uint64_t shapeBytes = 0;
};

// Input rows (or columns) a tile of `outputs` starting at output `first` loads from DRAM: the
// window's rows that are not padding.
int64_t loadedRows(int64_t first, int64_t outputs, int64_t stride, int64_t kernel, int64_t pad, int64_t extent) {
  int64_t begin = first * stride - pad, end = begin + (outputs - 1) * stride + kernel;
  return std::max<int64_t>(0, std::min(end, extent) - std::max<int64_t>(begin, 0));
}

class TileChooser {
public:
  TileChooser(const PackedConv &conv, const vta::Config &config) : c_(conv), config_(config) {}

  SramNeed need(const Tiling &t) const {
    uint64_t threads = t.threads == ThreadAxis::None ? 1 : 2;
    int64_t rows = (t.rows - 1) * c_.strideH + c_.kh, cols = (t.cols - 1) * c_.strideW + c_.kw;
    uint64_t inp = uint64_t(t.ic * rows * cols) * config_.inpElemBytes;
    // a hoisted kernel tile holds every ic block of its oc blocks
    uint64_t wgt = uint64_t(t.oc * (t.hoistKernel ? c_.icTiles : t.ic) * c_.kh * c_.kw) * config_.wgtElemBytes;
    uint64_t acc = uint64_t(t.batch * t.oc * t.rows * t.cols) * config_.accElemBytes * (1 + c_.stages.addedTensors());
    // the GEMM micro-kernel: its two outer loops (oc, rows) fold into the instruction
    uint64_t uops = uint64_t(t.ic * c_.kh * c_.kw * t.cols) * config_.uopElemBytes;
    return {inp * threads, wgt * threads, acc * threads, uops};
  }
  // Per batch tile (the outermost loop) the input and output move again; the weights per output
  // tile, or hoisted, per oc block.
  uint64_t dramBytes(const Tiling &t) const {
    uint64_t input = 0;
    for (int64_t y = 0; y < c_.height; y += t.rows)
      for (int64_t x = 0; x < c_.width; x += t.cols)
        input += uint64_t(loadedRows(y, t.rows, c_.strideH, c_.kh, c_.padTop, c_.inHeight) *
                          loadedRows(x, t.cols, c_.strideW, c_.kw, c_.padLeft, c_.inWidth));
    uint64_t ocBlocks = uint64_t(c_.ocTiles / t.oc), tiles = uint64_t((c_.height / t.rows) * (c_.width / t.cols));
    input *= ocBlocks * uint64_t(c_.icTiles) * config_.inpElemBytes;
    uint64_t output = uint64_t(c_.ocTiles * c_.height * c_.width) * config_.outElemBytes;
    uint64_t batches = uint64_t(c_.batchTiles), batchBlocks = uint64_t(c_.batchTiles / t.batch);
    // A kernel tile loads per output tile, or, hoisted, once per oc block: of each batch block
    // without threads; with threads the thread loop takes the batch loop's place outermost and
    // the batch loop runs under the oc blocks (threads on rows load the tile once each).
    uint64_t kernelLoads = !t.hoistKernel                     ? batchBlocks * tiles
                           : t.threads == ThreadAxis::None    ? batchBlocks
                           : t.threads == ThreadAxis::Rows    ? 2
                                                              : 1;
    uint64_t weights = kernelLoads * uint64_t(c_.ocTiles * c_.icTiles * c_.kh * c_.kw) * config_.wgtElemBytes;
    return batches * (input + output * (1 + c_.stages.addedTensors())) + weights;
  }
  // Everything read once: the floor any tiling is compared with.
  uint64_t floorBytes() const {
    uint64_t input = uint64_t(c_.icTiles * distinctInputs(c_.height, c_.strideH, c_.kh, c_.padTop, c_.inHeight) *
                              distinctInputs(c_.width, c_.strideW, c_.kw, c_.padLeft, c_.inWidth)) *
                     config_.inpElemBytes;
    uint64_t weights = uint64_t(c_.ocTiles * c_.icTiles * c_.kh * c_.kw) * config_.wgtElemBytes;
    uint64_t output = uint64_t(c_.ocTiles * c_.height * c_.width) * config_.outElemBytes;
    return uint64_t(c_.batchTiles) * (input + output * (1 + c_.stages.addedTensors())) + weights;
  }

  // Every legal tiling, best first: the least DRAM traffic of its tile shape, then of its own
  // (the kernel hoisted), then two threads over one, then the larger output tile; except that the best with two threads comes first where it moves at most
  // 10% more. Empty when none is legal (`smallest` holds the smallest tile's need).
  std::vector<Tiling> candidates(SramNeed &smallest) const {
    std::vector<Tiling> legal;
    smallest = need(Tiling{});
    for (int64_t batch : divisors(c_.batchTiles))
      for (int64_t oc : divisors(c_.ocTiles))
        for (int64_t rows : divisors(c_.height))
          for (int64_t cols : divisors(c_.width))
            for (int64_t ic : divisors(c_.icTiles))
              for (ThreadAxis threads : {ThreadAxis::OcBlocks, ThreadAxis::Rows, ThreadAxis::None})
                for (bool hoist : {true, false}) {
                  Tiling t{oc, rows, cols, ic, batch, threads, hoist, 0};
                  if (threads == ThreadAxis::OcBlocks && (c_.ocTiles / oc) % 2) continue;
                  if (threads == ThreadAxis::Rows && (c_.height / rows) % 2) continue;
                  // hoisting gains nothing over a single spatial tile
                  if (hoist && rows == c_.height && cols == c_.width) continue;
                  if (!fitsSrams(need(t), config_) || !overlapsData(t) || !hazardFree(t) || !loadsIn2D(t)) continue;
                  t.dramBytes = dramBytes(t);
                  Tiling unhoisted = t;
                  unhoisted.hoistKernel = false;
                  t.shapeBytes = dramBytes(unhoisted);
                  legal.push_back(t);
                }
    rankTilings(legal, better, [](const Tiling &t) { return t.threads != ThreadAxis::None; });
    return legal;
  }

private:
  // Whether the GEMM micro-kernel (ic, dy, dx, column) never writes an accumulator that one of
  // the two micro-ops before it wrote: VTA's pipeline forbids it (its runtime rejects the kernel).
  // Columns innermost repeat an accumulator every `cols` micro-ops.
  bool hazardFree(const Tiling &t) const { return t.cols >= 3 || t.ic * c_.kh * c_.kw == 1; }

  // Whether each input tile is one 2D DMA: with one ic block, rows of the window's columns (the
  // DMA pads each row); with several, each block's rows must be one contiguous run, so windows
  // of whole input rows and no padding. Else it would be a 3D copy, which inject-dma-copies refuses.
  bool loadsIn2D(const Tiling &t) const {
    // an added tensor's tile (oc blocks x rows x columns) is 3D too when it has several oc
    // blocks of several partial rows
    if (c_.stages.addedTensors() && t.oc > 1 && t.rows > 1 && t.cols < c_.width) return false;
    if (t.ic == 1) return true;
    // a window without padding loads all its (outputs - 1) * stride + kernel rows
    int64_t windowRows = (t.rows - 1) * c_.strideH + c_.kh, windowCols = (t.cols - 1) * c_.strideW + c_.kw;
    for (int64_t y = 0; y < c_.height; y += t.rows)
      if (loadedRows(y, t.rows, c_.strideH, c_.kh, c_.padTop, c_.inHeight) != windowRows) return false;
    for (int64_t x = 0; x < c_.width; x += t.cols)
      if (windowCols != c_.inWidth || loadedRows(x, t.cols, c_.strideW, c_.kw, c_.padLeft, c_.inWidth) != windowCols)
        return false;
    return true;
  }

  // Whether every tile's input window holds data: a tile wholly in the padding would be an empty
  // DMA, which loads nothing (inject-dma-copies rejects it).
  bool overlapsData(const Tiling &t) const {
    for (int64_t y = 0; y < c_.height; y += t.rows)
      if (!loadedRows(y, t.rows, c_.strideH, c_.kh, c_.padTop, c_.inHeight)) return false;
    for (int64_t x = 0; x < c_.width; x += t.cols)
      if (!loadedRows(x, t.cols, c_.strideW, c_.kw, c_.padLeft, c_.inWidth)) return false;
    return true;
  }

  // Input rows (or columns) some output reads.
  static int64_t distinctInputs(int64_t outputs, int64_t stride, int64_t kernel, int64_t pad, int64_t extent) {
    std::vector<bool> read(size_t(extent), false);
    for (int64_t o = 0; o < outputs; ++o)
      for (int64_t k = 0; k < kernel; ++k)
        if (int64_t r = o * stride - pad + k; r >= 0 && r < extent) read[size_t(r)] = true;
    return std::count(read.begin(), read.end(), true);
  }

  static bool better(const Tiling &a, const Tiling &b) {
    if (a.shapeBytes != b.shapeBytes) return a.shapeBytes < b.shapeBytes;
    if (a.dramBytes != b.dramBytes) return a.dramBytes < b.dramBytes;
    bool aThreads = a.threads != ThreadAxis::None, bThreads = b.threads != ThreadAxis::None;
    if (aThreads != bThreads) return aThreads;
    return a.batch * a.oc * a.rows * a.cols > b.batch * b.oc * b.rows * b.cols;
  }

  const PackedConv &c_;
  const vta::Config &config_;
};

// ---- the schedule ------------------------------------------------------------------------------

void writeSchedule(const std::string &func, const PackedConv &c, const Tiling &t, TraceWriter &sch) {
  std::vector<std::string> loops = sch.getLoops(sch.getBlock(c.stages.output->name, func), 6);
  std::vector<std::string> b = sch.split(loops[0], t.batch);
  std::vector<std::string> oc = sch.split(loops[1], t.oc), y = sch.split(loops[2], t.rows),
                           x = sch.split(loops[3], t.cols);
  sch.reorder({b[0], oc[0], y[0], x[0], b[1], oc[1], y[1], x[1], loops[4], loops[5]});
  std::vector<std::string> madeLoads = computeEpilogueAt(sch, func, c.stages, x[0]);
  std::string conv = sch.getBlock(c.stages.reduction->name, func);
  // unit loops kept: the GEMM intrinsic matches the batch-of-1 tile
  sch.computeAt(conv, x[0], true);
  std::vector<std::string> cl = sch.getLoops(conv, 14);
  std::vector<std::string> ic = sch.split(cl[10], t.ic);
  sch.reorder({ic[0], cl[4], cl[5], cl[6], ic[1], cl[11], cl[12], cl[7], cl[8], cl[9], cl[13]});
  std::string ocBlocks;  // the oc-block loop within a thread
  if (t.threads == ThreadAxis::OcBlocks) {
    std::vector<std::string> v = sch.split(oc[0], 2);
    ocBlocks = v[0];
    sch.reorder({v[1], b[0]});
    sch.bind(v[1], "cthread");
  } else if (t.threads == ThreadAxis::Rows) {
    std::vector<std::string> w = sch.split(y[0], 2);
    sch.reorder({w[1], b[0]});
    sch.bind(w[1], "cthread");
  }
  int64_t outer = 4 + (t.threads != ThreadAxis::None);  // loops around an output tile
  // the init's loops: the tile's, then bo, co, i, j, bi, ci
  std::string store = storeLoop({{oc[1], t.oc}, {y[1], t.rows}, {x[1], t.cols}},
                                t.oc > 1 && t.rows > 1 && t.cols < c.width, loops[4]);
  StageLoops at{conv, x[0], ic[0], store, cl[8], outer, outer + 4};
  if (t.hoistKernel) {
    // under the oc-block loop, the second: after the batch loop or the thread loop that the
    // reorder put in its place
    at.kernelAt = t.threads == ThreadAxis::OcBlocks ? ocBlocks : oc[0];
    at.kernelOuter = 2;
  }
  if (t.batch > 1) {
    at.dataAt = cl[4];  // the tile's batch loop, under the ic-block loop
    at.dataOuter = outer + 2;
  }
  scheduleStages(sch, func, c.stages, at, madeLoads);
}

std::string describe(const PackedConv &c, const Tiling &t, uint64_t floor) {
  // the batch tile only where there is a choice, so batch-1 remarks (and databases) stay as they were
  std::string batch = c.batchTiles > 1 ? "batch " + std::to_string(t.batch) + " x " : "";
  std::string threads = t.threads == ThreadAxis::OcBlocks ? ", 2 virtual threads on oc blocks"
                        : t.threads == ThreadAxis::Rows   ? ", 2 virtual threads on rows"
                                                          : "";
  return "conv2d-packed: " + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " stride " +
         (c.strideH == c.strideW ? std::to_string(c.strideH)
                                 : std::to_string(c.strideH) + "x" + std::to_string(c.strideW)) +
         "; tiles " + batch + "oc " + std::to_string(t.oc) + " x rows " + std::to_string(t.rows) +
         " x cols " + std::to_string(t.cols) + " x ic " + std::to_string(t.ic) + threads +
         (t.hoistKernel ? ", kernel loaded per oc block" : "") +
         "; estimated DRAM bytes " + std::to_string(t.dramBytes) + " (floor " + std::to_string(floor) + ")";
}

}  // namespace

RuleResult conv2dPacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                        std::string &why) {
  std::optional<PackedConv> recognised = recognise(func, why);
  if (!recognised) return std::nullopt;
  auto conv = std::make_shared<const PackedConv>(std::move(*recognised));
  TileChooser chooser(*conv, config);
  SramNeed smallest{};
  std::vector<Tiling> tilings = chooser.candidates(smallest);
  if (tilings.empty() && fitsSrams(smallest, config)) {
    // Tiles fit, but VTA cannot run any of them: the function stays on the CPU.
    why = "no conv2d tiling that fits the SRAMs keeps every tile's input window on the data (a tile "
          "wholly in the padding would load nothing) and every GEMM micro-op clear of the two before it (an "
          "accumulator written again that soon is a pipeline hazard: with a kernel or input-channel tile "
          "larger than 1, output tiles need 3 or more columns)";
    return std::nullopt;
  }
  if (tilings.empty()) return noTileFits(func, "conv2d", "1 oc block x 1 row x 1 column x 1 ic block", smallest, config);
  std::vector<ScheduleChoice> choices;
  for (const Tiling &t : tilings)
    choices.push_back(scheduleChoice(describe(*conv, t, chooser.floorBytes()), name, func, conv, t, writeSchedule,
                                     {t.oc, t.rows, t.cols, t.ic, int64_t(t.threads), int64_t(t.hoistKernel), t.batch}));
  std::string workload = "conv2d-packed images " + std::to_string(conv->batchTiles) + " ic " +
                         std::to_string(conv->icTiles) + " " + std::to_string(conv->inHeight) + "x" +
                         std::to_string(conv->inWidth) + " oc " + std::to_string(conv->ocTiles) + " " +
                         std::to_string(conv->height) + "x" + std::to_string(conv->width) + " kernel " +
                         std::to_string(conv->kh) + "x" + std::to_string(conv->kw) + " stride " +
                         std::to_string(conv->strideH) + "x" + std::to_string(conv->strideW) + " pad " +
                         std::to_string(conv->padTop) + "x" + std::to_string(conv->padLeft) + " added " +
                         std::to_string(conv->stages.addedTensors());
  return RuleSpace{std::move(workload), std::move(choices)};
}

}  // namespace vtac::passes::autoschedule
