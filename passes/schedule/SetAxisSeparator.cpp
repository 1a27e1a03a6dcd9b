// set_axis_separator(block, buffer, axis_separators): the buffer the block reads or writes
// (`("read", k)`, `("write", k)` or its name) gets TVM's axis_separators, where flattening
// splits it into several physical axes (flatten-buffer keeps one dimension per group). Every
// use in the function, the allocation or the parameter, refers to the new buffer. TVM checks
// nothing of the separators; vtac requires them increasing and within the buffer's rank, as
// flattening needs them. A buffer a block declares by match_buffer is a subregion of another
// and cannot take separators (TVM's BufferIsSubregionError); one that is the source of a
// match_buffer is not supported (TVM gives the subregions separators too).
#include "BufferUtils.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Error setAxisSeparator(Schedule &sch, const Located<BlockRV> &block, const Located<BufferAccess> &access,
                             const std::vector<Located<int64_t>> &axisSeparators) {
  const BlockRV &rv = block.value;
  llvm::Expected<StmtPath> path = sch.findBlock(rv, block.at);
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer =
      accessedBuffer(*path->back().as<BlockRealize>()->block, access.value.index, access.value.isWrite, access.at);
  if (!buffer) return buffer.takeError();
  // Increasing, each between 0 and the rank.
  int64_t rank = int64_t((*buffer)->rank());
  std::vector<int64_t> separators;
  for (const Located<int64_t> &separator : axisSeparators) {
    if (separator.value < 0 || separator.value > rank || (!separators.empty() && separator.value <= separators.back()))
      return diagnosticError(separator.at, "set_axis_separator: the separator " + std::to_string(separator.value) +
                                               " is not above the one before it and within the buffer's " +
                                               std::to_string(rank) + " dimensions");
    separators.push_back(separator.value);
  }
  llvm::Expected<PrimFuncRef> func = sch.function(rv.func, block.at);
  if (!func) return func.takeError();
  std::string matchedBy, matchedIn;
  preOrderVisit((*func)->body, [&](const Node &node) {
    if (const auto *matching = node.as<Block>())
      for (const MatchBufferRegion &match : matching->matchBuffers) {
        if (match.buffer == *buffer) matchedBy = matching->name;
        if (match.source.buffer == *buffer) matchedIn = matching->name;
      }
  });
  if (!matchedBy.empty())
    return diagnosticError(access.at, "set_axis_separator: the buffer '" + (*buffer)->name +
                                         "' is a match_buffer of the block '" + matchedBy +
                                         "', a subregion of another buffer");
  if (!matchedIn.empty())
    return diagnosticError(access.at, "set_axis_separator: the buffer '" + (*buffer)->name +
                                         "' is the source of a match_buffer in the block '" + matchedIn +
                                         "' (not supported)");
  Buffer *copy = copyNode(**buffer);
  copy->axisSeparators = separators;
  BufferRef separated(copy);
  PrimFunc *newFunc = copyNode(**func);
  for (auto &[param, bound] : newFunc->bufferMap)
    if (bound == *buffer) bound = separated;
  newFunc->body = replaceBuffers(newFunc->body, {{buffer->get(), separated}});
  sch.setFunction(rv.func, PrimFuncRef(newFunc));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
