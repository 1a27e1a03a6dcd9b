// storage_align(block, buffer_index, axis, factor, offset): asks that the stride of `axis` of
// the buffer the block writes be `factor * k + offset`; recorded as TVM does, as the block
// annotation "buffer_dim_align" (one [buffer_index, axis, factor, offset] list per aligned axis,
// a later request for the same buffer and axis replacing the earlier one). TVM's checks, in its
// order: the factor is positive, the axis lies in [-rank, rank) (a negative one counts from the
// end and is recorded normalized), the buffer is allocated by a block (a parameter's or a
// match_buffer's layout is not the schedule's to change), and an existing annotation is a list
// of 4-integer lists.
#include "Annotation.h"
#include "BufferUtils.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

bool isAlignEntry(const AttrValue &value) {
  if (!value.isArray() || value.asArray().size() != 4) return false;
  const AttrValue::Array &fields = value.asArray();
  return std::all_of(fields.begin(), fields.end(), [](const AttrValue &field) { return field.isInt(); });
}

bool isAlignAnnotation(const AttrValue &value) {
  return value.isArray() && std::all_of(value.asArray().begin(), value.asArray().end(), isAlignEntry);
}

}  // namespace

llvm::Expected<std::vector<RV>> applyStorageAlign(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  std::vector<int64_t> values;
  for (const char *param : {"buffer_index", "axis", "factor", "offset"}) {
    llvm::Expected<int64_t> value = args.integer(param);
    if (!value) return value.takeError();
    values.push_back(*value);
  }
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  const Block &block = *path->back().as<BlockRealize>()->block;
  llvm::Expected<BufferRef> buffer = accessedBuffer(block, values[0], true, args.at("buffer_index"));
  if (!buffer) return buffer.takeError();
  if (values[2] <= 0)
    return diagnosticError(args.at("factor"), "storage_align: the factor must be positive, not " + std::to_string(values[2]));
  int64_t rank = int64_t((*buffer)->rank());
  if (values[1] < -rank || values[1] >= rank)
    return diagnosticError(args.at("axis"), "storage_align: axis " + std::to_string(values[1]) + " is out of range for '" +
                                                (*buffer)->name + "' of rank " + std::to_string(rank) + " (it must lie in [" +
                                                std::to_string(-rank) + ", " + std::to_string(rank) + "))");
  if (values[1] < 0) values[1] += rank;
  llvm::Expected<PrimFuncRef> func = sch.function(rv->func, args.stepLoc());
  if (!func) return func.takeError();
  if (!allocatedByBlock((*func)->body, buffer->get()))
    return diagnosticError(args.at("buffer_index"), "storage_align: the buffer '" + (*buffer)->name +
                                                        "' is not allocated by a block (a parameter or a match_buffer)");
  const AttrValue *old = block.annotations.find("buffer_dim_align");
  if (old && !isAlignAnnotation(*old))
    return diagnosticError(args.at("block"), "storage_align: the block '" + block.name +
                                                 "' has a buffer_dim_align annotation that is not a list of "
                                                 "[buffer_index, axis, factor, offset] lists");
  AttrValue::Array aligns = old ? old->asArray() : AttrValue::Array{};
  return editAnnotations(sch, args, "block", [&](AttrMap &annotations, const std::string &) {
    AttrValue::Array entry{AttrValue(values[0]), AttrValue(values[1]), AttrValue(values[2]), AttrValue(values[3])};
    bool replaced = false;
    for (AttrValue &existing : aligns)
      if (existing.asArray()[0].asInt() == values[0] && existing.asArray()[1].asInt() == values[1]) {
        existing = AttrValue(entry);
        replaced = true;
      }
    if (!replaced) aligns.push_back(AttrValue(entry));
    annotations.set("buffer_dim_align", AttrValue(std::move(aligns)));
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
