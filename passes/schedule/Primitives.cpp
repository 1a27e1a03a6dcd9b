// The primitives and their signatures (names, order and defaults of TVM's tir.Schedule methods,
// which are also what the trace prints), and the decoding of a step's arguments into the call of
// a typed primitive (Primitives.h).
#include "Primitive.h"

namespace vtac::passes::schedule {

namespace {

using ir::TraceValue;
using Results = PrimitiveSpec::Results;

ParamSpec required(const char *name) { return {name, std::nullopt}; }
ParamSpec optional(const char *name, TraceValue value) { return {name, std::move(value)}; }
ParamSpec variadic(const char *name) { return {name, std::nullopt, true}; }

llvm::Expected<std::vector<RV>> noResults(llvm::Error error) {
  if (error) return error;
  return std::vector<RV>{};
}

// compute_inline, reverse_compute_inline.
template <llvm::Error (*primitive)(Schedule &, const Located<BlockRV> &)>
llvm::Expected<std::vector<RV>> decodeBlockStep(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  return noResults(primitive(sch, {*block, args.at("block")}));
}

// compute_at, reverse_compute_at.
template <llvm::Error (*primitive)(Schedule &, const Located<BlockRV> &, const Located<ComputeLocation> &, bool,
                                   const Located<int64_t> &)>
llvm::Expected<std::vector<RV>> decodeComputeAtStep(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<ComputeLocation> loop = args.computeLocation("loop");
  if (!loop) return loop.takeError();
  llvm::Expected<bool> preserveUnitLoops = args.boolean("preserve_unit_loops");
  if (!preserveUnitLoops) return preserveUnitLoops.takeError();
  llvm::Expected<int64_t> index = args.integer("index");
  if (!index) return index.takeError();
  return noResults(primitive(sch, {*block, args.at("block")}, {*loop, args.at("loop")}, *preserveUnitLoops,
                             {*index, args.at("index")}));
}

const std::vector<PrimitiveSpec> &allPrimitives() {
  static const std::vector<PrimitiveSpec> primitives = {
      {"get_block", {required("name"), optional("func_name", TraceValue::none())}, Results::One, applyGetBlock},
      {"get_loops", {required("block")}, Results::List, applyGetLoops},
      {"get_child_blocks", {{"block_or_loop", std::nullopt, false, false, true}}, Results::List, applyGetChildBlocks},
      {"get_producers", {required("block")}, Results::List, applyGetProducers},
      {"get_consumers", {required("block")}, Results::List, applyGetConsumers},
      {"split",
       {required("loop"), required("factors"), optional("preserve_unit_iters", TraceValue::ofBool(true)),
        optional("disable_predication", TraceValue::ofBool(false))},
       Results::List, applySplit},
      {"fuse", {variadic("loops"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One, applyFuse},
      {"merge", {variadic("loops")}, Results::One, applyMerge},
      {"reorder", {variadic("ordered_loops")}, Results::None, applyReorder},
      {"add_unit_loop", {required("block_or_loop")}, Results::One, applyAddUnitLoop},
      {"parallel", {required("loop")}, Results::None, applyParallel},
      {"vectorize", {required("loop")}, Results::None, applyVectorize},
      {"unroll", {required("loop")}, Results::None, applyUnroll},
      {"bind", {required("loop"), required("thread_axis")}, Results::None, applyBind},
      {"annotate", {required("block_or_loop"), required("ann_key"), required("ann_val")}, Results::None, applyAnnotate},
      {"unannotate", {required("block_or_loop"), required("ann_key")}, Results::None, applyUnannotate},
      {"set_scope", {required("block"), required("buffer_index"), required("storage_scope")}, Results::None, applySetScope},
      {"unsafe_set_dtype", {required("block"), required("buffer_index"), required("dtype")}, Results::None,
       applyUnsafeSetDType},
      {"compute_inline", {required("block")}, Results::None, decodeBlockStep<computeInline>},
      {"reverse_compute_inline", {required("block")}, Results::None, decodeBlockStep<reverseComputeInline>},
      {"cache_read",
       {required("block"), required("read_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, applyCacheRead},
      {"cache_write",
       {required("block"), required("write_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, applyCacheWrite},
      {"compute_at",
       {required("block"), required("loop"), optional("preserve_unit_loops", TraceValue::ofBool(false)),
        optional("index", TraceValue::ofInt(-1))},
       Results::None, decodeComputeAtStep<computeAt>},
      {"reverse_compute_at",
       {required("block"), required("loop"), optional("preserve_unit_loops", TraceValue::ofBool(false)),
        optional("index", TraceValue::ofInt(-1))},
       Results::None, decodeComputeAtStep<reverseComputeAt>},
      {"decompose_reduction", {required("block"), required("loop")}, Results::One, applyDecomposeReduction},
      {"blockize", {required("target"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One,
       applyBlockize},
      {"tensorize",
       {required("block_or_loop"), required("tensor_intrin"), optional("preserve_unit_iters", TraceValue::ofBool(true))},
       Results::None, applyTensorize},
      {"rfactor", {required("loop"), optional("factor_axis", TraceValue::ofInt(0))}, Results::One, applyRFactor},
      {"transform_layout",
       {required("block"), required("buffer"), required("index_map"), optional("pad_value", TraceValue::none()),
        optional("assume_injective_transform", TraceValue::ofBool(false))},
       Results::None, applyTransformLayout},
      {"set_axis_separator", {required("block"), required("buffer"), required("axis_separators")}, Results::None,
       applySetAxisSeparator},
      {"storage_align",
       {required("block"), required("buffer_index"), required("axis"), required("factor"), required("offset")},
       Results::None, applyStorageAlign},
      {"sample_categorical",
       {required("candidates"), required("probs"), optional("decision", TraceValue::none())},
       Results::One, applySampleCategorical},
      {"sample_perfect_tile",
       {required("loop"), required("n"), optional("max_innermost_factor", TraceValue::ofInt(16)),
        optional("decision", TraceValue::none())},
       Results::List, applySamplePerfectTile},
      {"sample_compute_location", {required("block"), optional("decision", TraceValue::none())}, Results::One,
       applySampleComputeLocation},
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
