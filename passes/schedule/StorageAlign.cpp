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

llvm::Error storageAlign(Schedule &sch, const Located<BlockRV> &rv, const Located<int64_t> &bufferIndex,
                         const Located<int64_t> &axis, const Located<int64_t> &factor, const Located<int64_t> &offset) {
  llvm::Expected<StmtPath> path = sch.findBlock(rv.value, rv.at);
  if (!path) return path.takeError();
  const Block &block = *path->back().as<BlockRealize>()->block;
  llvm::Expected<BufferRef> buffer = accessedBuffer(block, bufferIndex.value, true, bufferIndex.at);
  if (!buffer) return buffer.takeError();
  if (factor.value <= 0)
    return diagnosticError(factor.at, "storage_align: the factor must be positive, not " + std::to_string(factor.value));
  int64_t rank = int64_t((*buffer)->rank());
  int64_t alignedAxis = axis.value;
  if (alignedAxis < -rank || alignedAxis >= rank)
    return diagnosticError(axis.at, "storage_align: axis " + std::to_string(alignedAxis) + " is out of range for '" +
                                        (*buffer)->name + "' of rank " + std::to_string(rank) + " (it must lie in [" +
                                        std::to_string(-rank) + ", " + std::to_string(rank) + "))");
  if (alignedAxis < 0) alignedAxis += rank;
  llvm::Expected<PrimFuncRef> func = sch.function(rv.value.func, rv.at);
  if (!func) return func.takeError();
  if (!allocatedByBlock((*func)->body, buffer->get()))
    return diagnosticError(bufferIndex.at, "storage_align: the buffer '" + (*buffer)->name +
                                               "' is not allocated by a block (a parameter or a match_buffer)");
  const AttrValue *old = block.annotations.find("buffer_dim_align");
  if (old && !isAlignAnnotation(*old))
    return diagnosticError(rv.at, "storage_align: the block '" + block.name +
                                      "' has a buffer_dim_align annotation that is not a list of "
                                      "[buffer_index, axis, factor, offset] lists");
  AttrValue::Array aligns = old ? old->asArray() : AttrValue::Array{};
  return editAnnotations(sch, {rv.value, rv.at}, [&](AttrMap &annotations, const std::string &) {
    AttrValue::Array entry{AttrValue(bufferIndex.value), AttrValue(alignedAxis), AttrValue(factor.value),
                           AttrValue(offset.value)};
    bool replaced = false;
    for (AttrValue &existing : aligns)
      if (existing.asArray()[0].asInt() == bufferIndex.value && existing.asArray()[1].asInt() == alignedAxis) {
        existing = AttrValue(entry);
        replaced = true;
      }
    if (!replaced) aligns.push_back(AttrValue(entry));
    annotations.set("buffer_dim_align", AttrValue(std::move(aligns)));
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
