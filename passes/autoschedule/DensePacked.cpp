// Packed dense (GEMM) on VTA: TVM's schedule_dense_packed as TensorIR steps.
//
// Recognised by structure: one reduction block over (bo, co, bi, ci | ko, ki) that accumulates
// int32 products of two int8 rank-4 buffers, the data (read at [bo, ko, bi, ki]) and the weight
// (read at [co, ko, ci, ki]), with the stages of PackedStages around it (seed 003's GEMM).
//
// The schedule: the output is tiled in batch tiles (of BATCH rows each) and oc blocks; the product
// and the epilogue are computed per output tile, the data and weight tiles loaded per ic block by
// DMA, the GEMM tensorized (the tile's batch and oc loops are the instruction's two loops), the
// epilogue on the ALU, the result stored by DMA. Tiles are divisors that fit every SRAM, chosen by
// the least DRAM traffic (the data re-read per oc block, the weights per batch tile: a taller
// batch tile reuses each weight tile for more rows, as TVM's tile_b does), two virtual threads on
// oc blocks where they fit and cost at most 10% more; then the larger tiles (fewer DMAs).
#include <algorithm>
#include <memory>

#include "PackedStages.h"
#include "Rules.h"

namespace vtac::passes::autoschedule {
namespace {

struct PackedDense {
  PackedStages stages;
  int64_t batchTiles = 0, ocTiles = 0, icTiles = 0;
};

// The data and the weight among the reduction's reads.
bool findOperands(PackedStages &s) {
  const auto &iv = s.reduction->iterVars;
  for (const ir::BufferRegion &r : s.reduction->reads) {
    if (r.region.size() != 4) return false;
    if (isVarOf(r.region[0].min, iv[1]) && isVarOf(r.region[1].min, iv[4]) &&
        isVarOf(r.region[2].min, iv[3]) && isVarOf(r.region[3].min, iv[5]))
      s.kernel = r.buffer.get();
    else if (isVarOf(r.region[0].min, iv[0]) && isVarOf(r.region[1].min, iv[4]) &&
             isVarOf(r.region[2].min, iv[2]) && isVarOf(r.region[3].min, iv[5]))
      s.data = r.buffer.get();
  }
  return s.kernel && s.data && s.kernel != s.data;
}

std::optional<PackedDense> recognise(const ir::PrimFunc &func, std::string &why) {
  std::vector<const ir::Block *> blocks = blocksOf(func);
  PackedDense dense;
  PackedStages &s = dense.stages;
  s.reduction = findPackedReduction(blocks, 4, 2);
  if (!s.reduction || !findOperands(s)) {
    why = "no int8 x int8 -> int32 packed dense block";
    return std::nullopt;
  }
  const auto &iv = s.reduction->iterVars;
  auto bo = extentOf(iv[0]), oc = extentOf(iv[1]), ic = extentOf(iv[4]);
  if (!bo || !oc || !ic) {
    why = "the dense extents are not constant";
    return std::nullopt;
  }
  dense.batchTiles = *bo, dense.ocTiles = *oc, dense.icTiles = *ic;
  if (!recogniseStages(func, blocks, 4, s, why)) return std::nullopt;
  return dense;
}

struct Tiling {
  int64_t batch = 1, oc = 1, ic = 1;  // in tiles of BATCH / BLOCK_OUT / BLOCK_IN
  bool threads = false;               // 2 virtual threads on oc blocks
  uint64_t dramBytes = 0;
};

class TileChooser {
public:
  TileChooser(const PackedDense &dense, const vta::Config &config) : d_(dense), config_(config) {}

