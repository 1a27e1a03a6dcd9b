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

ir::Expr externCall(DataType dtype, const char *name, std::vector<ir::Expr> args, ir::SourceLoc loc) {
  args.insert(args.begin(), ir::make<ir::StringImm>(name));
  return ir::make<ir::Call>(dtype, "tir.call_extern", std::move(args), loc);
}

// The VTA intrinsics and micro-kernel scopes of a body, rewritten as runtime calls.
class VtaCallLowering : public ir::StmtExprMutator {
public:
  VtaCallLowering(HostFunction &function) : cmd_(function.commandHandle), function_(function) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Expr visitCall(const ir::Call &op) override {
    ir::Expr visited = StmtExprMutator::visitCall(op);
    const auto &c = *visited.as<ir::Call>();
    if (c.op == "tir.vta.command_handle") return cmd_;
    if (c.op == "tir.tvm_thread_context" && c.args.size() == 1) return c.args[0];
    if (c.op == "tir.vta.coproc_dep_push" || c.op == "tir.vta.coproc_dep_pop") {
      std::vector<ir::Expr> args{cmd_};
      args.insert(args.end(), c.args.begin(), c.args.end());
      return runtimeCall(c, c.op == "tir.vta.coproc_dep_push" ? "VTADepPush" : "VTADepPop", std::move(args));
    }
    if (c.op == "tir.vta.coproc_sync")
      return runtimeCall(c, "VTASynchronize", {cmd_, ir::intImm(int64_t(1) << 31, DataType::uintTy(32))});
    if (c.op == "tir.vta.uop_push") return runtimeCall(c, "VTAUopPush", c.args);
    return visited;
  }

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
  // The call of runtime function `name` that `intrinsic` becomes, recorded as written.
  ir::Expr runtimeCall(const ir::Call &intrinsic, const char *name, std::vector<ir::Expr> args) {
    ir::Expr lowered = externCall(DataType::int32(), name, std::move(args), intrinsic.loc());
    function_.loweredIntrinsics[lowered.get()] = {lowered, intrinsic.op};
    return lowered;
  }

  void fail(ir::SourceLoc loc, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(loc, message);
  }

  ir::VarRef cmd_;
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
  if (vta) function.commandHandle = ir::makeVar("cmd", DataType::handle());

  VtaCallLowering lowering(function);
  ir::Stmt body = lowering.visitStmt(func.body);
  if (llvm::Error error = lowering.takeError()) return error;
  auto outlined = outlineParallelLoops(body, function.tasks);
  if (!outlined) return outlined.takeError();
  body = *outlined;
  if (vta)
    body = ir::make<ir::LetStmt>(function.commandHandle,
                                 externCall(DataType::handle(), "VTATLSCommandHandle", {}, func.loc()), body);

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

}  // namespace vtac::codegen
