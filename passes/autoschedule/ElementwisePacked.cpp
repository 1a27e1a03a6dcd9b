// Packed elementwise stages on VTA's ALU as a function of their own (outside a conv2d or dense):
// a packed network's residual add, shift and clip when they were not fused into a convolution.
//
// Recognised by structure: every block elementwise over the output's packed shape, (N/B, C/BO, B,
// BO) or (N/B, C/BO, H, W, B, BO) (the two innermost axes one BATCH x BLOCK_OUT tile); a chain of
// int32 stages, each one ALU operation (+, *, min, max, a shift by a constant, a copy) of the stage before
// it and at most one input, or of one or two inputs for the first; an input is an int32 parameter
// or an int8 one read as `T.Cast("int32", p[...])`, of the output's shape; the last block casts the
// chain into the int8 output parameter.
//
// The schedule: the output tiled by images, oc blocks (and rows, columns); per tile, each input
// loaded into the accumulator SRAM by DMA (an int8 one widened), the stages computed in place on the
// ALU, the result stored by DMA. Every element is read and written once whatever the tiling, so
// the largest tile that fits the accumulator and a 2D DMA wins (fewest DMAs and micro-kernels).
#include <algorithm>

#include "PackedStages.h"
#include "Rules.h"
#include "vta/isa.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::autoschedule {
namespace {

constexpr const char *kAcc = "local.acc_buffer";

struct Input {
  const ir::Block *stage;  // the stage that reads it
  int readIndex;           // in that stage's reads
  bool widened;            // an int8 parameter read as T.Cast("int32", p[...])
};

struct PackedElementwise {
  std::vector<const ir::Block *> stages;  // in order; the first reads only inputs
  std::vector<Input> inputs;
  const ir::Block *output = nullptr;
  size_t rank = 0;
  int64_t images = 0, ocBlocks = 0, rows = 1, cols = 1;
};

// An operand VTA's ALU reads: a load (int8 ones widened by a cast) or a 16-bit immediate.
bool isAluOperand(const ir::Expr &e) {
  if (e.isa<ir::BufferLoad>()) return true;
  if (const auto *cast = e.as<ir::Cast>()) return cast->value.isa<ir::BufferLoad>();
  auto imm = ir::asConstInt(e);
  return imm && ::vta::isa::fitsAluImmediate(*imm);
}

// Whether the block stores at its iteration variables and loads every tensor there.
bool pointwise(const ir::Block &b) {
  const auto *store = b.body.as<ir::BufferStore>();
  auto atIterVars = [&](const std::vector<ir::Expr> &indices) {
    if (indices.size() != b.iterVars.size()) return false;
    for (size_t i = 0; i < indices.size(); ++i)
      if (indices[i].get() != b.iterVars[i]->var.get()) return false;
    return true;
  };
  bool ok = store && atIterVars(store->indices);
  ir::preOrderVisit(b.body, [&](const ir::Node &n) {
    if (const auto *load = n.as<ir::BufferLoad>()) ok &= atIterVars(load->indices);
  });
  return ok;
}

// Whether the stage stores one ALU operation of loads (at most one immediate).
bool isAluStage(const ir::Block &b) {
  const auto *store = b.body.as<ir::BufferStore>();
  if (!store || !pointwise(b)) return false;
  const ir::Expr &v = store->value;
  if (isAluOperand(v) && !ir::asConstInt(v)) return true;  // a copy (`x * 1` folds to one): a shift by 0
  if (const auto *bin = v.as<ir::BinaryExpr>()) {
    bool kind = bin->kind() == ir::NodeKind::Add || bin->kind() == ir::NodeKind::Mul ||
                bin->kind() == ir::NodeKind::Min || bin->kind() == ir::NodeKind::Max;
    return kind && isAluOperand(bin->a) && isAluOperand(bin->b) &&
           !(ir::asConstInt(bin->a) && ir::asConstInt(bin->b));
  }
  if (const auto *call = v.as<ir::Call>(); call && (call->op == "tir.shift_right" || call->op == "tir.shift_left"))
    return call->args.size() == 2 && isAluOperand(call->args[0]) && !ir::asConstInt(call->args[0]) &&
           isAluOperand(call->args[1]) && ir::asConstInt(call->args[1]);
  return false;
}

std::optional<PackedElementwise> recognise(const ir::PrimFunc &func, const vta::Config &config, std::string &why) {
  std::vector<const ir::Block *> blocks = blocksOf(func);
  PackedElementwise e;
  for (const ir::Block *b : blocks) {
    if (b->writes.size() != 1) {
      why = "block '" + b->name + "' does not write one tensor";
      return std::nullopt;
    }
    if (isParam(func, b->writes[0].buffer.get())) e.output = e.output ? nullptr : b;
  }
  const ir::Buffer *out = e.output ? e.output->writes[0].buffer.get() : nullptr;
  e.rank = out ? out->shape.size() : 0;
  if (!out || out->dtype != ir::DataType::intTy(8) || (e.rank != 4 && e.rank != 6)) {
    why = "no int8 packed output written by one block";
    return std::nullopt;
  }
  std::vector<int64_t> shape;
  for (const ir::Expr &d : out->shape) shape.push_back(ir::asConstInt(d).value_or(0));
  if (shape[e.rank - 2] != int64_t(config.batch) || shape[e.rank - 1] != int64_t(config.blockOut) ||
      std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 1; })) {
    why = "the output's innermost axes are not one BATCH x BLOCK_OUT tile";
    return std::nullopt;
  }
  e.images = shape[0], e.ocBlocks = shape[1];
  if (e.rank == 6) e.rows = shape[2], e.cols = shape[3];
  auto elementwise = [&](const ir::Block &b) {
    return b.iterVars.size() == e.rank && b.writes.size() == 1 && constantShape(*b.writes[0].buffer) == shape &&
           std::all_of(b.iterVars.begin(), b.iterVars.end(),
                       [](const ir::IterVarRef &v) { return v->iterType == ir::IterType::DataPar; });
  };
  const auto *store = e.output->body.as<ir::BufferStore>();
  const auto *cast = store ? store->value.as<ir::Cast>() : nullptr;
  if (!elementwise(*e.output) || e.output->reads.size() != 1 || !cast || !cast->value.isa<ir::BufferLoad>() ||
      !pointwise(*e.output)) {
    why = "the output block does not cast one int32 stage to int8";
    return std::nullopt;
  }
  // Back from the output: each stage reads the one before it (at most once) and inputs.
  const ir::Buffer *current = e.output->reads[0].buffer.get();
  while (current) {
    const ir::Block *stage = nullptr;
    for (const ir::Block *b : blocks)
      if (b->writes[0].buffer.get() == current) stage = b;
    if (!stage || isParam(func, current) || current->dtype != ir::DataType::int32() || !elementwise(*stage) ||
        stage->reads.size() > 2 || !isAluStage(*stage)) {
      why = "the stages before the output are not a chain of int32 ALU operations (+, *, min, max, a shift, a copy)";
      return std::nullopt;
    }
    e.stages.insert(e.stages.begin(), stage);
    const ir::Buffer *previous = nullptr;
    for (size_t r = 0; r < stage->reads.size(); ++r) {
      const ir::Buffer *read = stage->reads[r].buffer.get();
      if (!isParam(func, read) && !previous) {
        previous = read;
        continue;
      }
      if (!isParam(func, read)) {
        why = "stage '" + stage->name + "' reads two stages";
        return std::nullopt;
      }
      bool widened = read->dtype == ir::DataType::intTy(8) && readOnlyWidened(*stage, read);
      if (constantShape(*read) != shape || (read->dtype != ir::DataType::int32() && !widened)) {
        why = "stage '" + stage->name + "' reads '" + read->name +
              "', which is neither an int32 nor a widened int8 tensor of the output's shape";
        return std::nullopt;
      }
      e.inputs.push_back({stage, int(r), widened});
    }
    current = previous;
  }
  if (blocks.size() != e.stages.size() + 1) {
    why = "blocks outside the chain of stages";
    return std::nullopt;
  }
  return e;
}

