#include "vta/CpuAccessRewrite.h"

#include <map>

#include "vta/VtaTarget.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class CpuAccessRewriter : public ir::StmtExprMutator {
public:
  // The pointers still to bind (parameters), in order of first use.
  std::vector<std::pair<ir::VarRef, ir::VarRef>> unbound;

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<ir::BufferLoad>();
    return ir::bufferLoad(viaPointer(load->buffer), load->indices, load->loc());
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<ir::BufferStore>();
    return ir::make<ir::BufferStore>(viaPointer(store->buffer), store->value, store->indices,
                                     store->loc());
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::Stmt visited = StmtExprMutator::visitAllocate(op);
    auto it = std::find_if(unbound.begin(), unbound.end(),
                           [&](const auto &entry) { return entry.first == op.bufferVar; });
    if (it == unbound.end()) return visited;
    const auto *alloc = visited.as<ir::Allocate>();
    ir::Stmt body = bind(*it, alloc->body);
    unbound.erase(it);
    ir::Allocate *copy = ir::copyNode(*alloc);
    copy->body = body;
    return ir::Stmt(copy);
  }

  static ir::Stmt bind(const std::pair<ir::VarRef, ir::VarRef> &entry, const ir::Stmt &body) {
    ir::Expr pointer = ir::make<ir::Call>(
        ir::DataType::handle(), "tir.call_extern",
        std::vector<ir::Expr>{ir::make<ir::StringImm>("VTABufferCPUPtr"), vta::commandHandle(),
                              ir::Expr(entry.first)});
    return ir::make<ir::LetStmt>(entry.second, pointer, body, body->loc());
  }

private:
  ir::BufferRef viaPointer(const ir::BufferRef &buffer) {
    auto cached = buffers_.find(buffer.get());
    if (cached != buffers_.end()) return cached->second;
    ir::VarRef data = buffer->data;
    auto it = std::find_if(unbound.begin(), unbound.end(),
                           [&](const auto &entry) { return entry.first == data; });
    ir::VarRef pointer;
    if (it != unbound.end()) {
      pointer = it->second;
    } else {
      pointer = data->pointer ? ir::make<ir::Var>(data->name + "_ptr", *data->pointer, data->loc())
                              : ir::makeVar(data->name + "_ptr", ir::DataType::handle(), data->loc());
      unbound.push_back({data, pointer});
    }
    ir::BufferRef rewritten = ir::make<ir::Buffer>(
        buffer->name, pointer, buffer->dtype, buffer->shape, buffer->strides, buffer->elemOffset,
        buffer->dataAlignment, buffer->offsetFactor, buffer->loc());
    buffers_[buffer.get()] = rewritten;
    return rewritten;
  }

  std::map<const ir::Buffer *, ir::BufferRef> buffers_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> cpuAccessRewrite(const ir::PrimFuncRef &func, PassContext &) {
  CpuAccessRewriter rewriter;
  ir::Stmt body = rewriter.visitStmt(func->body);
  for (auto it = rewriter.unbound.rbegin(); it != rewriter.unbound.rend(); ++it)
    body = CpuAccessRewriter::bind(*it, body);
  return withBody(func, body);
}

}  // namespace vtac::passes
