// What the packed VTA operators (conv2d, dense) share: the stages around their int8 x int8 ->
// int32 reduction block, and how those stages are scheduled (TVM's schedule_conv2d_packed and
// schedule_dense_packed do the same around their different loop tilings).
//
// Stages: the data and the kernel each come from a copy (or padding) block of a parameter or
// straight from a parameter (then cached); the reduction's result goes through a chain of
// elementwise blocks (shift, clip, add of another tensor) to the block that casts it to int8 into
// the output parameter. The added tensor comes either through an int32 copy stage of a parameter
// or inline, `+ T.Cast("int32", param[...])` of an int8 parameter (topi's fused form), for which
// the schedule makes that stage itself.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "TraceWriter.h"
#include "vta/config.h"
#include "vtac/ir/Function.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"

namespace vtac::passes::autoschedule {

struct PackedStages {
  const ir::Block *reduction = nullptr;
  const ir::Buffer *data = nullptr, *kernel = nullptr;
  const ir::Block *dataStage = nullptr, *kernelStage = nullptr;  // null: read from a parameter
  std::vector<const ir::Block *> epilogue;  // between the reduction and the output block
  std::vector<const ir::Block *> loads;     // stages that bring another tensor into the epilogue
  struct InlineAdd {
    const ir::Block *stage;  // the epilogue stage that casts and adds it
    int readIndex;           // of the int8 parameter in that stage's reads
  };
  std::vector<InlineAdd> inlineAdds;  // int8 parameters an epilogue stage widens and adds inline
  const ir::Block *output = nullptr;

  // Tensors added in the epilogue: each takes an accumulator tile and a DMA load per output tile.
  size_t addedTensors() const { return loads.size() + inlineAdds.size(); }
};

std::vector<const ir::Block *> blocksOf(const ir::PrimFunc &func);
bool isParam(const ir::PrimFunc &func, const ir::Buffer *buffer);
// Whether the block reads `buffer` only as `T.Cast("int32", buffer[...])`.
bool readOnlyWidened(const ir::Block &b, const ir::Buffer *buffer);
int readIndex(const ir::Block &block, const ir::Buffer *buffer);
bool isVarOf(const ir::Expr &e, const ir::IterVarRef &iv);
// The buffer's shape if every extent is a constant.
std::optional<std::vector<int64_t>> constantShape(const ir::Buffer &buffer);
std::optional<int64_t> extentOf(const ir::IterVarRef &iv);

// The reduction block with `spatial` then `reduce` iteration variables, an init, one int32 write
// of the same rank as its axes' spatial count and two int8 reads, or null.
const ir::Block *findPackedReduction(const std::vector<const ir::Block *> &blocks, size_t spatial, size_t reduce);

// Fills the stages around stages.reduction (data and kernel set), or says in `why` what does not
// fit. `rank` is the rank of the elementwise stages.
bool recogniseStages(const ir::PrimFunc &func, const std::vector<const ir::Block *> &blocks, size_t rank,
                     PackedStages &stages, std::string &why);

// Where the loop tiling left the stages (names of trace results).
struct StageLoops {
  std::string reduction;   // the reduction block
  std::string tile;        // the loop of one output tile (the epilogue is computed under it)
  std::string reduceOuter; // the outer reduction loop (the data and kernel tiles load under it)
  std::string store;       // the output block's loop that the store DMA starts at
  std::string gemm;        // the reduction's loop that the GEMM intrinsic replaces
  int64_t outer;           // loops around an output tile's body
  int64_t resetLoop;       // the index of the init's loop that the reset intrinsic replaces
  // Where the kernel tile loads when not under reduceOuter with the data tile: under this loop,
  // inside `kernelOuter` loops (conv2d may hoist the weights of every input block over the
  // spatial tiles, loaded once for all of them).
  std::string kernelAt = "";
  int64_t kernelOuter = 0;
  // Likewise the data tile when not under reduceOuter: conv2d's tiles of several images load each
  // image's input under the batch loop (their windows together are no 2D copy), and the added
  // tensors' tiles image by image too.
  std::string dataAt = "";
  int64_t dataOuter = 0;
};

// After the tiling: the epilogue computed per output tile (consumers first, so call this before
// compute_at of the reduction), then the rest (scopes, loads, DMA and ALU pragmas, tensorize).
// computeEpilogueAt returns the load stages it made for the inline adds, which scheduleStages
// treats like the function's own load stages.
// The output tile's loop its store DMA sits on: the outermost of the tile's inner loops (outer
// first, with their extents) that is not a unit loop and under which the tile is a 2D copy, so
// one store moves the whole tile, or an oc block of it where the tile is several oc blocks of
// several partial rows (`ocBlocksOfPartialRows`: a 3D copy, the first loop left out);
// `perVector` (the loop of one vector) when every loop is a unit loop.
std::string storeLoop(const std::vector<std::pair<std::string, int64_t>> &tileLoops, bool ocBlocksOfPartialRows,
                      const std::string &perVector);

std::vector<std::string> computeEpilogueAt(TraceWriter &sch, const std::string &func, const PackedStages &stages,
                                           const std::string &tile);
void scheduleStages(TraceWriter &sch, const std::string &func, const PackedStages &stages, const StageLoops &at,
                    const std::vector<std::string> &madeLoads);

// Tiles: bytes of each on-chip memory a tiling needs (every virtual thread's copies), whether
// they fit the config's SRAMs (half the micro-op SRAM for one kernel), the divisors tiles are
// drawn from, and the error when not even the smallest tiling fits.
struct SramNeed {
  uint64_t inp, wgt, acc, uops;
};
bool fitsSrams(const SramNeed &need, const vta::Config &config);
std::vector<int64_t> divisors(int64_t n);
// Two virtual threads hide DMA latency behind compute (the functional simulator cannot measure
// it, vtac tune's timing model does); the tiling with them is taken when it moves at most 10%
// more DRAM bytes than the best without.
bool threadsWorthIt(uint64_t threadedBytes, uint64_t bestBytes);
// Orders a rule's legal tilings best first by `better`, then moves the best with virtual threads
// to the front where threadsWorthIt: the rule's choice is the first.
template <class Tiling, class Better, class Threaded>
void rankTilings(std::vector<Tiling> &legal, Better better, Threaded threaded) {
  std::stable_sort(legal.begin(), legal.end(), better);
  auto first = std::find_if(legal.begin(), legal.end(), threaded);
  if (first != legal.end() && threadsWorthIt(first->dramBytes, legal.front().dramBytes))
    std::rotate(legal.begin(), first, first + 1);
}
// A rule's choice: `write` applied to the workload and the tiling, in the function's namespace
// of trace names; `knobs` are the tiling's (ScheduleChoice::knobs).
template <class Workload, class Tiling>
ScheduleChoice scheduleChoice(std::string remark, const std::string &name, const ir::PrimFunc &func,
                              std::shared_ptr<const Workload> workload, const Tiling &tiling,
                              void (*write)(const std::string &, const Workload &, const Tiling &, TraceWriter &),
                              std::vector<int64_t> knobs) {
  return {std::move(remark),
          [=, at = func.loc()](ir::Trace &trace) {
            TraceWriter writer(trace, name + "_", at);
            write(name, *workload, tiling, writer);
          },
          std::move(knobs)};
}
llvm::Error noTileFits(const ir::PrimFunc &func, const std::string &op, const std::string &smallestTile,
                       const SramNeed &need, const vta::Config &config);

}  // namespace vtac::passes::autoschedule
