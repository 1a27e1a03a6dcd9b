// The entry checks of a compiled function's parameters (EntryBinding.h).
#include "vtac/passes/EntryBinding.h"

#include <algorithm>
#include <unordered_set>

#include <dlpack/dlpack.h>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {

namespace {

using ir::DataType;

ir::Expr call(DataType dtype, const char *op, std::vector<ir::Expr> args) {
  return ir::make<ir::Call>(dtype, op, std::move(args));
}

ir::Expr int64Of(const ir::Expr &e) { return ir::castExpr(DataType::int64(), e); }

// a * b, folded when both are constants, wrapping as the compiled multiplication does (a shape
// too large to allocate is refused before the stride check runs).
ir::Expr multiply(const ir::Expr &a, const ir::Expr &b) {
  if (ir::Expr folded = ir::tryConstFold(ir::NodeKind::Mul, a, b)) return folded;
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

// The bytes of the live VTA buffer `tensor`'s data is (hostop::kVtaBufferBytes).
ir::Expr vtaBufferBytes(const ir::VarRef &tensor) {
  return call(DataType::int64(), hostop::kVtaBufferBytes, {call(DataType::handle(), hostop::kTensorData, {tensor})});
}

// A variable of `extent` that neither `boundSizes` nor a scalar parameter gives; null when none.
const ir::Var *firstUnboundVar(const std::vector<EntryParam> &params, const ir::Expr &extent,
                               const std::unordered_set<const ir::Var *> &boundSizes) {
  const ir::Var *unbound = nullptr;
  ir::preOrderVisit(extent, [&](const ir::Node &node) {
    auto *var = node.as<ir::Var>();
    if (!var || unbound || boundSizes.count(var)) return;
    for (const EntryParam &param : params)
      if (!param.buffer && param.var.get() == var) return;
    unbound = var;
  });
  return unbound;
}

// The entry checks and bindings of one tensor parameter, wrapped around `body`.
llvm::Expected<ir::Stmt> bindTensor(const std::string &symbol, bool graph, const std::vector<EntryParam> &params,
                                    const EntryParam &param, ir::Stmt body,
                                    std::unordered_set<const ir::Var *> &boundSizes) {
  const ir::Buffer &buffer = *param.buffer;
  const ir::VarRef &tensor = param.var;
  std::string what = symbol + ": argument '" + tensor->name + "'";
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
  // A compiled graph copies host tensors to VTA memory itself (RelaxHostLowering.h); a VTA
  // buffer's handle is no host address, so only parameters marked hostOrVta may be one.
  ir::Expr device = field(hostop::kTensorDeviceType, DataType::int32());
  ir::Expr isVtaBuffer = eq(device, i32(kDLExtDev));
  auto unlessVtaBuffer = [&](ir::Expr check) { return ir::binary(ir::NodeKind::Or, ir::make<ir::Not>(isVtaBuffer), std::move(check)); };
  if (graph && !param.hostOrVta) assertThat(eq(device, i32(kDLCPU)), what + " must be a host tensor (kDLCPU)");
  if (param.hostOrVta) {
    assertThat(ir::binary(ir::NodeKind::Or, eq(device, i32(kDLCPU)), isVtaBuffer),
               what + " must be a host tensor (kDLCPU) or a VTA buffer (kDLExtDev)");
    assertThat(unlessVtaBuffer(eq(field(hostop::kTensorByteOffset, DataType::int64()), i64(0))),
               what + " is a VTA buffer: its byte_offset must be 0");
    // (byte_offset is 0 here, so kTensorData is the handle itself.)
    assertThat(unlessVtaBuffer(ir::binary(ir::NodeKind::NE, vtaBufferBytes(tensor), i64(0))),
               what + " is a VTA buffer (kDLExtDev) whose data is not a live VTABufferAlloc handle");
  }
  assertThat(eq(field(hostop::kTensorNdim, DataType::int32()), i32(int64_t(buffer.rank()))),
             what + " must have " + std::to_string(buffer.rank()) + (buffer.rank() == 1 ? " dimension" : " dimensions"));
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
    if (!var && !extent.isa<ir::IntImm>()) {
      // An expression of sizes is checked once they are all known.
      if (const ir::Var *unbound = firstUnboundVar(params, extent, boundSizes))
        return ir::diagnosticError(buffer.loc(), "buffer '" + buffer.name + "': dimension " + std::to_string(i) +
                                                     " depends on '" + unbound->name +
                                                     "', which no earlier dimension or parameter gives");
      assertThat(eq(dim(hostop::kTensorShape, i), int64Of(extent)),
                 what + ": dimension " + std::to_string(i) + " must be " + ir::printExpr(extent));
      continue;
    }
    assertThat(eq(dim(hostop::kTensorShape, i), int64Of(extent)),
               what + ": dimension " + std::to_string(i) + " must be " +
                   (var ? "the same size as '" + var->name + "'" : std::to_string(extent.as<ir::IntImm>()->value)));
  }
  if (param.onVta)
    assertThat(eq(field(hostop::kTensorByteOffset, DataType::int64()), i64(0)),
               what + " is a VTA buffer: its byte_offset must be 0");
  // Checked once the shape is known.
  if (param.hostOrVta) {
    ir::Expr bytes = tensorBytes(buffer);
    assertThat(unlessVtaBuffer(ir::binary(ir::NodeKind::GE, vtaBufferBytes(tensor), bytes)),
               what + " is a VTA buffer of fewer bytes than its shape needs (" +
                   (bytes.isa<ir::IntImm>() ? std::to_string(bytes.as<ir::IntImm>()->value) : ir::printExpr(bytes)) + ")");
  }
  if (param.bindsData) steps.push_back({{}, {}, buffer.data, call(DataType::handle(), hostop::kTensorData, {tensor})});
  // The data bound above already points at the tensor's first element (data + byte_offset), so
  // a symbolic element offset (`offset_factor=16` gives `C_elem_offset`) is 0 from there, as
  // the interpreter takes it. TVM binds it to byte_offset / element bytes from the unshifted
  // data: the same address.
  auto *offset = buffer.elemOffset.as<ir::Var>();
  bool offsetIsParameter = offset && std::any_of(params.begin(), params.end(),
                                                 [&](const EntryParam &p) { return !p.buffer && p.var.get() == offset; });
  if (param.bindsData && offset && !offsetIsParameter && boundSizes.insert(offset).second)
    steps.push_back({{}, {}, ir::VarRef(offset), ir::intImm(0, offset->dtype)});
  else if (param.bindsData && offset)  // given by a parameter or an earlier tensor: 0, as vtac run checks
    assertThat(eq(int64Of(buffer.elemOffset), i64(0)), what + ": element offset '" + offset->name + "' must be 0");

  // Strides: absent, or those of the compact row-major layout.
  ir::Expr compact;
  ir::Expr stride = i64(1);
  for (size_t i = buffer.rank(); i-- > 0;) {
    ir::Expr same = eq(dim(hostop::kTensorStride, i), stride);
    compact = compact ? ir::binary(ir::NodeKind::And, same, compact) : same;
    stride = multiply(stride, int64Of(buffer.shape[i]));
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

ir::Stmt bodyWithinEntryChecks(const ir::Stmt &body) {
  // A call of one of the DLTensor field ops, possibly cast (a size's binding).
  auto isFieldOp = [](const ir::Expr &value) {
    const ir::Expr &inner = value.isa<ir::Cast>() ? value.as<ir::Cast>()->value : value;
    auto *call = inner.as<ir::Call>();
    return call && llvm::StringRef(call->op).starts_with("vtac.dltensor_");
  };
  ir::Stmt stmt = body;
  while (true) {
    if (auto *check = stmt.as<ir::AssertStmt>()) {
      stmt = check->body;
    } else if (auto *let = stmt.as<ir::LetStmt>(); let && (isFieldOp(let->value) || let->value.isa<ir::IntImm>())) {
      // (A constant is an element offset's binding to 0: combine-context-call's handle is a call.)
      stmt = let->body;
    } else if (auto *seq = stmt.as<ir::SeqStmt>(); seq && seq->stmts.size() == 2 && seq->stmts[0].isa<ir::IfThenElse>() &&
                                                    isFieldOp(seq->stmts[0].as<ir::IfThenElse>()->condition)) {
      stmt = seq->stmts[1];
    } else {
      return stmt;
    }
  }
}

ir::Expr tensorBytes(const ir::Buffer &buffer) {
  ir::Expr bytes = ir::intImm(buffer.dtype.bytes(), DataType::int64());
  for (const ir::Expr &extent : buffer.shape) bytes = multiply(bytes, int64Of(extent));
  return bytes;
}

llvm::Expected<ir::Stmt> bindEntryParameters(const std::string &symbol, bool graph,
                                             const std::vector<EntryParam> &params, ir::Stmt body) {
  // Checks run parameter by parameter, first to last; a size bound by an earlier tensor is
  // checked against the later ones.
  std::unordered_set<const ir::Var *> boundSizes;
  std::vector<const EntryParam *> tensors;
  for (const EntryParam &param : params) {
    if (param.buffer) tensors.push_back(&param);
    // A scalar parameter is given at entry: a tensor's dimension of that size is checked against it.
    else boundSizes.insert(param.var.get());
  }
  // The statement is built inside out (last tensor first), but a size is bound by the first
  // tensor that has it: record what the earlier tensors bind before wrapping.
  std::vector<std::unordered_set<const ir::Var *>> boundBefore;
  for (const EntryParam *param : tensors) {
    // Each dimension is a check and a branch, and LLVM's optimisers take time quadratic in their
    // number (rank 1000: 7 s); NumPy's arrays have at most 64.
    constexpr size_t kMaxParameterRank = 64;
    const ir::Buffer &buffer = *param->buffer;
    if (buffer.rank() > kMaxParameterRank)
      return ir::diagnosticError(buffer.loc(), "buffer '" + buffer.name + "' has " + std::to_string(buffer.rank()) +
                                                   " dimensions, more than the " + std::to_string(kMaxParameterRank) +
                                                   " a compiled function's parameter may have");
    boundBefore.push_back(boundSizes);
    for (const ir::Expr &extent : param->buffer->shape)
      if (auto *var = extent.as<ir::Var>()) boundSizes.insert(var);
  }
  for (size_t i = tensors.size(); i-- > 0;) {
    auto wrapped = bindTensor(symbol, graph, params, *tensors[i], body, boundBefore[i]);
    if (!wrapped) return wrapped.takeError();
    body = *wrapped;
  }
  return body;
}

}  // namespace vtac::passes
