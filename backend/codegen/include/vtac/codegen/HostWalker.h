// The walk over host-lowered IR that the C and LLVM emitters share: what each statement and
// call means is decided here, once; an emitter derives from HostWalker<Value> (Value: the C
// text of an expression, or an llvm::Value *) and only says how to write each piece.
//
// HostWalker visits sequences, buffer declarations and the attributes that carry no code;
// turns `for` loops and launched / virtual threads (thread_extent, virtual_thread: their body
// runs once per index, one after another) into emitLoop; checks allocations (host scopes only
// unless allocateOnChipScopesInHostMemory was called, no condition) before emitAllocate (a
// graph's kVtaBufferScope ones, which may have a condition: emitVtaAllocate); splits an evaluated call into a micro-kernel push, a run
// of a parallel task, a checked call of a compiled function, or an expression whose status
// (RuntimeApi.h's returnsStatus) or error count (reportsThroughErrorCount, once
// checkErrorCountFromHere was called) is checked; and dispatches calls: extern calls, the `vtac.dltensor_*` fields, and the
// intrinsics of intrinsicArities, each with its argument count checked; T.address_of and
// T.tvm_access_ptr with their operands checked. Blocks are an error
// (code generation needs flat TIR). The first error is kept (a located DiagnosticError naming
// the emitter) and returned by takeError; after it the walk goes on with placeholder values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/codegen/HostLowering.h"
#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Functor.h"