  SramNeed need(const Tiling &t) const {
    uint64_t threads = t.threads ? 2 : 1, added = d_.stages.addedTensors();
    return {uint64_t(t.batch * t.ic) * config_.inpElemBytes * threads,
            uint64_t(t.oc * t.ic) * config_.wgtElemBytes * threads,
            uint64_t(t.batch * t.oc) * config_.accElemBytes * (1 + added) * threads,
            uint64_t(t.batch * t.oc * t.ic) * config_.uopElemBytes};
  }
  uint64_t dramBytes(const Tiling &t) const {
    uint64_t ocBlocks = uint64_t(d_.ocTiles / t.oc), batchBlocks = uint64_t(d_.batchTiles / t.batch);
    uint64_t data = uint64_t(d_.batchTiles) * ocBlocks * uint64_t(d_.icTiles) * config_.inpElemBytes;
    uint64_t weights = batchBlocks * uint64_t(d_.ocTiles * d_.icTiles) * config_.wgtElemBytes;
    return data + weights + outputBytes();
  }
  uint64_t floorBytes() const {
    return uint64_t(d_.batchTiles * d_.icTiles) * config_.inpElemBytes +
           uint64_t(d_.ocTiles * d_.icTiles) * config_.wgtElemBytes + outputBytes();
  }
  // Every tiling that fits, best first (rankTilings).
  std::vector<Tiling> candidates() const {
    std::vector<Tiling> legal;
    for (int64_t batch : divisors(d_.batchTiles))
      for (int64_t oc : divisors(d_.ocTiles))
        for (int64_t ic : divisors(d_.icTiles))
          for (bool threads : {true, false}) {
            Tiling t{batch, oc, ic, threads, 0};
            if ((threads && (d_.ocTiles / oc) % 2) || !fitsSrams(need(t), config_)) continue;
            // With a batch tile the batch and oc loops are the GEMM instruction's two loops and the
            // ic blocks its micro-ops, which would write one accumulator back to back: VTA's
            // pipeline forbids that (fold-uop-loop refuses it).
            if (batch > 1 && ic > 1) continue;
            t.dramBytes = dramBytes(t);
            legal.push_back(t);
          }
    rankTilings(legal, better, [](const Tiling &t) { return t.threads; });
    return legal;
  }

private:
  uint64_t outputBytes() const {
    return uint64_t(d_.batchTiles * d_.ocTiles) * config_.outElemBytes * (1 + d_.stages.addedTensors());
  }
  static bool better(const Tiling &a, const Tiling &b) {
    if (a.dramBytes != b.dramBytes) return a.dramBytes < b.dramBytes;
    if (a.threads != b.threads) return a.threads;
    return a.batch * a.oc * a.ic > b.batch * b.oc * b.ic;
  }

  const PackedDense &d_;
  const vta::Config &config_;
};

void writeSchedule(const std::string &func, const PackedDense &d, const Tiling &t, TraceWriter &sch) {
  std::vector<std::string> loops = sch.getLoops(sch.getBlock(d.stages.output->name, func), 4);
  std::vector<std::string> b = sch.split(loops[0], t.batch), oc = sch.split(loops[1], t.oc);
  sch.reorder({b[0], oc[0], b[1], oc[1], loops[2], loops[3]});
  std::vector<std::string> madeLoads = computeEpilogueAt(sch, func, d.stages, oc[0]);
  std::string gemm = sch.getBlock(d.stages.reduction->name, func);
  // unit loops kept: the GEMM intrinsic matches a BATCH x BLOCK tile
  sch.computeAt(gemm, oc[0], true);
  std::vector<std::string> gl = sch.getLoops(gemm, 8);  // the tile's 2, bo, co, bi, ci, ko, ki
  std::vector<std::string> ko = sch.split(gl[6], t.ic);
  sch.reorder({ko[0], gl[2], gl[3], ko[1], gl[4], gl[5], gl[7]});
  if (t.threads) {
    std::vector<std::string> v = sch.split(oc[0], 2);
    sch.reorder({v[1], b[0]});
    sch.bind(v[1], "cthread");
  }
  int64_t outer = 2 + t.threads;  // loops around an output tile
  // the init's loops: the tile's, then bo, co, bi, ci
  std::string store = storeLoop({{b[1], t.batch}, {oc[1], t.oc}}, false, loops[2]);
  scheduleStages(sch, func, d.stages, {gemm, oc[0], ko[0], store, gl[4], outer, outer + 2}, madeLoads);
}

}  // namespace

RuleResult densePacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                       std::string &why) {
  std::optional<PackedDense> recognised = recognise(func, why);
  if (!recognised) return std::nullopt;
  auto dense = std::make_shared<const PackedDense>(std::move(*recognised));
  TileChooser chooser(*dense, config);
  std::vector<Tiling> tilings = chooser.candidates();
  if (tilings.empty()) return noTileFits(func, "dense", "1 oc block x 1 ic block", chooser.need(Tiling{}), config);
  std::vector<ScheduleChoice> choices;
  for (const Tiling &t : tilings) {
    // the batch tile only where there is a choice, so batch-1 remarks (and databases) stay as they were
    std::string batch = dense->batchTiles > 1 ? "batch " + std::to_string(t.batch) + " x " : "";
    std::string remark = "dense-packed: tiles " + batch + "oc " + std::to_string(t.oc) + " x ic " +
                         std::to_string(t.ic) +
                         (t.threads ? ", 2 virtual threads on oc blocks" : "") + "; estimated DRAM bytes " +
                         std::to_string(t.dramBytes) + " (floor " + std::to_string(chooser.floorBytes()) + ")";
    choices.push_back(
        scheduleChoice(std::move(remark), name, func, dense, t, writeSchedule, {t.oc, t.ic, t.threads, t.batch}));
  }
  std::string workload = "dense-packed images " + std::to_string(dense->batchTiles) + " ic " +
                         std::to_string(dense->icTiles) + " oc " + std::to_string(dense->ocTiles) + " added " +
                         std::to_string(dense->stages.addedTensors());
  return RuleSpace{std::move(workload), std::move(choices)};
}

}  // namespace vtac::passes::autoschedule
