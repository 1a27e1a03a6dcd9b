// The primitives and their signatures (names, order and defaults of TVM's tir.Schedule methods,
// which are also what the trace prints).
#include "Primitive.h"

namespace vtac::passes::schedule {

namespace {

using ir::TraceValue;
using Results = PrimitiveSpec::Results;

ParamSpec required(const char *name) { return {name, std::nullopt}; }
ParamSpec optional(const char *name, TraceValue value) { return {name, std::move(value)}; }
ParamSpec variadic(const char *name) { return {name, std::nullopt, true}; }

const std::vector<PrimitiveSpec> &allPrimitives() {
  static const std::vector<PrimitiveSpec> primitives = {
      {"get_block", {required("name"), optional("func_name", TraceValue::none())}, Results::One, applyGetBlock},
      {"get_loops", {required("block")}, Results::List, applyGetLoops},
      {"split",
       {required("loop"), required("factors"), optional("preserve_unit_iters", TraceValue::ofBool(true)),
        optional("disable_predication", TraceValue::ofBool(false))},
       Results::List, applySplit},
      {"fuse", {variadic("loops"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One, applyFuse},
      {"reorder", {variadic("ordered_loops")}, Results::None, applyReorder},
  };
  return primitives;
}

}  // namespace

const PrimitiveSpec *findPrimitive(const std::string &name) {
  for (const PrimitiveSpec &spec : allPrimitives())
    if (name == spec.name) return &spec;
  return nullptr;
}

}  // namespace vtac::passes::schedule
