#include "vtac/codegen/HostLowering.h"

#include "vtac/codegen/ParallelOutlining.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/EntryBinding.h"
#include "vtac/passes/HostLowered.h"
#include "vtac/passes/PassSupport.h"
#include "vtac/passes/Vta.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

// A block left in `body`: code generation needs flat TIR.
llvm::Error checkLowered(const ir::Stmt &body) {
  const ir::BlockRealize *block = nullptr;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (!block) block = node.as<ir::BlockRealize>();
  });
  if (!block) return llvm::Error::success();
  // An implicit root block has no location of its own: point at its first statement.
  ir::SourceLoc loc = block->block->loc();
  ir::preOrderVisit(block->block->body, [&](const ir::Node &node) {
    if (!loc.isKnown()) loc = node.loc();
  });
  return ir::diagnosticError(loc, "block '" + block->block->name + "' is not lowered: code generation needs flat TIR "
                                  "(lower it first: --passes=tir-lower, or --passes=vta-lower for a VTA schedule)");
}

// Each micro-kernel scope of a body, as declare-micro-kernels left it (its push function
// checked, its closure the scope's node), moved out as a MicroKernel of the function.
class MicroKernelOutlining : public ir::StmtExprMutator {
public:
  explicit MicroKernelOutlining(HostFunction &function) : function_(function) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "coproc_uop_scope") return StmtExprMutator::visitAttrStmt(op);
    const ir::Call *closure = passes::declaredMicroKernelClosure(op);
    if (!closure) {
      if (!error_)
        error_ = ir::diagnosticError(op.loc(), "a micro-kernel that declares no closure: run host-lower "
                                               "(declare-micro-kernels) before code generation");
      return ir::Stmt(&op);
    }
    MicroKernel kernel{op.value.as<ir::StringImm>()->value, op.body, {}};
    for (const ir::Expr &var : closure->args) kernel.closure.push_back(ir::VarRef(var.as<ir::Var>()));
    function_.kernels.push_back(std::move(kernel));
    return ir::make<ir::Evaluate>(
        ir::make<ir::Call>(DataType::int32(), hostop::kPushMicroKernel,
                           std::vector<ir::Expr>{ir::intImm(int64_t(function_.kernels.size() - 1))}), op.loc());
  }

private:
  HostFunction &function_;
  llvm::Error error_ = llvm::Error::success();
};

}  // namespace

llvm::Expected<HostFunction> lowerForHost(const ir::PrimFunc &func, const std::string &name,
                                          const std::string &symbol) {
  HostFunction function;
  function.name = name;
  function.symbol = symbol;
  function.loc = func.loc();
  bool vta = passes::usesVta(func.body);
  if (vta) {
    function.commandHandle = passes::boundCommandHandle(passes::bodyWithinEntryChecks(func.body));
    if (!function.commandHandle)
      return ir::diagnosticError(func.loc(), "function '" + name + "' drives VTA but binds no command handle at entry: "
                                             "run host-lower (combine-context-call) before code generation");
  }

  if (llvm::Error error = checkLowered(func.body)) return error;
  if (!ir::isEntryBound(func))
    return ir::diagnosticError(func.loc(), "function '" + name + "' has no entry checks: run host-lower "
                                           "(bind-entry-parameters) before code generation");
  MicroKernelOutlining kernels(function);
  ir::Stmt body = kernels.visitStmt(func.body);
  if (llvm::Error error = kernels.takeError()) return error;
  auto outlined = outlineParallelLoops(body, function.tasks);
  if (!outlined) return outlined.takeError();
  body = *outlined;

  // bind-entry-parameters made each buffer parameter a DLTensor handle, in bufferMap.
  bool noAlias = !vta && passes::promisesNoAlias(func);
  for (const ir::VarRef &param : func.params) {
    HostParam host;
    host.var = param;
    host.buffer = func.bufferOf(param);
    host.onVta = vta && host.buffer;
    function.params.push_back(host);
    // Two parameters over one data variable share it, and so alias each other.
    if (host.buffer && noAlias && !function.isDistinctData(*host.buffer->data))
      function.distinctData.push_back(host.buffer->data);
  }
  function.body = body;
  return function;
}

std::set<std::string> calledSymbols(const HostFunction &graph) {
  std::set<std::string> callees;
  ir::preOrderVisit(graph.body, [&](const ir::Node &node) {
    auto *call = node.as<ir::Call>();
    if (call && call->op == hostop::kCallChecked && !call->args.empty())
      if (auto *symbol = call->args[0].as<ir::StringImm>()) callees.insert(symbol->value);
  });
  return callees;
}

std::string writtenName(const std::string &callee) {
  const char *intrinsic = passes::vtaIntrinsicLoweredTo(callee);
  return intrinsic ? intrinsic : callee;
}

}  // namespace vtac::codegen