struct Tiling {
  int64_t oc = 1, rows = 1, cols = 1;
};

// Accumulator bytes of a tile: each input's copy and the chain's (in place) result.
uint64_t accBytes(const PackedElementwise &e, const Tiling &t, const vta::Config &config) {
  return uint64_t(t.oc * t.rows * t.cols) * config.accElemBytes * (e.inputs.size() + 1);
}

// The SRAM bytes of a tile: an ALU micro-kernel folds the two inner tile loops, so at most one
// micro-op per oc block.
SramNeed need(const PackedElementwise &e, const Tiling &t, const vta::Config &config) {
  return SramNeed{0, 0, accBytes(e, t, config), uint64_t(t.oc) * config.uopElemBytes};
}

// Every tiling that fits, the largest tile first (fewest DMAs and ALU instructions), then the
// one with the longer rows.
std::vector<Tiling> candidates(const PackedElementwise &e, const vta::Config &config) {
  std::vector<Tiling> legal;
  for (int64_t oc : divisors(e.ocBlocks))
    for (int64_t rows : divisors(e.rows))
      for (int64_t cols : divisors(e.cols)) {
        Tiling t{oc, rows, cols};
        // VTA's DMA is 2D: several oc blocks of several partial rows would be a 3D copy.
        bool threeD = oc > 1 && rows > 1 && cols < e.cols;
        if (!threeD && fitsSrams(need(e, t, config), config)) legal.push_back(t);
      }
  auto size = [](const Tiling &x) { return x.oc * x.rows * x.cols; };
  std::stable_sort(legal.begin(), legal.end(), [&](const Tiling &a, const Tiling &b) {
    return size(a) != size(b) ? size(a) > size(b) : a.cols > b.cols;
  });
  return legal;
}

