#include "vtac/codegen/HostLowering.h"

#include "vtac/codegen/EntryChecks.h"
#include "vtac/codegen/ParallelOutlining.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"
#include "vtac/passes/Vta.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

// Each micro-kernel scope of a body, outlined as a MicroKernel of the function; a block left in
// the body is an error.
class MicroKernelOutlining : public ir::StmtExprMutator {
public:
  explicit MicroKernelOutlining(HostFunction &function) : function_(function) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "coproc_uop_scope") return StmtExprMutator::visitAttrStmt(op);
    auto *push = op.value.as<ir::StringImm>();
    if (!push || (push->value != "VTAPushGEMMOp" && push->value != "VTAPushALUOp")) {
      fail(op.loc(), "coproc_uop_scope needs \"VTAPushGEMMOp\" or \"VTAPushALUOp\" as its value");
      return ir::Stmt(&op);
    }
    if (insideKernel_) {
      fail(op.loc(), "a coproc_uop_scope inside another micro-kernel");
      return ir::Stmt(&op);
    }
    insideKernel_ = true;
    ir::Stmt body = visitStmt(op.body);
    insideKernel_ = false;
    MicroKernel kernel{push->value, body, {}};
    for (const ir::VarRef &var : ir::undefinedVars(body)) {
      if (var->dtype.isHandle() || !var->dtype.isScalar()) {
        fail(op.loc(), "micro-kernel reads '" + var->name + "' (" + var->dtype.str() +
                           "): only scalar variables can be captured in its closure");
        return ir::Stmt(&op);
      }
      kernel.closure.push_back(var);
    }
    function_.kernels.push_back(std::move(kernel));
    return ir::make<ir::Evaluate>(
        ir::make<ir::Call>(DataType::int32(), hostop::kPushMicroKernel,
                           std::vector<ir::Expr>{ir::intImm(int64_t(function_.kernels.size() - 1))}), op.loc());
  }

  ir::Stmt visitBlockRealize(const ir::BlockRealize &op) override {
    // An implicit root block has no location of its own: point at its first statement.
    ir::SourceLoc loc = op.block->loc();
    ir::preOrderVisit(op.block->body, [&](const ir::Node &node) {
      if (!loc.isKnown()) loc = node.loc();
    });
    fail(loc, "block '" + op.block->name + "' is not lowered: code generation needs flat TIR (lower it first: "
              "--passes=tir-lower, or --passes=vta-lower for a VTA schedule)");
    return ir::Stmt(&op);
  }

private:
  void fail(ir::SourceLoc loc, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(loc, message);
  }

  HostFunction &function_;
  bool insideKernel_ = false;
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
    function.commandHandle = passes::boundCommandHandle(func.body);
    if (!function.commandHandle)
      return ir::diagnosticError(func.loc(), "function '" + name + "' drives VTA but binds no command handle at entry: "
                                             "run host-lower (combine-context-call) before code generation");
  }

  MicroKernelOutlining kernels(function);
  ir::Stmt body = kernels.visitStmt(func.body);
  if (llvm::Error error = kernels.takeError()) return error;
  auto outlined = outlineParallelLoops(body, function.tasks);
  if (!outlined) return outlined.takeError();
  body = *outlined;

  bool noAlias = !vta && passes::promisesNoAlias(func);
  for (const ir::VarRef &param : func.params) {
    HostParam host;
    host.buffer = func.bufferOf(param);
    host.onVta = vta && host.buffer;
    if (host.buffer) {
      host.var = ir::makeVar(param->name, DataType::handle(), param->loc());
    } else if (param->dtype.isScalar() && !param->dtype.isHandle()) {
      host.var = param;
    } else {
      return ir::diagnosticError(param->loc(), "parameter '" + param->name +
                                                   "' is neither a buffer nor a scalar: it cannot be passed to compiled code");
    }
    function.params.push_back(host);
    // Two parameters over one data variable share it, and so alias each other.
    if (host.buffer && noAlias && !function.isDistinctData(*host.buffer->data))
      function.distinctData.push_back(host.buffer->data);
  }
  auto bound = bindParameters(function, body);
  if (!bound) return bound.takeError();
  body = *bound;
  function.body = body;
  return function;
}

std::string writtenName(const std::string &callee) {
  const char *intrinsic = passes::vtaIntrinsicLoweredTo(callee);
  return intrinsic ? intrinsic : callee;
}

}  // namespace vtac::codegen
