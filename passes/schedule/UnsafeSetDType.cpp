// unsafe_set_dtype(block, buffer_index, dtype): the buffer the block writes at buffer_index
// changes its element type, as TVM's primitive of that name does: its stores cast the value to
// the new type, its loads cast back to the old one. It must be allocated by a block.
//
// One difference from TVM: when the new type is an integer type that holds every value of the
// old one (a widening, e.g. int8 -> int32), a load's round trip `Cast(new, Cast(old, load))` is
// folded to the load, because every value the buffer holds is a widened old-typed value. That is
// how a consumer's inline `T.Cast("int32", b[...])` of a widened buffer becomes a plain int32
// read, which VTA's ALU can take (an int8 accumulator buffer cannot be allocated).
#include "BufferUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

bool holdsEveryValueOf(DataType wide, DataType narrow) {
  if (!wide.isIntOrUInt() || !narrow.isIntOrUInt() || wide.lanes() != narrow.lanes()) return false;
  if (wide.isInt() == narrow.isInt()) return wide.bits() >= narrow.bits();
  return wide.isInt() && wide.bits() > narrow.bits();  // uint8 fits int16 and wider
}

class DTypeSetter : public StmtExprMutator {
public:
  DTypeSetter(const Buffer *old, BufferRef retyped) : old_(old), retyped_(std::move(retyped)) {}

  Stmt visitBufferStore(const BufferStore &op) override {
    Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<BufferStore>();
    if (store->buffer.get() != old_) return visited;
    auto *copy = copyNode(*store);
    copy->buffer = retyped_;
    copy->value = castExpr(retyped_->dtype, copy->value, store->loc());
    return Stmt(copy);
  }
  Expr visitBufferLoad(const BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<BufferLoad>();
    if (load->buffer.get() != old_) return visited;
    return make<Cast>(old_->dtype, make<BufferLoad>(retyped_, load->indices, load->loc()), load->loc());
  }
  Expr visitCast(const Cast &op) override {
    Expr visited = StmtExprMutator::visitCast(op);
    const auto *outer = visited.as<Cast>();
    const auto *inner = outer ? outer->value.as<Cast>() : nullptr;
    const auto *load = inner ? inner->value.as<BufferLoad>() : nullptr;
    if (load && load->buffer == retyped_ && outer->dtype == retyped_->dtype &&
        holdsEveryValueOf(retyped_->dtype, old_->dtype))
      return inner->value;
    return visited;
  }

private:
  const Buffer *old_;
  BufferRef retyped_;
};

}  // namespace

llvm::Error unsafeSetDType(Schedule &sch, const Located<BlockRV> &writer, const Located<int64_t> &bufferIndex,
                           const Located<std::string> &dtypeName) {
  const BlockRV &rv = writer.value;
  std::optional<DataType> dtype = DataType::parse(dtypeName.value);
  if (!dtype || dtype->isVoid() || dtype->isHandle())
    return diagnosticError(dtypeName.at, "unsafe_set_dtype: '" + dtypeName.value + "' is not a data type");
  llvm::Expected<StmtPath> path = sch.findBlock(rv, writer.at);
  if (!path) return path.takeError();
  const Block &block = *path->back().as<BlockRealize>()->block;
  llvm::Expected<BufferRef> buffer = accessedBuffer(block, bufferIndex.value, true, bufferIndex.at);
  if (!buffer) return buffer.takeError();
  llvm::Expected<PrimFuncRef> func = sch.function(rv.func, writer.at);
  if (!func) return func.takeError();
  if (!allocatedByBlock((*func)->body, buffer->get()))
    return diagnosticError(bufferIndex.at, "unsafe_set_dtype: the buffer '" + (*buffer)->name +
                                               "' is not allocated by a block (a parameter's type is the "
                                               "caller's)");
  if ((*buffer)->dtype == *dtype) return llvm::Error::success();
  auto *copy = copyNode(**buffer);
  copy->dtype = *dtype;
  copy->data = make<Var>((*buffer)->data->name, PointerType{*dtype, (*buffer)->scope()});
  BufferRef retyped(copy);
  Stmt body = DTypeSetter(buffer->get(), retyped).visitStmt((*func)->body);
  // regions, allocations and match_buffers name the retyped buffer too
  sch.setBody(rv.func, replaceBuffers(body, {{buffer->get(), retyped}}));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
