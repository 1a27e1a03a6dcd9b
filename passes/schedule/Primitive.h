// A step's arguments, bound to its primitive's signature: what decodes them into the typed
// arguments of the primitive's function (Primitives.h). Each primitive lives in its own file
// (Split.cpp, Fuse.cpp, ...) and is listed with its signature and its decoding in Primitives.cpp;
// ApplyTrace.cpp binds a step's arguments, calls the decoding and records the step in TVM's
// spelling. Only the decoding (Primitives.cpp) sees a StepArgs.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "vtac/passes/schedule/Primitives.h"
#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

struct ParamSpec {
  const char *name;
  std::optional<ir::TraceValue> defaultValue;  // nullopt: required
  bool variadic = false;  // takes every positional argument; printed positionally
  bool omitWhenEmpty = false;  // printed only when not an empty list (cache_read's consumer_blocks)
  bool positional = false;  // printed without its keyword (get_child_blocks)
};

class StepArgs;

struct PrimitiveSpec {
  const char *name;
  std::vector<ParamSpec> params;
  enum class Results { None, One, List } results;
  llvm::Expected<std::vector<RV>> (*apply)(Schedule &, StepArgs &);
};

// The primitives, by name; null when unknown.
const PrimitiveSpec *findPrimitive(const std::string &name);

class StepArgs {
public:
  StepArgs(Schedule &sch, const ir::TraceStep &step, std::map<std::string, ir::TraceValue> values,
           std::map<std::string, size_t> &names)
      : sch_(sch), step_(step), values_(std::move(values)), names_(names) {}

  ir::SourceLoc stepLoc() const { return step_.loc; }
  // Where argument `param` was written (the step when it was defaulted).
  ir::SourceLoc at(const char *param) const;
  const ir::TraceValue &value(const char *param) const { return values_.at(param); }
  // What the recorded trace prints for `param` (get_block's func_name once it is known).
  void setValue(const char *param, ir::TraceValue value) { values_[param] = std::move(value); }

  llvm::Expected<BlockRV> block(const char *param);
  llvm::Expected<LoopRV> loop(const char *param);
  llvm::Expected<RV> blockOrLoop(const char *param);
  // A loop or a location mark of sample_compute_location (compute_at's `loop`).
  llvm::Expected<ComputeLocation> computeLocation(const char *param);
  // The variadic loop list (reorder, fuse), each loop where it was written.
  llvm::Expected<std::vector<Located<LoopRV>>> loops(const char *param);
  // A list of blocks (or block names) that are still in the function (cache_read's consumer_blocks,
  // blockize's target).
  llvm::Expected<std::vector<BlockRV>> blockList(const char *param);
  llvm::Expected<int64_t> integer(const char *param);
  // The index of a buffer among the block's reads (or writes), given as the index or, as TVM's
  // Python API takes it, the buffer's name, which the recorded trace prints as the index.
  llvm::Expected<int64_t> bufferIndex(const char *param, const ir::Block &block, bool isWrite);
  llvm::Expected<bool> boolean(const char *param);
  llvm::Expected<std::string> string(const char *param);
  // The RV a Name refers to.
  llvm::Expected<RV> resolve(const ir::TraceValue &name);

private:
  llvm::Error typeError(const char *param, const char *expected) const;
  // The block a name string gives, as TVM's Python API resolves it: a get_block step recorded
  // before this one, its result replacing the string in `value`.
  llvm::Expected<BlockRV> blockNamed(ir::TraceValue &value);

  Schedule &sch_;
  const ir::TraceStep &step_;
  std::map<std::string, ir::TraceValue> values_;
  std::map<std::string, size_t> &names_;  // trace names -> index in sch.bindings()
};

}  // namespace vtac::passes::schedule