void writeSchedule(const std::string &func, const PackedElementwise &e, const Tiling &t, TraceWriter &sch) {
  std::vector<std::string> loops = sch.getLoops(sch.getBlock(e.output->name, func), e.rank);
  std::vector<std::string> b = sch.split(loops[0], 1), oc = sch.split(loops[1], t.oc);
  std::vector<std::string> outer{b[0], oc[0]}, inner{b[1], oc[1]};
  if (e.rank == 6) {
    std::vector<std::string> y = sch.split(loops[2], t.rows), x = sch.split(loops[3], t.cols);
    outer.insert(outer.end(), {y[0], x[0]});
    inner.insert(inner.end(), {y[1], x[1]});
  }
  std::vector<std::string> order = outer;
  order.insert(order.end(), inner.begin(), inner.end());
  order.insert(order.end(), {loops[e.rank - 2], loops[e.rank - 1]});
  sch.reorder(order);
  const std::string &tile = outer.back();
  std::vector<std::string> stages;
  for (auto it = e.stages.rbegin(); it != e.stages.rend(); ++it) {  // consumers first
    stages.insert(stages.begin(), sch.getBlock((*it)->name, func));
    sch.computeAt(stages.front(), tile);
  }
  std::vector<std::string> loads;
  for (const Input &input : e.inputs) {
    size_t at = std::find(e.stages.begin(), e.stages.end(), input.stage) - e.stages.begin();
    loads.push_back(sch.cacheRead(stages[at], input.readIndex, kAcc));
    if (input.widened) sch.unsafeSetDType(loads.back(), "int32");
    sch.computeAt(loads.back(), tile);
  }
  int64_t around = int64_t(outer.size());  // loops around a tile's body
  for (const std::string &stage : stages) sch.setScope(stage, kAcc);
  for (const std::string &load : loads) sch.annotate(sch.getLoop(load, around), "pragma_dma_copy");
  for (const std::string &stage : stages) sch.annotate(sch.getLoop(stage, around), "pragma_alu");
  std::vector<std::pair<std::string, int64_t>> tileLoops{{oc[1], t.oc}};
  if (e.rank == 6) tileLoops.insert(tileLoops.end(), {{inner[2], t.rows}, {inner[3], t.cols}});
  sch.annotate(storeLoop(tileLoops, false, loops[e.rank - 2]), "pragma_dma_copy");  // 3D tiles are not in the space
}

}  // namespace

RuleResult elementwisePacked(const std::string &name, const ir::PrimFunc &func, const vta::Config &config,
                             std::string &why) {
  std::optional<PackedElementwise> recognised = recognise(func, config, why);
  if (!recognised) return std::nullopt;
  auto e = std::make_shared<const PackedElementwise>(std::move(*recognised));
  std::vector<Tiling> tilings = candidates(*e, config);
  if (tilings.empty())
    return noTileFits(func, "elementwise", "1 oc block x 1 row x 1 column", need(*e, Tiling{}, config), config);
  uint64_t tileBytes = config.outElemBytes;  // per BATCH x BLOCK_OUT tile: the output, each input
  for (const Input &input : e->inputs) tileBytes += input.widened ? config.outElemBytes : config.accElemBytes;
  uint64_t bytes = uint64_t(e->images * e->ocBlocks * e->rows * e->cols) * tileBytes;
  std::vector<ScheduleChoice> choices;
  for (const Tiling &t : tilings) {
    std::string remark =
        "elementwise-packed: " + std::to_string(e->stages.size()) + " ALU stage(s), " +
        std::to_string(e->inputs.size()) + " input(s); tiles oc " + std::to_string(t.oc) +
        (e->rank == 6 ? " x rows " + std::to_string(t.rows) + " x cols " + std::to_string(t.cols) : "") +
        "; DRAM bytes " + std::to_string(bytes) + " (every element once)";
    choices.push_back(scheduleChoice(std::move(remark), name, func, e, t, writeSchedule, {t.oc, t.rows, t.cols}));
  }
  std::string workload = "elementwise-packed rank " + std::to_string(e->rank) + " images " +
                         std::to_string(e->images) + " oc " + std::to_string(e->ocBlocks) + " " +
                         std::to_string(e->rows) + "x" + std::to_string(e->cols) + " stages " +
                         std::to_string(e->stages.size()) + " inputs " + std::to_string(e->inputs.size());
  return RuleSpace{std::move(workload), std::move(choices)};
}

}  // namespace vtac::passes::autoschedule
