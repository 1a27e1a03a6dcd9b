#include "PackedStages.h"

#include <algorithm>

#include "vta/isa.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::autoschedule {
namespace {

constexpr const char *kInp = "local.inp_buffer", *kWgt = "local.wgt_buffer", *kAcc = "local.acc_buffer";

const ir::Block *writerOf(const std::vector<const ir::Block *> &blocks, const ir::Buffer *buffer) {
  for (const ir::Block *b : blocks)
    for (const ir::BufferRegion &w : b->writes)
      if (w.buffer.get() == buffer) return b;
  return nullptr;
}

bool allSpatial(const ir::Block &b) {
  return std::all_of(b.iterVars.begin(), b.iterVars.end(),
                     [](const ir::IterVarRef &v) { return v->iterType == ir::IterType::DataPar; });
}

// A block copying (or widening) one parameter, as the data, kernel and added-tensor stages do.
bool copiesParam(const ir::PrimFunc &func, const ir::Block &b, size_t rank) {
  return b.iterVars.size() == rank && b.reads.size() == 1 && isParam(func, b.reads[0].buffer.get());
}

// An integer constant of the block outside the ALU's signed 16-bit immediate, if any.
std::optional<int64_t> wideConstant(const ir::Block &b) {
  std::optional<int64_t> wide;
  ir::preOrderVisit(b.body, [&](const ir::Node &n) {
    if (const auto *imm = n.as<ir::IntImm>(); imm && !::vta::isa::fitsAluImmediate(imm->value)) wide = imm->value;
  });
  return wide;
}

bool sameShape(const ir::Buffer &a, const ir::Buffer &b) {
  std::optional<std::vector<int64_t>> shape = constantShape(a);
  return shape && shape == constantShape(b);
}

}  // namespace

std::optional<std::vector<int64_t>> constantShape(const ir::Buffer &buffer) {
  std::vector<int64_t> shape;
  for (const ir::Expr &extent : buffer.shape) {
    std::optional<int64_t> constant = ir::asConstInt(extent);
    if (!constant) return std::nullopt;
    shape.push_back(*constant);
  }
  return shape;
}

bool isParam(const ir::PrimFunc &func, const ir::Buffer *buffer) {
  return std::any_of(func.bufferMap.begin(), func.bufferMap.end(),
                     [&](const auto &entry) { return entry.second.get() == buffer; });
}

bool readOnlyWidened(const ir::Block &b, const ir::Buffer *buffer) {
  size_t loads = 0, widened = 0;
  ir::preOrderVisit(b.body, [&](const ir::Node &n) {
    if (const auto *load = n.as<ir::BufferLoad>(); load && load->buffer.get() == buffer) ++loads;
    if (const auto *cast = n.as<ir::Cast>(); cast && cast->dtype == ir::DataType::int32())
      if (const auto *load = cast->value.as<ir::BufferLoad>(); load && load->buffer.get() == buffer) ++widened;
  });
  return loads > 0 && loads == widened;
}