namespace vtac::codegen {

template <typename Value> class HostWalker : public ir::ExprFunctor<Value>, public ir::StmtFunctor<void> {
public:
  using ir::ExprFunctor<Value>::visitExpr;

  // `emitterName` ("C", "LLVM") is named in the errors.
  HostWalker(const HostFunction &function, const char *emitterName)
      : function_(function), emitterName_(emitterName) {}

  llvm::Error takeError() { return std::move(error_); }

  void fail(const ir::Node &at, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(at.loc(), message);
  }
  void fail(llvm::Error error) {
    if (error_) return llvm::consumeError(std::move(error));
    error_ = std::move(error);
  }

  // ---- statements -------------------------------------------------------------------------
  void visitSeqStmt(const ir::SeqStmt &op) override {
    for (const ir::Stmt &stmt : op.stmts) visitStmt(stmt);
  }
  void visitDeclBuffer(const ir::DeclBuffer &op) override { visitStmt(op.body); }
  void visitBlock(const ir::Block &op) override { fail(op, "block '" + op.name + "' is not lowered"); }
  void visitBlockRealize(const ir::BlockRealize &op) override { visitBlock(*op.block); }

  void visitFor(const ir::For &op) override {
    emitLoop(op, *op.loopVar, op.min, op.extent, op.body,
             op.forKind == ir::ForKind::Serial ? nullptr : ir::forKindName(op.forKind));
  }

  void visitAttrStmt(const ir::AttrStmt &op) override {
    auto *iterVar = op.node.as<ir::IterVar>();
    if (iterVar && (op.key == "thread_extent" || op.key == "virtual_thread"))
      return emitLoop(op, *iterVar->var, ir::intImm(0, iterVar->var->dtype), op.value, op.body, op.key.c_str());
    emitAttr(op);
    visitStmt(op.body);
  }

  void visitLetStmt(const ir::LetStmt &op) override {
    auto *call = op.value.as<ir::Call>();
    if (call && (call->op == hostop::kMakeTensor || call->op == hostop::kMakeVtaTensor)) {
      if (call->args.size() < 4) return fail(*call, "'" + call->op + "' needs data, type code, bits and lanes");
      emitMakeTensor(*op.var, *call);
    } else {
      emitLet(*op.var, op.value);
    }
    visitStmt(op.body);
  }

  void visitEvaluate(const ir::Evaluate &op) override {
    if (op.value.isa<ir::IntImm>()) return;
    auto *call = op.value.as<ir::Call>();
    if (call && call->op == "tir.assume" && call->args.size() == 1) return;  // no code (visitCall)
    if (call && call->op == hostop::kPushMicroKernel) {
      auto *index = call->args.empty() ? nullptr : call->args[0].as<ir::IntImm>();
      if (!index || index->value < 0 || size_t(index->value) >= function_.kernels.size())
        return fail(*call, "push of an unknown micro-kernel");
      return emitPushKernel(*call, size_t(index->value));
    }
    if (call && call->op == hostop::kParallelFor) {
      auto *index = call->args.size() == 2 ? call->args[0].as<ir::IntImm>() : nullptr;
      if (!index || index->value < 0 || size_t(index->value) >= function_.tasks.size())
        return fail(*call, "run of an unknown parallel task");
      return emitParallelFor(size_t(index->value), visitExpr(call->args[1]));
    }
    if (call && call->op == hostop::kCallChecked) {
      auto *symbol = call->args.empty() ? nullptr : call->args[0].as<ir::StringImm>();
      if (!symbol) return fail(*call, "'" + call->op + "' needs the callee's symbol");
      std::vector<Value> args;
      for (size_t i = 1; i < call->args.size(); ++i) args.push_back(visitExpr(call->args[i]));
      return emitCallChecked(*call, symbol->value, args);
    }
    Value value = visitExpr(op.value);
    llvm::StringRef callee = externCallee(op.value);
    if (returnsStatus(callee)) return emitReturnIfNonZero(*op.value, callee, value);
    emitDiscard(value);
    if (checksErrorCount_ && reportsThroughErrorCount(callee)) emitErrorCountCheck(*op.value, callee);
  }

  void visitAllocate(const ir::Allocate &op) override {
    const std::string &scope = op.scope();
    if (!isHostScope(scope) && !onChipScopesInHostMemory_)
      return fail(op, "'" + op.bufferVar->name + "' is in VTA's on-chip scope '" + scope +
                          "': lower the program for VTA (vta-lower) before compiling it");
    if (scope != kVtaBufferScope) {
      if (op.condition) return fail(op, "the " + std::string(emitterName_) + " emitter does not support conditional allocations");
      return emitAllocate(op);
    }
    if (!function_.graph) return fail(op, "'" + op.bufferVar->name + "': the scope '" + scope + "' is for compiled graphs only");
    emitVtaAllocate(op);
  }

  // ---- calls --------------------------------------------------------------------------------
  Value visitCall(const ir::Call &op) override {
    const std::string &name = op.op;
    if (name == "tir.call_extern" || name == "tir.call_pure_extern") {
      auto *callee = op.args.empty() ? nullptr : op.args[0].as<ir::StringImm>();
      if (!callee) return invalid(op, "'" + name + "' needs the callee's name as its first argument");
      return emitExternCall(op, callee->value);
    }
    if (name == hostop::kPushMicroKernel) return invalid(op, "a micro-kernel push inside an expression");
    if (name == "tir.address_of") {
      auto *load = op.args.size() == 1 ? op.args[0].as<ir::BufferLoad>() : nullptr;
      if (!load) return invalid(op, "'tir.address_of' takes one buffer element, as in T.address_of(A[i])");
      return emitAddressOf(op, *load);
    }
    if (name == "tir.tvm_access_ptr") {
      auto *annotation = op.args.size() == 5 ? op.args[0].as<ir::Call>() : nullptr;
      auto *data = op.args.size() == 5 ? op.args[1].as<ir::Var>() : nullptr;
      if (!annotation || annotation->op != "tir.type_annotation" || !data)
        return invalid(op, "'tir.tvm_access_ptr' takes (T.type_annotation(dtype), data, offset, extent, mask)");
      return emitAccessPtr(op, annotation->dtype, *data);
    }
    if (name == hostop::kVtaBufferBytes) {
      if (op.args.size() != 1) return invalid(op, "'" + name + "' takes one handle");
      return emitVtaBufferBytes(visitExpr(op.args[0]));
    }
    if (llvm::StringRef(name).starts_with("vtac.dltensor_")) {
      if (op.args.empty()) return invalid(op, "'" + name + "' needs a tensor");
      return emitTensorField(op);
    }
    auto arity = intrinsicArities().find(name);
    if (arity == intrinsicArities().end())
      return invalid(op, "the " + std::string(emitterName_) + " emitter does not know the intrinsic '" + name + "'");
    if (op.args.size() != arity->second)
      return invalid(op, "'" + name + "' takes " + std::to_string(arity->second) + " arguments, got " +
                             std::to_string(op.args.size()));
    if (name == "tir.likely" || name == "tir.tvm_thread_context") return visitExpr(op.args[0]);
    // T.assume(cond) is a fact for the optimiser, not a check: true, its operand unevaluated.
    if (name == "tir.assume") return visitExpr(ir::intImm(1, ir::DataType::boolTy()));
    return emitIntrinsic(op);
  }

protected:
  // From here on, every runtime call that returns nothing is followed by a check of the
  // runtime's error count (emitErrorCountCheck). Not in micro-kernels: the runtime checks what
  // a kernel recorded when its push returns.
  void checkErrorCountFromHere() { checksErrorCount_ = true; }
  // Allocations in VTA's on-chip scopes go to emitAllocate as host memory instead of failing.
  void allocateOnChipScopesInHostMemory() { onChipScopesInHostMemory_ = true; }

  // Records the error and returns the emitter's placeholder value.
  Value invalid(const ir::Node &at, const std::string &message) {
    fail(at, message);
    return placeholder();
  }

  virtual Value placeholder() = 0;
  // A loop (the statement `at`) over [min, min + extent); `kind` names a non-serial loop kind,
  // or is null.
  virtual void emitLoop(const ir::Node &at, const ir::Var &var, const ir::Expr &min, const ir::Expr &extent, const ir::Stmt &body,
                        const char *kind) = 0;
  // An attribute whose body runs as it is (before the body is visited).
  virtual void emitAttr(const ir::AttrStmt &) {}
  virtual void emitLet(const ir::Var &var, const ir::Expr &value) = 0;
  // `var` = a DLTensor over the data and dims of a vtac.make_tensor or make_vta_tensor call (at
  // least 4 arguments).
  virtual void emitMakeTensor(const ir::Var &var, const ir::Call &call) = 0;
  // The push (the call `at`) of micro-kernel `index`; returns kStatusRuntimeError when it fails.
  virtual void emitPushKernel(const ir::Node &at, size_t index) = 0;
  // Runs parallel task `index` over [0, extent) (vtac_parallel_for); returns its non-zero status.
  virtual void emitParallelFor(size_t index, Value extent) = 0;
  // Calls `symbol` with the tensors `args`; returns its non-zero status from the function.
  virtual void emitCallChecked(const ir::Call &call, const std::string &symbol, const std::vector<Value> &args) = 0;
  // Returns kStatusRuntimeError when `status`, of the call `at` to `callee`, is non-zero.
  virtual void emitReturnIfNonZero(const ir::Node &at, llvm::StringRef callee, Value status) = 0;
  // An evaluated expression whose value is not used.
  virtual void emitDiscard(Value value) = 0;
  // Returns kStatusRuntimeError when the runtime's error count rose since the function started
  // (checked after the call `at` to `callee`).
  virtual void emitErrorCountCheck(const ir::Node &at, llvm::StringRef callee) = 0;
  // A host-memory allocation (already checked), its body, and its release; the memory starts
  // as a copy of the constant data of a T.allocate_const (writable, as in the interpreter).
  virtual void emitAllocate(const ir::Allocate &op) = 0;
  // A VTABufferAlloc buffer of the allocation's bytes (returns kStatusRuntimeError when none is
  // allocated), its body, and VTABufferFree. With a condition, the buffer is allocated (and
  // freed) only when it holds, its variable NULL otherwise.
  virtual void emitVtaAllocate(const ir::Allocate &op) = 0;
  // hostop::kVtaBufferBytes of `handle`.
  virtual Value emitVtaBufferBytes(Value handle) = 0;
  virtual Value emitExternCall(const ir::Call &op, const std::string &callee) = 0;
  // One of the hostop::kTensor* fields (the tensor is args[0], a dimension args[1]).
  virtual Value emitTensorField(const ir::Call &op) = 0;
  // T.address_of(load): the address of the element `load` reads.
  virtual Value emitAddressOf(const ir::Call &op, const ir::BufferLoad &load) = 0;
  // T.tvm_access_ptr(T.type_annotation(elementType), data, offset, extent, mask): the address
  // of element `offset` (of elementType) of `data`; [offset, offset + extent) must lie in data's
  // allocation.
  virtual Value emitAccessPtr(const ir::Call &op, ir::DataType elementType, const ir::Var &data) = 0;
  // An intrinsic of intrinsicArities() other than likely / tvm_thread_context, with the right
  // number of arguments.
  virtual Value emitIntrinsic(const ir::Call &op) = 0;

  const HostFunction &function_;
  const char *emitterName_;

private:
  // The intrinsics (`tir.NAME` calls) both emitters implement, with their argument counts.
  static const std::map<std::string, size_t> &intrinsicArities() {
    static const std::map<std::string, size_t> arities = {
        {"tir.likely", 1},       {"tir.tvm_thread_context", 1}, {"tir.if_then_else", 3}, {"tir.isnullptr", 1},
        {"tir.shift_right", 2},  {"tir.shift_left", 2},         {"tir.bitwise_and", 2},  {"tir.bitwise_or", 2},
        {"tir.bitwise_xor", 2},  {"tir.bitwise_not", 1},        {"tir.exp", 1},          {"tir.log", 1},
        {"tir.sqrt", 1},         {"tir.tanh", 1},               {"tir.sin", 1},          {"tir.cos", 1},
        {"tir.floor", 1},        {"tir.ceil", 1},               {"tir.round", 1},        {"tir.trunc", 1},
        {"tir.fabs", 1},         {"tir.pow", 2},                {"tir.exp2", 1},         {"tir.log2", 1},
        {"tir.erf", 1},          {"tir.abs", 1},                {"tir.sigmoid", 1},      {"tir.assume", 1},
        {"tir.rsqrt", 1}};
    return arities;
  }

  bool checksErrorCount_ = false;
  bool onChipScopesInHostMemory_ = false;
  llvm::Error error_ = llvm::Error::success();
};

}  // namespace vtac::codegen
