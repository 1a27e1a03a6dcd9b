#include "vtac/codegen/HostLowering.h"

#include <unordered_set>

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

ir::Expr call(DataType dtype, const char *op, std::vector<ir::Expr> args) {
  return ir::make<ir::Call>(dtype, op, std::move(args));
}

ir::Expr externCall(DataType dtype, const char *name, std::vector<ir::Expr> args, ir::SourceLoc loc) {
  args.insert(args.begin(), ir::make<ir::StringImm>(name));
  return ir::make<ir::Call>(dtype, "tir.call_extern", std::move(args), loc);
}

bool isVtaCall(const ir::Call &call) {
  if (llvm::StringRef(call.op).starts_with("tir.vta.")) return true;
  if (call.op != "tir.call_extern" || call.args.empty()) return false;
  auto *name = call.args[0].as<ir::StringImm>();
  return name && llvm::StringRef(name->value).starts_with("VTA");
}

bool usesVta(const ir::Stmt &body) {
  bool found = false;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (auto *c = node.as<ir::Call>()) found |= isVtaCall(*c);
    if (auto *attr = node.as<ir::AttrStmt>()) found |= llvm::StringRef(attr->key).starts_with("coproc_");
  });
  return found;
}

// The VTA intrinsics and micro-kernel scopes of a body, rewritten as runtime calls.
class VtaCallLowering : public ir::StmtExprMutator {
public:
  VtaCallLowering(ir::VarRef commandHandle, std::vector<MicroKernel> &kernels)
      : cmd_(std::move(commandHandle)), kernels_(kernels) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Expr visitCall(const ir::Call &op) override {
    ir::Expr visited = StmtExprMutator::visitCall(op);
    const auto &c = *visited.as<ir::Call>();
    if (c.op == "tir.vta.command_handle") return cmd_;
    if (c.op == "tir.tvm_thread_context" && c.args.size() == 1) return c.args[0];
    if (c.op == "tir.vta.coproc_dep_push" || c.op == "tir.vta.coproc_dep_pop") {
      std::vector<ir::Expr> args{cmd_};
      args.insert(args.end(), c.args.begin(), c.args.end());
      return externCall(DataType::int32(), c.op == "tir.vta.coproc_dep_push" ? "VTADepPush" : "VTADepPop",
                        std::move(args), c.loc());
    }
    if (c.op == "tir.vta.coproc_sync")
      return externCall(DataType::int32(), "VTASynchronize",
                        {cmd_, ir::intImm(int64_t(1) << 31, DataType::uintTy(32))}, c.loc());
    if (c.op == "tir.vta.uop_push") return externCall(DataType::int32(), "VTAUopPush", c.args, c.loc());
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
    kernels_.push_back(std::move(kernel));
    return ir::make<ir::Evaluate>(
        call(DataType::int32(), hostop::kPushMicroKernel, {ir::intImm(int64_t(kernels_.size() - 1))}), op.loc());
  }

  ir::Stmt visitBlockRealize(const ir::BlockRealize &op) override {
    // An implicit root block has no location of its own: point at its first statement.
    ir::SourceLoc loc = op.block->loc();
    ir::preOrderVisit(op.block->body, [&](const ir::Node &node) {
      if (!loc.isKnown()) loc = node.loc();
    });
    fail(loc, "block '" + op.block->name + "' is not lowered: code generation needs flat TIR");
    return ir::Stmt(&op);
  }

private:
  void fail(ir::SourceLoc loc, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(loc, message);
  }

  ir::VarRef cmd_;
  std::vector<MicroKernel> &kernels_;
  bool insideKernel_ = false;
  llvm::Error error_ = llvm::Error::success();
};

ir::Expr toInt64(const ir::Expr &e) {
  if (e->dtype == DataType::int64()) return e;
  if (auto *imm = e.as<ir::IntImm>()) return ir::intImm(imm->value, DataType::int64());
  return ir::make<ir::Cast>(DataType::int64(), e);
}

