// storage_align(block, buffer_index, axis, factor, offset): asks that the stride of `axis` of
// the buffer the block writes be `factor * k + offset`; recorded as TVM does, as the block
// annotation "buffer_dim_align" (one [buffer_index, axis, factor, offset] list per aligned axis,
// a later request for the same buffer and axis replacing the earlier one).
#include "Annotation.h"
#include "BufferUtils.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

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
  llvm::Expected<BufferRef> buffer =
      accessedBuffer(*path->back().as<BlockRealize>()->block, values[0], true, args.at("buffer_index"));
  if (!buffer) return buffer.takeError();
  if (values[1] < 0 || values[1] >= int64_t((*buffer)->rank()))
    return diagnosticError(args.at("axis"), "storage_align: axis " + std::to_string(values[1]) + " is out of range for '" +
                                                (*buffer)->name + "' of rank " + std::to_string((*buffer)->rank()));
  if (values[2] <= 0)
    return diagnosticError(args.at("factor"), "storage_align: the factor must be positive");
  return editAnnotations(sch, args, "block", [&](AttrMap &annotations, const std::string &) {
    AttrValue::Array aligns;
    if (const AttrValue *old = annotations.find("buffer_dim_align"); old && old->isArray()) aligns = old->asArray();
    AttrValue::Array entry{AttrValue(values[0]), AttrValue(values[1]), AttrValue(values[2]), AttrValue(values[3])};
    bool replaced = false;
    for (AttrValue &existing : aligns)
      if (existing.isArray() && existing.asArray().size() == 4 && existing.asArray()[0].asInt() == values[0] &&
          existing.asArray()[1].asInt() == values[1]) {
        existing = AttrValue(entry);
        replaced = true;
      }
    if (!replaced) aligns.push_back(AttrValue(entry));
    annotations.set("buffer_dim_align", AttrValue(std::move(aligns)));
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
