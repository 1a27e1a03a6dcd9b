// Writes trace steps as a person writes a schedule def: `x = sch.primitive(args)`, results bound
// to fresh names of one function's namespace, so that the schedules of several functions share
// one trace.
#pragma once

#include <string>
#include <vector>

#include "vtac/ir/Trace.h"

namespace vtac::passes::autoschedule {

using ir::TraceValue;

class TraceWriter {
public:
  // Every step is located at `at`, the scheduled function: a step that fails is reported there.
  TraceWriter(ir::Trace &trace, std::string prefix, ir::SourceLoc at)
      : trace_(trace), prefix_(std::move(prefix)), at_(at) {}

  // sch.get_block(name, func_name=func)
  std::string getBlock(const std::string &name, const std::string &func) {
    return one("get_block", {positional(TraceValue::ofString(name)), keyword("func_name", TraceValue::ofString(func))});
  }
  // sch.get_loops(block) bound to `count` names
  std::vector<std::string> getLoops(const std::string &block, size_t count) {
    return step("get_loops", {rv(block)}, count);
  }
  // sch.get_loops(block)[index]
  std::string getLoop(const std::string &block, int64_t index) {
    std::string name = fresh();
    ir::TraceStep s{"get_loops", {rv(block)}, {name}, false, index, at_, std::nullopt};
    trace_.steps.push_back(std::move(s));
    return name;
  }
  // sch.split(loop, factors=[None, inner])
  std::vector<std::string> split(const std::string &loop, int64_t inner) {
    TraceValue factors = TraceValue::ofList({TraceValue::none(), TraceValue::ofInt(inner)});
    return step("split", {rv(loop), keyword("factors", factors)}, 2);
  }
  void reorder(const std::vector<std::string> &loops) {
    std::vector<ir::TraceArgument> args;
    for (const std::string &loop : loops) args.push_back(rv(loop));
    step("reorder", args, 0);
  }
  void computeAt(const std::string &block, const std::string &loop, bool preserveUnitLoops = false) {
    std::vector<ir::TraceArgument> args{rv(block), rv(loop)};
    if (preserveUnitLoops) args.push_back(keyword("preserve_unit_loops", TraceValue::ofBool(true)));
    step("compute_at", args, 0);
  }
  void bind(const std::string &loop, const std::string &thread) {
    step("bind", {rv(loop), positional(TraceValue::ofString(thread))}, 0);
  }
  void setScope(const std::string &block, const std::string &scope) {
    step("set_scope", {rv(block), positional(TraceValue::ofInt(0)), positional(TraceValue::ofString(scope))}, 0);
  }
  // sch.cache_read(block, index, scope), with consumer_blocks=[block] when `onlyThisBlock` (other
  // readers of the buffer keep reading it)
  std::string cacheRead(const std::string &block, int64_t readIndex, const std::string &scope, bool onlyThisBlock = false) {
    std::vector<ir::TraceArgument> args{rv(block), positional(TraceValue::ofInt(readIndex)),
                                        positional(TraceValue::ofString(scope))};
    if (onlyThisBlock) args.push_back(keyword("consumer_blocks", TraceValue::ofList({TraceValue::ofName(block)})));
    return one("cache_read", args);
  }
  void unsafeSetDType(const std::string &block, const std::string &dtype) {
    step("unsafe_set_dtype", {rv(block), positional(TraceValue::ofInt(0)), positional(TraceValue::ofString(dtype))}, 0);
  }
  std::string decomposeReduction(const std::string &block, const std::string &loop) {
    return one("decompose_reduction", {rv(block), rv(loop)});
  }
  void annotate(const std::string &loop, const std::string &key) {
    step("annotate", {rv(loop), positional(TraceValue::ofString(key)), positional(TraceValue::ofInt(1))}, 0);
  }
  void tensorize(const std::string &loop, const std::string &intrinsic) {
    step("tensorize", {rv(loop), positional(TraceValue::ofString(intrinsic))}, 0);
  }

private:
  static ir::TraceArgument positional(TraceValue value) { return {"", std::move(value)}; }
  static ir::TraceArgument keyword(std::string key, TraceValue value) { return {std::move(key), std::move(value)}; }
  static ir::TraceArgument rv(const std::string &name) { return positional(TraceValue::ofName(name)); }

  std::string fresh() { return prefix_ + std::to_string(next_++); }
  std::string one(const char *primitive, std::vector<ir::TraceArgument> args) {
    return step(primitive, std::move(args), 1).front();
  }
  std::vector<std::string> step(const char *primitive, std::vector<ir::TraceArgument> args, size_t results) {
    ir::TraceStep s;
    s.primitive = primitive;
    s.arguments = std::move(args);
    for (size_t i = 0; i < results; ++i) s.results.push_back(fresh());
    s.resultsAreList = results > 1;
    s.loc = at_;
    trace_.steps.push_back(s);
    return s.results;
  }

  ir::Trace &trace_;
  std::string prefix_;
  ir::SourceLoc at_;
  int next_ = 0;
};

}  // namespace vtac::passes::autoschedule
