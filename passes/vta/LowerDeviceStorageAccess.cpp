#include "vta/LowerDeviceStorageAccess.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class SramAccessLowerer : public FirstErrorMutator {
public:
  explicit SramAccessLowerer(const ::vta::Config &config) : config_(config) {}

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    auto sram = vta::sramOf(config_, op.scope());
    if (!sram) return StmtExprMutator::visitAllocate(op);
    int64_t elements = 1;
    for (const ir::Expr &extent : op.extents) {
      auto value = ir::asConstInt(extent);
      if (!value) {
        fail(op, "on-chip buffer '" + op.bufferVar->name + "' has a size that is not a constant");
        return ir::Stmt(&op);
      }
      elements *= *value;
    }
    int64_t bytes = elements * op.dtype.bytes();
    if (bytes > sram->bytes)
      fail(op, "on-chip buffer '" + op.bufferVar->name + "' needs " + std::to_string(bytes) +
                   " bytes; " + sram->scope + " holds " + std::to_string(sram->bytes));
    return visitStmt(op.body);
  }

  ir::Stmt visitDeclBuffer(const ir::DeclBuffer &op) override {
    if (vta::sramOf(config_, op.buffer->scope())) return visitStmt(op.body);
    return StmtExprMutator::visitDeclBuffer(op);
  }

  ir::Expr visitCall(const ir::Call &op) override {
    const auto *data = op.op == "tir.tvm_access_ptr" && op.args.size() == 5 ? op.args[1].as<ir::Var>() : nullptr;
    auto sram = data && data->pointer ? vta::sramOf(config_, data->pointer->scope) : std::nullopt;
    if (!sram) return StmtExprMutator::visitCall(op);
    if (op.dtype.isHandle()) {
      fail(op, "on-chip buffer '" + data->name + "' is not addressable: take its access_ptr as int32");
      return ir::Expr(&op);
    }
    int64_t tileBits = sram->tileScalars * sram->scalar.bits();
    int64_t perTile = tileBits / op.args[0]->dtype.bits();
    auto index = ir::divideExactly(visitExpr(op.args[2]), perTile);
    if (!index) {
      fail(op, "the offset into on-chip buffer '" + data->name + "' is not a whole number of tiles");
      return ir::Expr(&op);
    }
    return ir::castExpr(op.dtype, *index);
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    checkCpuAccess(op, *op.buffer);
    return StmtExprMutator::visitBufferLoad(op);
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    checkCpuAccess(op, *op.buffer);
    return StmtExprMutator::visitBufferStore(op);
  }

private:
  void checkCpuAccess(const ir::Node &at, const ir::Buffer &buffer) {
    if (vta::sramOf(config_, buffer.scope()))
      fail(at, "the CPU cannot access on-chip buffer '" + buffer.name +
                   "' (a copy or ALU stage was not lowered to VTA)");
  }

  const ::vta::Config &config_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerDeviceStorageAccess(const ir::PrimFuncRef &func,
                                                         PassContext &context) {
  SramAccessLowerer lowerer(context.vta);
  return mutateBody(func, lowerer, func->loc());
}

}  // namespace vtac::passes