// a * b, folded when both are constants.
ir::Expr multiply(const ir::Expr &a, const ir::Expr &b) {
  auto *x = a.as<ir::IntImm>(), *y = b.as<ir::IntImm>();
  if (x && y) return ir::intImm(x->value * y->value, DataType::int64());
  return ir::binary(ir::NodeKind::Mul, a, b);
}

// DLPack's type code of a buffer's dtype (kDLInt 0, kDLUInt 1, kDLFloat 2). bool is kDLUInt
// of 1 bit, as TVM describes it (one byte per element in memory).
llvm::Expected<int> dlpackTypeCode(DataType dtype, const ir::Buffer &buffer) {
  switch (dtype.code()) {
  case DataType::Code::Int: return 0;
  case DataType::Code::UInt: return 1;
  case DataType::Code::Float: return 2;
  case DataType::Code::Bool: return 1;
  default:
    return ir::diagnosticError(buffer.loc(), "buffer '" + buffer.name + "' of dtype " + dtype.str() +
                                                 " cannot be a parameter");
  }
}

// The entry checks and bindings of one tensor parameter, wrapped around `body`.
llvm::Expected<ir::Stmt> bindTensor(const HostFunction &function, const HostParam &param, ir::Stmt body,
                                    std::unordered_set<const ir::Var *> &boundSizes) {
  const ir::Buffer &buffer = *param.buffer;
  const ir::VarRef &tensor = param.var;
  std::string what = function.symbol + ": argument '" + tensor->name + "'";
  DataType dtype = buffer.dtype;
  auto typeCode = dlpackTypeCode(dtype, buffer);
  if (!typeCode) return typeCode.takeError();
  auto i32 = [](int64_t v) { return ir::intImm(v, DataType::int32()); };
  auto i64 = [](int64_t v) { return ir::intImm(v, DataType::int64()); };
  auto eq = [](ir::Expr a, ir::Expr b) { return ir::binary(ir::NodeKind::EQ, std::move(a), std::move(b)); };
  auto field = [&](const char *op, DataType type) { return call(type, op, {tensor}); };
  auto dim = [&](const char *op, size_t i) { return call(DataType::int64(), op, {tensor, i32(int64_t(i))}); };

  // The steps in execution order: an assertion (check, message) or a binding (var, value).
  struct Step {
    ir::Expr check;
    std::string message;
    ir::VarRef var;
    ir::Expr value;
  };
  std::vector<Step> steps;
  auto assertThat = [&](ir::Expr check, std::string message) { steps.push_back({check, message, {}, {}}); };
  assertThat(ir::make<ir::Not>(field(hostop::kTensorIsNull, DataType::boolTy())), what + " is NULL");
  assertThat(eq(field(hostop::kTensorNdim, DataType::int32()), i32(int64_t(buffer.rank()))),
             what + " must have " + std::to_string(buffer.rank()) + " dimensions");
  ir::Expr typeMatches = ir::binary(
      ir::NodeKind::And,
      ir::binary(ir::NodeKind::And, eq(field(hostop::kTensorTypeCode, DataType::int32()), i32(*typeCode)),
                 eq(field(hostop::kTensorTypeBits, DataType::int32()), i32(dtype.bits()))),
      eq(field(hostop::kTensorTypeLanes, DataType::int32()), i32(dtype.lanes())));
  assertThat(typeMatches, what + " must have dtype " + dtype.str());
  if (!buffer.strides.empty())
    return ir::diagnosticError(buffer.loc(), "buffer '" + buffer.name +
                                                 "' has explicit strides: only compact parameters are supported");
  for (size_t i = 0; i < buffer.rank(); ++i) {
    const ir::Expr &extent = buffer.shape[i];
    auto *var = extent.as<ir::Var>();
    if (var && boundSizes.insert(var).second) {
      ir::Expr value = dim(hostop::kTensorShape, i);
      if (var->dtype != value->dtype) value = ir::make<ir::Cast>(var->dtype, value);
      steps.push_back({{}, {}, ir::VarRef(var), value});
      continue;
    }
    if (!var && !extent.isa<ir::IntImm>())
      return ir::diagnosticError(buffer.loc(), "buffer '" + buffer.name + "': dimension " + std::to_string(i) +
                                                   " is an expression; a parameter's shape must be constants or variables");
    assertThat(eq(dim(hostop::kTensorShape, i), toInt64(extent)),
               what + ": dimension " + std::to_string(i) + " must be " +
                   (var ? "the same size as '" + var->name + "'" : std::to_string(extent.as<ir::IntImm>()->value)));
  }
  if (param.onVta)
    assertThat(eq(field(hostop::kTensorByteOffset, DataType::int64()), i64(0)),
               what + " is a VTA buffer: its byte_offset must be 0");
  steps.push_back({{}, {}, buffer.data, call(DataType::handle(), hostop::kTensorData, {tensor})});

  // Strides: absent, or those of the compact row-major layout.
  ir::Expr compact;
  ir::Expr stride = i64(1);
  for (size_t i = buffer.rank(); i-- > 0;) {
    ir::Expr same = eq(dim(hostop::kTensorStride, i), stride);
    compact = compact ? ir::binary(ir::NodeKind::And, same, compact) : same;
    stride = multiply(stride, toInt64(buffer.shape[i]));
  }
  if (compact)
    body = ir::seq({ir::make<ir::IfThenElse>(
                        field(hostop::kTensorHasStrides, DataType::boolTy()),
                        ir::make<ir::AssertStmt>(compact, ir::make<ir::StringImm>(what + " must be compact (row-major)"),
                                                 ir::make<ir::Evaluate>(i32(0)))),
                    body});
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    body = it->var ? ir::Stmt(ir::make<ir::LetStmt>(it->var, it->value, body))
                   : ir::Stmt(ir::make<ir::AssertStmt>(it->check, ir::make<ir::StringImm>(it->message), body));
  return body;
}

}  // namespace