std::vector<const ir::Block *> blocksOf(const ir::PrimFunc &func) {
  std::vector<const ir::Block *> blocks;
  ir::preOrderVisit(func.body, [&](const ir::Node &n) {
    if (const auto *b = n.as<ir::Block>(); b && !b->iterVars.empty()) blocks.push_back(b);
  });
  return blocks;
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

const ir::Block *findPackedReduction(const std::vector<const ir::Block *> &blocks, size_t spatial, size_t reduce) {
  for (const ir::Block *b : blocks) {
    if (!b->init || b->iterVars.size() != spatial + reduce || b->writes.size() != 1 || b->reads.size() != 2)
      continue;
    bool ok = true;
    for (size_t i = 0; i < b->iterVars.size(); ++i)
      ok &= b->iterVars[i]->iterType == (i < spatial ? ir::IterType::DataPar : ir::IterType::CommReduce);
    const ir::Buffer &out = *b->writes[0].buffer;
    ok &= out.dtype == ir::DataType::int32() && out.shape.size() == spatial;
    for (const ir::BufferRegion &r : b->reads) ok &= r.buffer->dtype == ir::DataType::intTy(8);
    if (ok) return b;
  }
  return nullptr;
}

bool recogniseStages(const ir::PrimFunc &func, const std::vector<const ir::Block *> &blocks, size_t rank,
                     PackedStages &s, std::string &why) {
  size_t inputRank = s.data->shape.size();
  for (auto [buffer, stage] : {std::pair{s.data, &s.dataStage}, std::pair{s.kernel, &s.kernelStage}}) {
    *stage = writerOf(blocks, buffer);
    if (*stage ? !copiesParam(func, **stage, buffer == s.data ? inputRank : s.kernel->shape.size())
               : !isParam(func, buffer)) {
      why = "the input '" + buffer->name + "' is neither a parameter nor a copy of one";
      return false;
    }
  }
  // The epilogue: each block reads the previous stage; the last writes a parameter.
  const ir::Buffer *current = s.reduction->writes[0].buffer.get();
  while (!s.output) {
    const ir::Block *next = nullptr;
    for (const ir::Block *b : blocks)
      if (b != s.reduction && readIndex(*b, current) >= 0) next = next ? nullptr : b;
    if (!next || next->iterVars.size() != rank || next->writes.size() != 1 || next->reads.size() > 2 ||
        !allSpatial(*next)) {
      why = "the reduction's result is not consumed by one elementwise chain";
      return false;
    }
    if (std::optional<int64_t> wide = wideConstant(*next)) {
      why = "epilogue stage '" + next->name + "' uses the constant " + std::to_string(*wide) +
            ", which does not fit the ALU's 16-bit immediate";
      return false;
    }
    // Another tensor comes into the epilogue either through a stage of its own that copies (or
    // widens: an ACC_8BIT load) a parameter into an int32 buffer, loaded into the accumulator
    // SRAM by DMA, or read inline from an int8 parameter of the output's shape, cast to int32
    // (the schedule then makes the widening stage: an int8 accumulator buffer cannot be allocated).
    for (size_t r = 0; r < next->reads.size(); ++r) {
      const ir::BufferRegion &read = next->reads[r];
      if (read.buffer.get() == current) continue;
      if (const ir::Block *load = writerOf(blocks, read.buffer.get());
          load && copiesParam(func, *load, rank) && read.buffer->dtype == ir::DataType::int32()) {
        s.loads.push_back(load);
      } else if (!load && isParam(func, read.buffer.get()) && read.buffer->dtype == ir::DataType::intTy(8) &&
                 sameShape(*read.buffer, *next->writes[0].buffer) &&
                 readOnlyWidened(*next, read.buffer.get())) {
        s.inlineAdds.push_back({next, int(r)});
      } else {
        why = "epilogue stage '" + next->name + "' adds '" + read.buffer->name +
              "', which is neither an int32 stage copying a parameter nor an int8 parameter of the output's "
              "shape cast to int32";
        return false;
      }
    }
    const ir::Buffer *written = next->writes[0].buffer.get();
    if (isParam(func, written)) {
      if (written->dtype != ir::DataType::intTy(8)) {
        why = "the output stage is not a cast to int8";
        return false;
      }
      s.output = next;
    } else {
      s.epilogue.push_back(next);
    }
    current = written;
  }
  return true;
}

std::vector<std::string> computeEpilogueAt(TraceWriter &sch, const std::string &func, const PackedStages &s,
                                           const std::string &tile) {
  // consumers first: compute_at needs a block's consumers in place
  for (auto it = s.epilogue.rbegin(); it != s.epilogue.rend(); ++it)
    sch.computeAt(sch.getBlock((*it)->name, func), tile);
  for (const ir::Block *load : s.loads) sch.computeAt(sch.getBlock(load->name, func), tile);
  // An inline `+ T.Cast("int32", p[...])`: an accumulator copy of p, widened to int32 (the
  // consumer's cast of it then folds away), like a load stage of the function's own.
  std::vector<std::string> made;
  for (const PackedStages::InlineAdd &add : s.inlineAdds) {
    made.push_back(sch.cacheRead(sch.getBlock(add.stage->name, func), add.readIndex, kAcc));
    sch.unsafeSetDType(made.back(), "int32");
    sch.computeAt(made.back(), tile);
  }
  return made;
}

std::string storeLoop(const std::vector<std::pair<std::string, int64_t>> &tileLoops, bool ocBlocksOfPartialRows,
                      const std::string &perVector) {
  for (size_t i = ocBlocksOfPartialRows ? 1 : 0; i < tileLoops.size(); ++i)
    if (tileLoops[i].second > 1) return tileLoops[i].first;
  return perVector;
}

void scheduleStages(TraceWriter &sch, const std::string &func, const PackedStages &s, const StageLoops &at,
                    const std::vector<std::string> &madeLoads) {
  // A parameter another stage reads too (a layer's input that is also its residual) is cached for
  // the reduction alone.
  auto readElsewhere = [&](const ir::Buffer *buffer) {
    std::vector<const ir::Block *> others(s.loads.begin(), s.loads.end());
    others.insert(others.end(), s.epilogue.begin(), s.epilogue.end());
    others.push_back(s.output);
    return std::any_of(others.begin(), others.end(), [&](const ir::Block *b) { return readIndex(*b, buffer) >= 0; });
  };
  std::string data = s.dataStage ? sch.getBlock(s.dataStage->name, func)
                                 : sch.cacheRead(at.reduction, readIndex(*s.reduction, s.data), kInp, readElsewhere(s.data));
  std::string kernel = s.kernelStage ? sch.getBlock(s.kernelStage->name, func)
                                     : sch.cacheRead(at.reduction, readIndex(*s.reduction, s.kernel), kWgt,
                                                     readElsewhere(s.kernel));
  if (s.dataStage) sch.setScope(data, kInp);
  if (s.kernelStage) sch.setScope(kernel, kWgt);
  sch.setScope(at.reduction, kAcc);
  std::vector<std::string> loads, epilogue;
  for (const ir::Block *load : s.loads) {
    loads.push_back(sch.getBlock(load->name, func));
    sch.setScope(loads.back(), kAcc);
  }
  loads.insert(loads.end(), madeLoads.begin(), madeLoads.end());
  for (const ir::Block *e : s.epilogue) {
    epilogue.push_back(sch.getBlock(e->name, func));
    sch.setScope(epilogue.back(), kAcc);
  }
  bool hoisted = !at.kernelAt.empty(), perImage = !at.dataAt.empty();
  sch.computeAt(data, perImage ? at.dataAt : at.reduceOuter);
  sch.computeAt(kernel, hoisted ? at.kernelAt : at.reduceOuter);
  std::string init = sch.decomposeReduction(at.reduction, at.reduceOuter);
  // DMA and ALU pragmas on the first loop inside the tile (unit loops are gone there)
  sch.annotate(sch.getLoop(data, perImage ? at.dataOuter : at.outer + 1), "pragma_dma_copy");
  sch.annotate(sch.getLoop(kernel, hoisted ? at.kernelOuter : at.outer + 1), "pragma_dma_copy");
  // (per image: under the load's own batch loop)
  for (const std::string &load : loads)
    sch.annotate(sch.getLoop(load, at.outer + (perImage ? 1 : 0)), "pragma_dma_copy");
  sch.annotate(at.store, "pragma_dma_copy");
  for (const std::string &e : epilogue) sch.annotate(sch.getLoop(e, at.outer), "pragma_alu");
  sch.tensorize(sch.getLoop(init, at.resetLoop), "vta_gemm_reset");
  sch.tensorize(at.gemm, "vta_gemm");
}

bool fitsSrams(const SramNeed &n, const vta::Config &config) {
  return n.inp <= uint64_t(config.inpDepth) * config.inpElemBytes &&
         n.wgt <= uint64_t(config.wgtDepth) * config.wgtElemBytes &&
         n.acc <= uint64_t(config.accDepth) * config.accElemBytes &&
         n.uops <= uint64_t(config.uopDepth) * config.uopElemBytes / 2;
}

bool threadsWorthIt(uint64_t threadedBytes, uint64_t bestBytes) { return threadedBytes * 10 <= bestBytes * 11; }

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> result;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) result.push_back(d);
  return result;
}

llvm::Error noTileFits(const ir::PrimFunc &func, const std::string &op, const std::string &smallestTile,
                       const SramNeed &n, const vta::Config &config) {
  auto of = [](uint64_t need, uint64_t depth, uint64_t elemBytes) {
    return std::to_string(need) + " of " + std::to_string(depth * elemBytes);
  };
  return ir::diagnosticError(func.loc(), "no " + op + " tile fits the VTA memories: the smallest (" + smallestTile +
                                             ") needs " + of(n.inp, config.inpDepth, config.inpElemBytes) + " input, " +
                                             of(n.wgt, config.wgtDepth, config.wgtElemBytes) + " weight, " +
                                             of(n.acc, config.accDepth, config.accElemBytes) + " accumulator and " +
                                             of(n.uops, config.uopDepth / 2, config.uopElemBytes) +
                                             " micro-op SRAM bytes");
}

}  // namespace vtac::passes::autoschedule
