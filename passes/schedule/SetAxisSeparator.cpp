// set_axis_separator(block, buffer, axis_separators): the buffer the block reads or writes
// (`("read", k)`, `("write", k)` or its name) gets TVM's axis_separators, where flattening
// splits it into several physical axes (flatten-buffer keeps one dimension per group). Every
// use in the function, the allocation or the parameter, refers to the new buffer. TVM checks
// nothing of the separators; vtac requires them increasing and within the buffer's rank, as
// flattening needs them. A buffer a block declares by match_buffer is a subregion of another
// and cannot take separators (TVM's BufferIsSubregionError); one that is the source of a
// match_buffer is not supported (TVM gives the subregions separators too).
#include "BufferUtils.h"
#include "Primitive.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The separators, checked: integers, increasing, each between 0 and the rank.
llvm::Expected<std::vector<int64_t>> separatorsOf(StepArgs &args, size_t rank) {
  const TraceValue &list = args.value("axis_separators");
  SourceLoc at = args.at("axis_separators");
  if (list.kind != TraceValue::Kind::List) return diagnosticError(at, "set_axis_separator: axis_separators is a list of integers");
  std::vector<int64_t> separators;
  for (const TraceValue &item : list.items) {
    if (item.kind != TraceValue::Kind::Int)
      return diagnosticError(item.loc, "set_axis_separator: axis_separators is a list of integers");
    if (item.intValue < 0 || item.intValue > int64_t(rank) || (!separators.empty() && item.intValue <= separators.back()))
      return diagnosticError(item.loc, "set_axis_separator: the separator " + std::to_string(item.intValue) +
                                           " is not above the one before it and within the buffer's " +
                                           std::to_string(rank) + " dimensions");
    separators.push_back(item.intValue);
  }
  return separators;
}

}  // namespace

llvm::Expected<std::vector<RV>> applySetAxisSeparator(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer = bufferArgument(*path->back().as<BlockRealize>()->block, args, "buffer",
                                                    "set_axis_separator");
  if (!buffer) return buffer.takeError();
  llvm::Expected<std::vector<int64_t>> separators = separatorsOf(args, (*buffer)->rank());
  if (!separators) return separators.takeError();
  llvm::Expected<PrimFuncRef> func = sch.function(rv->func, args.stepLoc());
  if (!func) return func.takeError();
  std::string matchedBy, matchedIn;
  preOrderVisit((*func)->body, [&](const Node &node) {
    if (const auto *block = node.as<Block>())
      for (const MatchBufferRegion &match : block->matchBuffers) {
        if (match.buffer == *buffer) matchedBy = block->name;
        if (match.source.buffer == *buffer) matchedIn = block->name;
      }
  });
  if (!matchedBy.empty())
    return diagnosticError(args.at("buffer"), "set_axis_separator: the buffer '" + (*buffer)->name +
                                                  "' is a match_buffer of the block '" + matchedBy +
                                                  "', a subregion of another buffer");
  if (!matchedIn.empty())
    return diagnosticError(args.at("buffer"), "set_axis_separator: the buffer '" + (*buffer)->name +
                                                  "' is the source of a match_buffer in the block '" + matchedIn +
                                                  "' (not supported)");
  Buffer *copy = copyNode(**buffer);
  copy->axisSeparators = *separators;
  BufferRef separated(copy);
  PrimFunc *newFunc = copyNode(**func);
  for (auto &[param, bound] : newFunc->bufferMap)
    if (bound == *buffer) bound = separated;
  newFunc->body = replaceBuffers(newFunc->body, {{buffer->get(), separated}});
  sch.setFunction(rv->func, PrimFuncRef(newFunc));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