llvm::Expected<HostFunction> lowerForHost(const ir::PrimFunc &func, const std::string &name,
                                          const std::string &symbol) {
  HostFunction function;
  function.name = name;
  function.symbol = symbol;
  function.loc = func.loc();
  bool vta = usesVta(func.body);
  if (vta) function.commandHandle = ir::makeVar("cmd", DataType::handle());

  VtaCallLowering lowering(function.commandHandle, function.kernels);
  ir::Stmt body = lowering.visitStmt(func.body);
  if (llvm::Error error = lowering.takeError()) return error;
  if (vta)
    body = ir::make<ir::LetStmt>(function.commandHandle,
                                 externCall(DataType::handle(), "VTATLSCommandHandle", {}, func.loc()), body);

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
  }
  // Checks run parameter by parameter, first to last; a size bound by an earlier tensor is
  // checked against the later ones.
  std::unordered_set<const ir::Var *> boundSizes;
  std::vector<const HostParam *> tensors;
  for (const HostParam &param : function.params)
    if (param.buffer) tensors.push_back(&param);
  // The statement is built inside out (last tensor first), but a size is bound by the first
  // tensor that has it: record what the earlier tensors bind before wrapping.
  std::vector<std::unordered_set<const ir::Var *>> boundBefore;
  for (const HostParam *param : tensors) {
    boundBefore.push_back(boundSizes);
    for (const ir::Expr &extent : param->buffer->shape)
      if (auto *var = extent.as<ir::Var>()) boundSizes.insert(var);
  }
  for (size_t i = tensors.size(); i-- > 0;) {
    auto wrapped = bindTensor(function, *tensors[i], body, boundBefore[i]);
    if (!wrapped) return wrapped.takeError();
    body = *wrapped;
  }
  function.body = body;
  return function;
}

}  // namespace vtac::codegen
