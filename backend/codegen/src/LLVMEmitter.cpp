#include "vtac/codegen/LLVMEmitter.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <dlpack/dlpack.h>

#include "vtac/codegen/AccessBounds.h"
#include "vtac/codegen/HostWalker.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/LoopSteps.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Visitor.h"

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeARMTargetInfo();
void LLVMInitializeARMTarget();
void LLVMInitializeARMTargetMC();
void LLVMInitializeARMAsmPrinter();
}

namespace vtac::codegen {

namespace {

using ir::DataType;
using ir::NodeKind;

// The host-lowered calls that run loops elsewhere: a loop around one is no leaf (LoopSteps.h).
constexpr llvm::StringRef kLoopRunningCalls[] = {hostop::kPushMicroKernel, hostop::kParallelFor, hostop::kCallChecked};

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
  });
}

bool isUnsigned(DataType dtype) { return dtype.isUInt() || dtype.isBool(); }

// What the functions of one module share: the DLTensor type and the string constants.
struct ModuleState {
  explicit ModuleState(llvm::Module &module) : module(module) {
    llvm::LLVMContext &ctx = module.getContext();
    llvm::Type *i8 = llvm::Type::getInt8Ty(ctx), *i16 = llvm::Type::getInt16Ty(ctx), *i32 = llvm::Type::getInt32Ty(ctx),
               *ptr = llvm::PointerType::get(ctx, 0);
    // DLPack's DLTensor: data, device {type, id}, ndim, dtype {code, bits, lanes}, shape,
    // strides, byte_offset.
    dlTensor = llvm::StructType::create(
        ctx,
        {ptr, llvm::StructType::get(ctx, {i32, i32}), i32, llvm::StructType::get(ctx, {i8, i8, i16}), ptr, ptr,
         llvm::Type::getInt64Ty(ctx)},
        "DLTensor");
  }

  llvm::Module &module;
  llvm::StructType *dlTensor;
  std::unordered_map<std::string, llvm::Value *> strings;
  std::vector<CheckSite> *checkSites = nullptr;  // non-null: compile run-time checks in
  bool countSteps = false;                        // with checks: count loop iterations
  bool onChipScopesInHostMemory = false;
  std::vector<std::string> *kernelHandles = nullptr;  // non-null: handle slots are the caller's
};

// One HostFunction (its micro-kernels, its entry, a packed entry) in the module.
class FunctionBuilder : public HostWalker<llvm::Value *> {
public:
  FunctionBuilder(ModuleState &state, const HostFunction &function)
      : HostWalker(function, "LLVM"), module_(state.module), ctx_(state.module.getContext()), b_(ctx_),
        dlTensor_(state.dlTensor), strings_(state.strings), checkSites_(state.checkSites),
        countsSteps_(state.checkSites && state.countSteps), kernelHandles_(state.kernelHandles) {
    if (checkSites_) bounds_.emplace(function_);
    if (state.onChipScopesInHostMemory) allocateOnChipScopesInHostMemory();
  }

  void addFunction() {
    const HostFunction &function = function_;
    addAliasScopes();
    for (size_t k = 0; k < function.kernels.size(); ++k) kernels_.push_back(addKernel(k));
    for (size_t t = 0; t < function.tasks.size(); ++t) tasks_.push_back(addTask(t));

    std::vector<llvm::Type *> params;
    for (const HostParam &param : function.params)
      params.push_back(param.buffer ? b_.getPtrTy() : type(param.var->dtype, *param.var));
    auto *fnType = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
    auto linkage = function.internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage;
    llvm::Function *fn = llvm::Function::Create(fnType, linkage, function.symbol, module_);
    begin(fn);
    for (size_t i = 0; i < function.params.size(); ++i) {
      fn->getArg(unsigned(i))->setName(function.params[i].var->name);
      vars_[function.params[i].var.get()] = fn->getArg(unsigned(i));
    }
    if (function.commandHandle) {
      errorsAtEntry_ = runtimeErrorCount();
      checkErrorCountFromHere();
    }
    visitStmt(function.body);
    if (countsSteps_) flushSteps();
    b_.CreateRet(b_.getInt32(0));
    if (function.commandHandle) discardCommandsOnFailure(fn);
  }

  // `i32 name(ptr args)`: calls `function` with args[i] as its i-th argument (a DLTensor
  // pointer, or a pointer to a scalar's value), so a caller needs no per-signature code.
  void addPackedEntry(const std::string &name) {
    const HostFunction &function = function_;
    llvm::Function *entry = module_.getFunction(function.symbol);
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false),
                                      llvm::Function::ExternalLinkage, name, module_);
    begin(fn);
    std::vector<llvm::Value *> args;
    for (size_t i = 0; i < function.params.size(); ++i) {
      llvm::Value *slot = b_.CreateLoad(b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getPtrTy(), fn->getArg(0), i));
      const HostParam &param = function.params[i];
      args.push_back(param.buffer ? slot : b_.CreateLoad(type(param.var->dtype, *param.var), slot));
    }
    b_.CreateRet(b_.CreateCall(entry, args));
  }

private:
  // ---- types and helpers --------------------------------------------------------------------
  llvm::Type *type(DataType dtype, const ir::Node &at) {
    if (!dtype.isScalar())
      return llvm::FixedVectorType::get(type(dtype.elementType(), at), unsigned(dtype.lanes()));
    switch (dtype.code()) {
    case DataType::Code::Int:
    case DataType::Code::UInt: return b_.getIntNTy(unsigned(dtype.bits()));
    case DataType::Code::Bool: return b_.getInt1Ty();
    case DataType::Code::Handle: return b_.getPtrTy();
    case DataType::Code::Float:
      if (dtype.bits() == 16) return b_.getHalfTy();  // TVM's LLVMType: float16 is LLVM's half
      if (dtype.bits() == 32) return b_.getFloatTy();
      if (dtype.bits() == 64) return b_.getDoubleTy();
      break;
    }
    fail(at, "the LLVM emitter does not support values of type " + dtype.str());
    return b_.getInt32Ty();
  }
  // In memory, bool is one byte.
  llvm::Type *memoryType(DataType dtype, const ir::Node &at) {
    return dtype.isBool() ? b_.getInt8Ty() : type(dtype, at);
  }

  void begin(llvm::Function *fn) {
    fn_ = fn;
    fn->setDoesNotThrow();  // C ABI code: no unwind tables, no personality routine
    // Host code that drives VTA only issues runtime calls: optimising it made the ResNet-18
    // object 4x dearer to compile and its inference no faster (bench/RESULTS.md).
    if (function_.commandHandle) {
      fn->addFnAttr(llvm::Attribute::OptimizeNone);
      fn->addFnAttr(llvm::Attribute::NoInline);
    }
    vars_.clear();
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    if (countsSteps_) startCountingSteps();
  }

  llvm::BasicBlock *newBlock(const char *name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }

  // Returns `status` from the current function when `condition` holds.
  void returnIf(llvm::Value *condition, llvm::Value *status) {
    llvm::BasicBlock *exit = newBlock("fail"), *next = newBlock("ok");
    b_.CreateCondBr(condition, exit, next);
    b_.SetInsertPoint(exit);
    b_.CreateRet(status);
    b_.SetInsertPoint(next);
  }

  llvm::Function *runtimeFunction(const std::string &name) {
    const char *signature = runtimeSignature(name);
    if (llvm::Function *existing = module_.getFunction(name)) return existing;
    auto typeOf = [&](char c) -> llvm::Type * {
      if (c == 'z') return module_.getDataLayout().getIntPtrType(ctx_);
      return c == 'v' ? b_.getVoidTy() : c == 'p' ? static_cast<llvm::Type *>(b_.getPtrTy()) : b_.getInt32Ty();
    };
    std::vector<llvm::Type *> params;
    for (const char *c = signature + 1; *c; ++c) params.push_back(typeOf(*c));
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(typeOf(signature[0]), params, false),
                                      llvm::Function::ExternalLinkage, name, module_);
    // vtac's additions are optional, so the code links against TVM's runtime too.
    if (name == "VTARuntimeErrorCount" || name == "VTARuntimeReportError" || name == "VTABufferSize" ||
        name == "VTARuntimeDiscardCommands")
      fn->setLinkage(llvm::GlobalValue::ExternalWeakLinkage);
    return fn;
  }

  // VTARuntimeErrorCount(), or 0 when the runtime has none.
  llvm::Value *runtimeErrorCount() { return b_.CreateCall(errorCountFunction()); }

  // The module's `i32 vtac_error_count()`: VTARuntimeErrorCount(), or 0 when the runtime has
  // none. Kept out of line: it is checked after every runtime call, and one call per check
  // keeps the functions (and the optimiser's work) small.
  llvm::Function *errorCountFunction() {
    llvm::Function *fn = weakRuntimeWrapper(
        "vtac_error_count", llvm::FunctionType::get(b_.getInt32Ty(), false), "VTARuntimeErrorCount",
        [](llvm::IRBuilder<> &, llvm::Value *count) { return count; },
        [](llvm::IRBuilder<> &b) { return b.getInt32(0); });
    fn->addFnAttr(llvm::Attribute::NoInline);
    return fn;
  }

  // tir.noalias, as TVM's codegen gives it to LLVM where no pointer parameter can be `noalias`
  // (the data come out of DLTensors): one alias scope per distinct buffer, in a domain of the
  // function's, each access to the buffer in its scope and noalias to the others (addAliasInfo).
  // Parallel tasks read the same data variables from their closures and share the scopes.
  void addAliasScopes() {
    const std::vector<ir::VarRef> &buffers = function_.distinctData;
    if (buffers.size() < 2) return;
    llvm::MDBuilder md(ctx_);
    llvm::MDNode *domain = md.createAnonymousAliasScopeDomain(function_.symbol);
    std::vector<llvm::Metadata *> scopes;
    for (const ir::VarRef &data : buffers) scopes.push_back(md.createAnonymousAliasScope(domain, data->name));
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::vector<llvm::Metadata *> others = scopes;
      others.erase(others.begin() + std::ptrdiff_t(i));
      aliasInfo_[buffers[i].get()] = {llvm::MDNode::get(ctx_, scopes[i]), llvm::MDNode::get(ctx_, others)};
    }
  }

  // Tags `access`, a load or store of `buffer`, with its alias scope (addAliasScopes), if any:
  // an access through any other pointer keeps no tag, and so may alias all of them.
  llvm::Value *addAliasInfo(llvm::Value *access, const ir::Buffer &buffer) {
    auto found = aliasInfo_.find(buffer.data.get());
    if (found == aliasInfo_.end()) return access;
    auto *instruction = llvm::cast<llvm::Instruction>(access);
    instruction->setMetadata(llvm::LLVMContext::MD_alias_scope, found->second.scope);
    instruction->setMetadata(llvm::LLVMContext::MD_noalias, found->second.others);
    return access;
  }

  // Makes each failure `fn` returns drop the commands it queued (vtac_failed), so that the
  // caller's next call does not find them in its program.
  void discardCommandsOnFailure(llvm::Function *fn) {
    llvm::Function *failed = failedFunction();
    for (llvm::BasicBlock &block : *fn) {
      auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator());
      auto *constant = ret ? llvm::dyn_cast<llvm::ConstantInt>(ret->getReturnValue()) : nullptr;
      if (ret && !(constant && constant->isZero()))
        ret->setOperand(0, llvm::CallInst::Create(failed, {ret->getReturnValue()}, "", ret));
    }
  }

  // The module's `i32 vtac_failed(i32 status)`: a non-zero status calls
  // VTARuntimeDiscardCommands when the runtime has it (TVM's has not); returns the status.
  llvm::Function *failedFunction() {
    if (llvm::Function *existing = module_.getFunction("vtac_failed")) return existing;
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt32Ty()}, false),
                                      llvm::Function::InternalLinkage, "vtac_failed", module_);
    fn->setDoesNotThrow();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", fn));
    llvm::Function *discard = runtimeFunction("VTARuntimeDiscardCommands");
    auto *call = llvm::BasicBlock::Create(ctx_, "discard", fn), *done = llvm::BasicBlock::Create(ctx_, "done", fn);
    b.CreateCondBr(b.CreateAnd(b.CreateICmpNE(fn->getArg(0), b.getInt32(0)), b.CreateIsNotNull(discard)), call, done);
    b.SetInsertPoint(call);
    b.CreateCall(discard);
    b.CreateBr(done);
    b.SetInsertPoint(done);
    b.CreateRet(fn->getArg(0));
    return fn;
  }

  // The module's `i64 vtac_vta_buffer_bytes(ptr)`: hostop::kVtaBufferBytes (unknown: INT64_MAX).
  llvm::Function *vtaBufferBytesFunction() {
    return weakRuntimeWrapper(
        "vtac_vta_buffer_bytes", llvm::FunctionType::get(b_.getInt64Ty(), {b_.getPtrTy()}, false), "VTABufferSize",
        [](llvm::IRBuilder<> &b, llvm::Value *size) { return b.CreateZExtOrTrunc(size, b.getInt64Ty()); },
        [](llvm::IRBuilder<> &b) { return b.getInt64(INT64_MAX); });
  }

  // The module's `i32 vtac_fail(ptr message)`: reports the message when the runtime can, -1.
  llvm::Function *failFunction() {
    auto failed = [](llvm::IRBuilder<> &b) { return b.getInt32(kStatusArgumentError); };
    return weakRuntimeWrapper(
        "vtac_fail", llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false), "VTARuntimeReportError",
        [&](llvm::IRBuilder<> &b, llvm::Value *) { return failed(b); }, failed);
  }

  // The module's internal function `name`: calls the runtime's optional (weak) function `weak`
  // with its arguments and returns `present(call)` when the runtime has it, `absent()` when not.
  template <typename Present, typename Absent>
  llvm::Function *weakRuntimeWrapper(const char *name, llvm::FunctionType *type, const std::string &weak,
                                     Present present, Absent absent) {
    if (llvm::Function *existing = module_.getFunction(name)) return existing;
    auto *fn = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module_);
    fn->setDoesNotThrow();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", fn));
    llvm::Function *target = runtimeFunction(weak);
    auto *call = llvm::BasicBlock::Create(ctx_, "present", fn), *none = llvm::BasicBlock::Create(ctx_, "absent", fn);
    b.CreateCondBr(b.CreateIsNotNull(target), call, none);
    b.SetInsertPoint(call);
    std::vector<llvm::Value *> args;
    for (llvm::Argument &arg : fn->args()) args.push_back(&arg);
    b.CreateRet(present(b, b.CreateCall(target, args)));
    b.SetInsertPoint(none);
    b.CreateRet(absent(b));
    return fn;
  }

  llvm::Value *convert(llvm::Value *value, DataType from, DataType to, const ir::Node &at) {
    llvm::Type *target = type(to, at);
    if (value->getType() == target) return value;
    if (to.isBool()) {
      if (from.isFloat()) return b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0));
      if (from.isHandle()) return b_.CreateIsNotNull(value);
      return b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
    }
    if (from.isFloat() && to.isFloat()) return b_.CreateFPCast(value, target);
    if (from.isFloat()) return isUnsigned(to) ? b_.CreateFPToUI(value, target) : b_.CreateFPToSI(value, target);
    if (to.isFloat()) return isUnsigned(from) ? b_.CreateUIToFP(value, target) : b_.CreateSIToFP(value, target);
    if (to.isHandle()) return b_.CreateIntToPtr(value, target);
    if (from.isHandle()) return b_.CreatePtrToInt(value, target);
    return b_.CreateIntCast(value, target, !isUnsigned(from));
  }

  llvm::Value *toInt64(const ir::Expr &e) {
    return convert(visitExpr(e), e->dtype, DataType::int64().withLanes(e->dtype.lanes()), *e);
  }

  llvm::Value *stringConstant(const std::string &text) {
    auto found = strings_.find(text);
    if (found != strings_.end()) return found->second;
    llvm::Value *global = b_.CreateGlobalString(text, "vtac_message", 0, &module_);
    return strings_[text] = global;
  }

  // ---- run-time checks (RuntimeChecks.h) ----------------------------------------------------
  // Branches to a cold block reporting `site` with the values a, b and c (i64, or vectors of
  // i64 lane by lane with `failed`; c null: 0) and returning kStatusCheckFailed when `failed`
  // holds.
  void failWhen(llvm::Value *failed, CheckSite site, llvm::Value *a, llvm::Value *b, llvm::Value *c = nullptr) {
    if (!c) c = b_.getInt64(0);
    auto index = int32_t(checkSites_->size());
    checkSites_->push_back(std::move(site));
    llvm::Value *any = failed->getType()->isVectorTy() ? b_.CreateOrReduce(failed) : failed;
    llvm::BasicBlock *fail = newBlock("check_failed"), *next = newBlock("checked");
    b_.CreateCondBr(any, fail, next, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
    b_.SetInsertPoint(fail);
    if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(failed->getType())) {
      llvm::Value *mask = b_.CreateBitCast(failed, b_.getIntNTy(vector->getNumElements()));
      llvm::Value *lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, mask, b_.getTrue());
      auto laneOf = [&](llvm::Value *v) { return v->getType()->isVectorTy() ? b_.CreateExtractElement(v, lane) : v; };
      a = laneOf(a);
      b = laneOf(b);
      c = laneOf(c);
    }
    llvm::Type *i64 = b_.getInt64Ty();
    llvm::FunctionCallee report = module_.getOrInsertFunction(
        kCheckFailedSymbol, llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt32Ty(), i64, i64, i64}, false));
    b_.CreateCall(report, {b_.getInt32(index), a, b, c});
    b_.CreateRet(b_.getInt32(kStatusCheckFailed));
    b_.SetInsertPoint(next);
  }

  // Returns from the function when the runtime call `at` to `callee` failed: with run-time
  // checks, through a CallFailed site that locates it; else with kStatusRuntimeError.
  void failedCall(const ir::Node &at, llvm::StringRef callee, llvm::Value *failed) {
    if (!checkSites_) return returnIf(failed, b_.getInt32(kStatusRuntimeError));
    CheckSite site{CheckKind::CallFailed, at.loc(), writtenName(callee.str())};
    failWhen(failed, std::move(site), b_.getInt64(0), b_.getInt64(0));
  }

  // `bytes` (the element size) times the extents of `op`, failing an AllocationTooLarge site
  // when the product overflows or exceeds kMaxAllocationBytes; `bytes` becomes the product.
  void checkAllocationSize(const ir::Allocate &op, llvm::Value *&bytes) {
    llvm::Value *overflow = b_.getFalse();
    std::string shape;
    for (const ir::Expr &extent : op.extents) {
      llvm::Value *product = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, bytes, toInt64(extent));
      bytes = b_.CreateExtractValue(product, 0);
      overflow = b_.CreateOr(overflow, b_.CreateExtractValue(product, 1));
      shape += (shape.empty() ? "" : ", ") + ir::printExpr(extent);
    }
    CheckSite site{CheckKind::AllocationTooLarge, op.loc(), op.bufferVar->name};
    site.shape = "(" + shape + (op.extents.size() == 1 ? ",)" : ")");
    llvm::Value *tooLarge = b_.CreateOr(overflow, b_.CreateICmpUGT(bytes, b_.getInt64(kMaxAllocationBytes)));
    failWhen(tooLarge, std::move(site), bytes, b_.CreateZExt(overflow, b_.getInt64Ty()));
  }

  // Whether every variable of `e` has a value in the function being built.
  bool allBound(const ir::Expr &e) {
    bool bound = true;
    ir::preOrderVisit(e, [&](const ir::Node &node) {
      if (auto *var = node.as<ir::Var>()) bound &= vars_.count(var) != 0;
    });
    return bound;
  }

  llvm::Value *splatLike(llvm::Value *scalar, llvm::Value *like) {
    auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(like->getType());
    return vector ? b_.CreateVectorSplat(vector->getNumElements(), scalar) : scalar;
  }

  // The checks of an access: each index of a multi-dimensional buffer against its extent
  // (`dims`: the indices as i64), then the flat element against the allocation.
  void checkAccess(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices, const std::vector<llvm::Value *> &dims,
                   llvm::Value *flat, const ir::Node &at) {
    if (indices.size() > 1 && indices.size() == buffer.shape.size())
      for (size_t d = 0; d < indices.size(); ++d) {
        const ir::Expr &extent = buffer.shape[d];
        if (bounds_->provesInRange(indices[d], extent) || !allBound(extent)) continue;
        llvm::Value *limit = toInt64(extent);
        failWhen(b_.CreateICmpUGE(dims[d], splatLike(limit, dims[d])),
                 {CheckKind::DimensionIndex, at.loc(), buffer.name, int64_t(d)}, dims[d], limit);
      }
    ir::Expr bytes = bounds_->allocationBytes(*buffer.data);
    if (!bytes || !allBound(bytes)) return;
    int64_t elementBytes = buffer.dtype.bytes();
    ir::Expr elements = ir::floorDivExpr(bytes, ir::intImm(elementBytes, DataType::int64()));
    if (bounds_->provesInRange(bounds_->flatIndex(buffer, indices), elements)) return;
    bool flatIndex = indices.size() == 1 && (!buffer.elemOffset || ir::isZero(buffer.elemOffset));
    failWhen(b_.CreateICmpUGE(flat, splatLike(visitExpr(elements), flat)),
             {CheckKind::AllocationIndex, at.loc(), buffer.name, 0, flatIndex, elementBytes}, flat, visitExpr(bytes));
  }

  // The caller's i64 global `name`.
  llvm::GlobalVariable *callerGlobal(const char *name) {
    if (llvm::GlobalVariable *existing = module_.getNamedGlobal(name)) return existing;
    return new llvm::GlobalVariable(module_, b_.getInt64Ty(), false, llvm::GlobalValue::ExternalLinkage, nullptr, name);
  }

  // Step counting keeps the function's count in a register (pendingSteps_) and adds it to the
  // caller's vtac_steps only when it reaches stepRoom_, the steps left before
  // vtac_next_limit_check as of the function's last look at both; before a call into code that
  // counts too (a micro-kernel push, a parallel run, a compiled call) and at the end, the count
  // is added, and after such a call the room looked up again. Alone on a thread this calls
  // vtac_check_limits at exactly the count the interpreter would; parallel tasks each have
  // their own room, so a limit can be passed by up to a room per thread before one notices.
  void startCountingSteps() {
    llvm::IRBuilder<> entry(b_.GetInsertBlock());
    pendingSteps_ = entry.CreateAlloca(b_.getInt64Ty(), nullptr, "pending_steps");
    stepRoom_ = entry.CreateAlloca(b_.getInt64Ty(), nullptr, "step_room");
    entry.CreateStore(b_.getInt64(0), pendingSteps_);
    refreshStepRoom();
  }

  // An unordered (untorn, otherwise plain) load of the caller's counter `name`.
  llvm::Value *loadCounter(const char *name) {
    llvm::LoadInst *load = b_.CreateLoad(b_.getInt64Ty(), callerGlobal(name));
    load->setAtomic(llvm::AtomicOrdering::Unordered);
    load->setAlignment(llvm::Align(8));
    return load;
  }

  void refreshStepRoom() {
    b_.CreateStore(b_.CreateBinaryIntrinsic(llvm::Intrinsic::usub_sat, loadCounter(kNextLimitCheckSymbol),
                                            loadCounter(kStepCountSymbol)),
                   stepRoom_);
  }

  // Adds the pending count to vtac_steps; returns the new total.
  llvm::Value *flushSteps() {
    llvm::Value *pending = b_.CreateLoad(b_.getInt64Ty(), pendingSteps_);
    llvm::Value *previous = b_.CreateAtomicRMW(llvm::AtomicRMWInst::Add, callerGlobal(kStepCountSymbol), pending,
                                               llvm::MaybeAlign(8), llvm::AtomicOrdering::Monotonic);
    b_.CreateStore(b_.getInt64(0), pendingSteps_);
    return b_.CreateAdd(previous, pending);
  }

  // A call of code that may count steps itself (see startCountingSteps).
  llvm::Value *callCountingCode(llvm::FunctionCallee callee, llvm::ArrayRef<llvm::Value *> args) {
    if (countsSteps_) flushSteps();
    llvm::Value *status = b_.CreateCall(callee, args);
    if (countsSteps_) refreshStepRoom();
    return status;
  }

  // `count` (i64) iterations of the loop `at` (countsSteps_). When the count reaches the room,
  // it is added to vtac_steps, and if the total reached vtac_next_limit_check,
  // vtac_check_limits says whether the run stops at this loop.
  void countSteps(const ir::Node &at, llvm::Value *count) {
    llvm::Value *pending = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), pendingSteps_), count);
    b_.CreateStore(pending, pendingSteps_);
    llvm::BasicBlock *flush = newBlock("steps_flush"), *check = newBlock("limit_check"), *next = newBlock("counted");
    b_.CreateCondBr(b_.CreateICmpUGE(pending, b_.CreateLoad(b_.getInt64Ty(), stepRoom_)), flush, next,
                    llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
    b_.SetInsertPoint(flush);
    llvm::Value *steps = flushSteps();
    llvm::BasicBlock *refresh = newBlock("steps_refresh");
    b_.CreateCondBr(b_.CreateICmpUGE(steps, loadCounter(kNextLimitCheckSymbol)), check, refresh);
    b_.SetInsertPoint(check);
    auto index = int32_t(checkSites_->size());
    checkSites_->push_back({CheckKind::Stopped, at.loc(), ""});
    llvm::FunctionCallee checkLimits = module_.getOrInsertFunction(
        kCheckLimitsSymbol, llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt32Ty(), b_.getInt64Ty()}, false));
    llvm::Value *status = b_.CreateCall(checkLimits, {b_.getInt32(index), steps});
    llvm::BasicBlock *stop = newBlock("stopped");
    b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), stop, refresh);
    b_.SetInsertPoint(stop);
    b_.CreateRet(b_.getInt32(kStatusCheckFailed));
    b_.SetInsertPoint(refresh);
    refreshStepRoom();
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  }

  // Signed integer division by -1 cannot trap: the dividend is negated (wrapping) and the
  // divisor made 1, which gives the interpreter's quotient and remainder.
  void avoidDivisionOverflow(llvm::Value *&a, llvm::Value *&b) {
    llvm::Value *minusOne = b_.CreateICmpEQ(b, llvm::Constant::getAllOnesValue(b->getType()));
    a = b_.CreateSelect(minusOne, b_.CreateNeg(a), a);
    b = b_.CreateSelect(minusOne, llvm::ConstantInt::get(b->getType(), 1), b);
  }

  // ---- expressions --------------------------------------------------------------------------
  llvm::Value *visitIntImm(const ir::IntImm &op) override {
    return llvm::ConstantInt::get(type(op.dtype, op), uint64_t(op.value), !isUnsigned(op.dtype));
  }
  llvm::Value *visitFloatImm(const ir::FloatImm &op) override { return llvm::ConstantFP::get(type(op.dtype, op), op.value); }
  llvm::Value *visitStringImm(const ir::StringImm &op) override { return stringConstant(op.value); }
  llvm::Value *visitVar(const ir::Var &op) override {
    auto found = vars_.find(&op);
    if (found != vars_.end()) return found->second;
    fail(op, "variable '" + op.name + "' is not bound");
    return llvm::UndefValue::get(type(op.dtype, op));
  }
  llvm::Value *visitCast(const ir::Cast &op) override {
    llvm::Value *value = visitExpr(op.value);
    if (bounds_ && op.value->dtype.isFloat() && op.dtype.isIntOrUInt()) checkFloatToInt(value, op);
    return convert(value, op.value->dtype, op.dtype, op);
  }

  // The truncated value must lie in the integer type's range (NaN never does). The comparison
  // is made in double: the bounds 2^63 and 2^64 are not finite in float16, so there an infinity
  // would compare inside them.
  void checkFloatToInt(llvm::Value *value, const ir::Cast &op) {
    int bits = op.dtype.bits();
    double low = isUnsigned(op.dtype) ? 0.0 : -std::ldexp(1.0, bits - 1);
    double high = isUnsigned(op.dtype) ? std::ldexp(1.0, bits) : std::ldexp(1.0, bits - 1);
    unsigned lanes = unsigned(op.dtype.lanes());
    llvm::Type *f64 = b_.getDoubleTy(), *i64 = b_.getInt64Ty();
    if (lanes > 1) {
      f64 = llvm::FixedVectorType::get(f64, lanes);
      i64 = llvm::FixedVectorType::get(i64, lanes);
    }
    llvm::Value *wide = b_.CreateFPExt(value, f64);
    llvm::Value *truncated = b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, wide);
    llvm::Value *inRange = b_.CreateAnd(b_.CreateFCmpOGE(truncated, llvm::ConstantFP::get(f64, low)),
                                        b_.CreateFCmpOLT(truncated, llvm::ConstantFP::get(f64, high)));
    failWhen(b_.CreateNot(inRange), {CheckKind::FloatToInt, op.loc(), op.dtype.elementType().str()},
             b_.CreateBitCast(wide, i64), b_.getInt64(0));
  }
  llvm::Value *visitNot(const ir::Not &op) override { return b_.CreateNot(visitExpr(op.a)); }
  llvm::Value *visitSelect(const ir::Select &op) override {
    llvm::Value *c = visitExpr(op.condition), *t = visitExpr(op.trueValue), *f = visitExpr(op.falseValue);
    return b_.CreateSelect(c, t, f);
  }
  llvm::Value *visitLet(const ir::Let &op) override {
    vars_[op.var.get()] = visitExpr(op.value);
    return visitExpr(op.body);
  }
  // base + stride * <0, 1, ..., lanes - 1>
  llvm::Value *visitRamp(const ir::Ramp &op) override {
    if (!op.base->dtype.isIntOrUInt()) return invalid(op, "the LLVM emitter supports only integer ramps");
    llvm::Value *base = visitExpr(op.base), *stride = visitExpr(op.stride);
    std::vector<llvm::Constant *> steps;
    for (int lane = 0; lane < op.lanes; ++lane) steps.push_back(llvm::ConstantInt::get(base->getType(), uint64_t(lane)));
    llvm::Value *offsets = b_.CreateMul(b_.CreateVectorSplat(unsigned(op.lanes), stride), llvm::ConstantVector::get(steps));
    return b_.CreateAdd(b_.CreateVectorSplat(unsigned(op.lanes), base), offsets);
  }
  llvm::Value *visitBroadcast(const ir::Broadcast &op) override {
    return b_.CreateVectorSplat(unsigned(op.lanes), visitExpr(op.value));
  }

  llvm::Value *visitBinary(const ir::BinaryExpr &op) override {
    llvm::Value *a = visitExpr(op.a), *b = visitExpr(op.b);
    DataType dtype = op.a->dtype;
    bool isFloat = dtype.isFloat(), isSigned = !isUnsigned(dtype);
    if (a->getType() != b->getType()) {
      fail(op, "operands of different types (" + op.a->dtype.str() + ", " + op.b->dtype.str() + ")");
      return a;
    }
    bool isDivision = op.kind() == NodeKind::Div || op.kind() == NodeKind::Mod || op.kind() == NodeKind::FloorDiv ||
                      op.kind() == NodeKind::FloorMod;
    if (bounds_ && isDivision && !isFloat) {
      if (!bounds_->excludes(op.b, 0)) {
        bool modulo = op.kind() == NodeKind::Mod || op.kind() == NodeKind::FloorMod;
        llvm::Value *dividend = convert(a, dtype, DataType::int64().withLanes(dtype.lanes()), op);
        failWhen(b_.CreateICmpEQ(b, llvm::Constant::getNullValue(b->getType())),
                 {modulo ? CheckKind::ModuloByZero : CheckKind::DivisionByZero, op.loc(), ""}, dividend, b_.getInt64(0));
      }
    }
    // Also without run-time checks (vtac compile): MIN / -1 is the IR's MIN, remainder 0, not
    // LLVM's undefined behaviour (a SIGFPE on x86).
    auto *constantDivisor = llvm::dyn_cast<llvm::ConstantInt>(b);
    bool maybeMinusOne = constantDivisor ? constantDivisor->isMinusOne() : !(bounds_ && bounds_->excludes(op.b, -1));
    if (isDivision && !isFloat && isSigned && maybeMinusOne) avoidDivisionOverflow(a, b);
    switch (op.kind()) {
    case NodeKind::Add: return isFloat ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case NodeKind::Sub: return isFloat ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case NodeKind::Mul: return isFloat ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case NodeKind::Div: return isFloat ? b_.CreateFDiv(a, b) : isSigned ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case NodeKind::Mod: return isFloat ? b_.CreateFRem(a, b) : isSigned ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case NodeKind::FloorDiv: {
      if (isFloat) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
      if (!isSigned) return b_.CreateUDiv(a, b);
      llvm::Value *q = b_.CreateSDiv(a, b), *r = b_.CreateSRem(a, b);
      return b_.CreateSelect(roundsDown(r, b), b_.CreateSub(q, llvm::ConstantInt::get(q->getType(), 1)), q);
    }
    case NodeKind::FloorMod: {
      if (isFloat)
        return b_.CreateFSub(a, b_.CreateFMul(b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b)), b));
      if (!isSigned) return b_.CreateURem(a, b);
      llvm::Value *r = b_.CreateSRem(a, b);
      return b_.CreateSelect(roundsDown(r, b), b_.CreateAdd(r, b), r);
    }
    case NodeKind::Min:
      return b_.CreateSelect(isFloat ? b_.CreateFCmpOLT(a, b) : isSigned ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b), a, b);
    case NodeKind::Max:
      return b_.CreateSelect(isFloat ? b_.CreateFCmpOGT(a, b) : isSigned ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b), a, b);
    case NodeKind::EQ: return isFloat ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case NodeKind::NE: return isFloat ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case NodeKind::LT: return isFloat ? b_.CreateFCmpOLT(a, b) : isSigned ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    case NodeKind::LE: return isFloat ? b_.CreateFCmpOLE(a, b) : isSigned ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case NodeKind::GT: return isFloat ? b_.CreateFCmpOGT(a, b) : isSigned ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case NodeKind::GE: return isFloat ? b_.CreateFCmpOGE(a, b) : isSigned ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case NodeKind::And: return b_.CreateAnd(a, b);
    case NodeKind::Or: return b_.CreateOr(a, b);
    default: fail(op, "unknown binary operator"); return a;
    }
  }

  // Whether a truncated quotient must round down: a non-zero remainder whose sign differs from
  // the divisor's.
  llvm::Value *roundsDown(llvm::Value *r, llvm::Value *divisor) {
    llvm::Value *zero = llvm::ConstantInt::get(r->getType(), 0);
    return b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateXor(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(divisor, zero)));
  }

  // The address of an element: a pointer, or a vector of pointers when an index is a vector.
  // With `check` (and run-time checks on), the access is checked first.
  llvm::Value *element(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices, const ir::Node &at,
                       bool check = false) {
    if (indices.size() != buffer.rank() && buffer.rank() != 0)
      fail(at, "buffer '" + buffer.name + "' indexed with " + std::to_string(indices.size()) + " indices");
    int lanes = 1;
    for (const ir::Expr &index : indices) lanes = std::max(lanes, index->dtype.lanes());
    auto widened = [&](llvm::Value *value) {
      return lanes > 1 && !value->getType()->isVectorTy() ? b_.CreateVectorSplat(unsigned(lanes), value) : value;
    };
    auto index64 = [&](const ir::Expr &e) { return widened(toInt64(e)); };
    llvm::Value *flat = widened(b_.getInt64(0));
    std::vector<llvm::Value *> dims;
    for (size_t i = 0; i < indices.size() && i < std::max<size_t>(buffer.rank(), 1); ++i) {
      llvm::Value *index = index64(indices[i]);
      dims.push_back(index);
      if (!buffer.strides.empty()) flat = b_.CreateAdd(flat, b_.CreateMul(index, index64(buffer.strides[i])));
      else flat = i == 0 ? index : b_.CreateAdd(b_.CreateMul(flat, index64(buffer.shape[i])), index);
    }
    if (buffer.elemOffset) flat = b_.CreateAdd(index64(buffer.elemOffset), flat);
    if (check && bounds_) checkAccess(buffer, indices, dims, flat, at);
    return b_.CreateGEP(memoryType(buffer.dtype, at), visitVar(*buffer.data), flat, buffer.name);
  }

  // The first element of a vector access whose lanes are consecutive (a 1-d access at
  // T.Ramp(base, 1, n)), else null: a plain vector load or store instead of a gather/scatter.
  llvm::Value *consecutiveStart(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices, const ir::Node &at) {
    auto *ramp = indices.size() == 1 && buffer.strides.empty() ? indices[0].as<ir::Ramp>() : nullptr;
    auto *stride = ramp ? ramp->stride.as<ir::IntImm>() : nullptr;
    if (!stride || stride->value != 1) return nullptr;
    return element(buffer, {ramp->base}, at);
  }

  llvm::Align elementAlign(const ir::Buffer &buffer, const ir::Node &at) {
    return module_.getDataLayout().getABITypeAlign(memoryType(buffer.dtype, at));
  }

  llvm::Value *visitBufferLoad(const ir::BufferLoad &op) override {
    if (!op.dtype.isScalar()) {
      if (op.buffer->dtype.isBool()) return invalid(op, "the LLVM emitter does not support vector loads of bool");
      llvm::Type *vector = type(op.dtype, op);
      llvm::Value *addresses = element(*op.buffer, op.indices, op, /*check=*/true);
      if (llvm::Value *start = consecutiveStart(*op.buffer, op.indices, op))
        return addAliasInfo(b_.CreateAlignedLoad(vector, start, elementAlign(*op.buffer, op)), *op.buffer);
      return addAliasInfo(b_.CreateMaskedGather(vector, addresses, elementAlign(*op.buffer, op)), *op.buffer);
    }
    llvm::Value *address = element(*op.buffer, op.indices, op, /*check=*/true);
    llvm::Value *value = addAliasInfo(b_.CreateLoad(memoryType(op.buffer->dtype, op), address), *op.buffer);
    return op.buffer->dtype.isBool() ? b_.CreateICmpNE(value, b_.getInt8(0)) : value;
  }

  llvm::Value *emitIntrinsic(const ir::Call &op) override {
    const std::string &name = op.op;
    auto arg = [&](size_t i) { return visitExpr(op.args[i]); };
    if (name == "tir.if_then_else") return lazySelect(op);
    if (name == "tir.isnullptr") return b_.CreateIsNull(arg(0));
    bool isSigned = !isUnsigned(op.dtype);
    if (name == "tir.shift_right" || name == "tir.shift_left") {
      llvm::Value *value = arg(0), *amount = arg(1);
      DataType amountType = op.args[1]->dtype;
      int64_t bits = op.dtype.bits();
      if (bounds_ && !bounds_->provesInRange(op.args[1], ir::intImm(bits, DataType::int64())))
        failWhen(b_.CreateICmpUGE(amount, llvm::ConstantInt::get(amount->getType(), uint64_t(bits))),
                 {CheckKind::ShiftAmount, op.loc(), op.dtype.elementType().str()},
                 convert(amount, amountType, DataType::int64().withLanes(amountType.lanes()), op), b_.getInt64(0));
      if (name == "tir.shift_left") return b_.CreateShl(value, amount);
      return isSigned ? b_.CreateAShr(value, amount) : b_.CreateLShr(value, amount);
    }
    if (name == "tir.bitwise_and") return b_.CreateAnd(arg(0), arg(1));
    if (name == "tir.bitwise_or") return b_.CreateOr(arg(0), arg(1));
    if (name == "tir.bitwise_xor") return b_.CreateXor(arg(0), arg(1));
    if (name == "tir.bitwise_not") return b_.CreateNot(arg(0));
    static const std::pair<const char *, llvm::Intrinsic::ID> unary[] = {
        {"tir.exp", llvm::Intrinsic::exp},     {"tir.log", llvm::Intrinsic::log},   {"tir.sqrt", llvm::Intrinsic::sqrt},
        {"tir.sin", llvm::Intrinsic::sin},     {"tir.cos", llvm::Intrinsic::cos},   {"tir.floor", llvm::Intrinsic::floor},
        {"tir.ceil", llvm::Intrinsic::ceil},   {"tir.round", llvm::Intrinsic::round}, {"tir.trunc", llvm::Intrinsic::trunc},
        {"tir.fabs", llvm::Intrinsic::fabs},   {"tir.exp2", llvm::Intrinsic::exp2}, {"tir.log2", llvm::Intrinsic::log2}};
    for (const auto &[intrinsic, id] : unary)
      if (name == intrinsic) return b_.CreateUnaryIntrinsic(id, arg(0));
    if (name == "tir.pow") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, arg(0), arg(1));
    if (name == "tir.tanh" || name == "tir.erf") {
      if (!op.dtype.isScalar()) return invalid(op, "the LLVM emitter does not support '" + name + "' of vectors");
      std::string libm = name.substr(4) + (op.dtype.bits() == 32 ? "f" : "");
      llvm::Type *t = type(op.dtype, op);
      return b_.CreateCall(module_.getOrInsertFunction(libm, t, t), {arg(0)});
    }
    if (name == "tir.abs") {
      llvm::Value *x = arg(0);
      if (op.dtype.isFloat()) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)), b_.CreateNeg(x), x);
    }
    llvm::Value *one = llvm::ConstantFP::get(type(op.dtype, op), 1.0);
    if (name == "tir.rsqrt") return b_.CreateFDiv(one, b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, arg(0)));
    // tir.sigmoid
    llvm::Value *e = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(arg(0)));
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
  }

  // T.if_then_else evaluates only the branch it takes (it guards out-of-bounds loads).
  llvm::Value *lazySelect(const ir::Call &op) {
    llvm::Value *condition = visitExpr(op.args[0]);
    // Lanes cannot branch apart: a vector if_then_else evaluates both sides.
    if (condition->getType()->isVectorTy()) return b_.CreateSelect(condition, visitExpr(op.args[1]), visitExpr(op.args[2]));
    llvm::BasicBlock *onTrue = newBlock("then"), *onFalse = newBlock("else"), *join = newBlock("endif");
    b_.CreateCondBr(condition, onTrue, onFalse);
    b_.SetInsertPoint(onTrue);
    llvm::Value *t = visitExpr(op.args[1]);
    llvm::BasicBlock *trueEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(onFalse);
    llvm::Value *f = visitExpr(op.args[2]);
    llvm::BasicBlock *falseEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode *phi = b_.CreatePHI(t->getType(), 2);
    phi->addIncoming(t, trueEnd);
    phi->addIncoming(f, falseEnd);
    return phi;
  }

  llvm::Value *emitExternCall(const ir::Call &op, const std::string &callee) override {
    llvm::Function *fn = nullptr;
    if (runtimeSignature(callee)) {
      fn = runtimeFunction(callee);
    } else {
      std::vector<llvm::Type *> params;
      for (size_t i = 1; i < op.args.size(); ++i) params.push_back(type(op.args[i]->dtype, *op.args[i]));
      llvm::Type *result = op.dtype.isVoid() ? b_.getVoidTy() : type(op.dtype, op);
      fn = llvm::cast<llvm::Function>(
          module_.getOrInsertFunction(callee, llvm::FunctionType::get(result, params, false)).getCallee());
    }
    llvm::FunctionType *fnType = fn->getFunctionType();
    if (fnType->getNumParams() != op.args.size() - 1)
      return invalid(op, "'" + callee + "' takes " + std::to_string(fnType->getNumParams()) + " arguments, got " +
                             std::to_string(op.args.size() - 1));
    std::vector<llvm::Value *> args;
    for (size_t i = 1; i < op.args.size(); ++i) {
      llvm::Value *value = visitExpr(op.args[i]);
      llvm::Type *param = fnType->getParamType(unsigned(i - 1));
      if (value->getType() != param) {
        if (param->isPointerTy() != value->getType()->isPointerTy())
          return invalid(*op.args[i], "argument " + std::to_string(i) + " of '" + callee + "' must be a " +
                                          (param->isPointerTy() ? "handle" : "number"));
        value = b_.CreateIntCast(value, param, !isUnsigned(op.args[i]->dtype));
      }
      args.push_back(value);
    }
    llvm::Value *result = b_.CreateCall(fn, args);
    if (fnType->getReturnType()->isVoidTy()) return op.dtype.isVoid() ? result : llvm::ConstantInt::get(type(op.dtype, op), 0);
    return result;
  }

  llvm::Value *emitAddressOf(const ir::Call &op, const ir::BufferLoad &load) override {
    llvm::Value *address = element(*load.buffer, load.indices, op, /*check=*/true);
    if (address->getType()->isVectorTy()) return invalid(op, "'tir.address_of' of a vector of elements");
    return address;
  }

  llvm::Value *emitAccessPtr(const ir::Call &op, DataType elementType, const ir::Var &data) override {
    llvm::Value *first = toInt64(op.args[2]);
    int64_t elementBytes = std::max(1, elementType.bytes());
    ir::Expr bytes = bounds_ ? bounds_->allocationBytes(data) : ir::Expr();
    if (bytes && allBound(bytes)) {
      // The interpreter's test: 0 <= first <= elements and 0 <= count <= elements - first.
      llvm::Value *count = toInt64(op.args[3]), *size = toInt64(bytes);
      llvm::Value *elements = b_.CreateSDiv(size, b_.getInt64(elementBytes));
      llvm::Value *outside = b_.CreateOr(b_.CreateICmpUGT(first, elements),
                                         b_.CreateICmpUGT(count, b_.CreateSub(elements, first)));
      CheckSite site{CheckKind::AccessPtrRange, op.loc(), data.name};
      site.elementBytes = elementBytes;
      failWhen(outside, std::move(site), first, count, size);
    }
    return b_.CreateGEP(b_.getInt8Ty(), visitVar(data), b_.CreateMul(first, b_.getInt64(elementBytes)));
  }

  llvm::Value *emitTensorField(const ir::Call &op) override {
    llvm::Value *tensor = visitExpr(op.args[0]);
    auto field = [&](unsigned index, const char *name) { return b_.CreateStructGEP(dlTensor_, tensor, index, name); };
    auto typeField = [&](unsigned index, llvm::Type *t) {
      llvm::Value *address = b_.CreateGEP(dlTensor_, tensor, {b_.getInt32(0), b_.getInt32(3), b_.getInt32(index)});
      return b_.CreateZExt(b_.CreateLoad(t, address), b_.getInt32Ty());
    };
    auto dim = [&](unsigned index) {
      llvm::Value *array = b_.CreateLoad(b_.getPtrTy(), field(index, index == 4 ? "shape" : "strides"));
      llvm::Value *i = toInt64(op.args.size() > 1 ? op.args[1] : ir::intImm(0));
      return b_.CreateLoad(b_.getInt64Ty(), b_.CreateGEP(b_.getInt64Ty(), array, i));
    };
    const std::string &name = op.op;
    if (name == hostop::kTensorIsNull) return b_.CreateIsNull(tensor);
    if (name == hostop::kTensorDeviceType)
      return b_.CreateLoad(b_.getInt32Ty(), b_.CreateGEP(dlTensor_, tensor, {b_.getInt32(0), b_.getInt32(1), b_.getInt32(0)}));
    if (name == hostop::kTensorNdim) return b_.CreateLoad(b_.getInt32Ty(), field(2, "ndim"));
    if (name == hostop::kTensorTypeCode) return typeField(0, b_.getInt8Ty());
    if (name == hostop::kTensorTypeBits) return typeField(1, b_.getInt8Ty());
    if (name == hostop::kTensorTypeLanes) return typeField(2, b_.getInt16Ty());
    if (name == hostop::kTensorShape) return dim(4);
    if (name == hostop::kTensorStride) return dim(5);
    if (name == hostop::kTensorHasStrides) return b_.CreateIsNotNull(b_.CreateLoad(b_.getPtrTy(), field(5, "strides")));
    if (name == hostop::kTensorByteOffset) return b_.CreateLoad(b_.getInt64Ty(), field(6, "byte_offset"));
    if (name == hostop::kTensorData) {
      llvm::Value *data = b_.CreateLoad(b_.getPtrTy(), field(0, "data"));
      llvm::Value *offset = b_.CreateLoad(b_.getInt64Ty(), field(6, "byte_offset"));
      return b_.CreateGEP(b_.getInt8Ty(), data, offset);
    }
    return invalid(op, "unknown tensor field '" + name + "'");
  }

  // ---- statements ---------------------------------------------------------------------------
  void emitLet(const ir::Var &var, const ir::Expr &value) override {
    if (bounds_) bounds_->bindLet(var, value);
    bind(var, visitExpr(value));
  }
  void emitMakeTensor(const ir::Var &var, const ir::Call &call) override { bind(var, makeTensor(call)); }
  void bind(const ir::Var &var, llvm::Value *value) {
    if (!llvm::isa<llvm::Constant>(value) && !value->hasName()) value->setName(var.name);
    vars_[&var] = value;
  }
  void visitAssertStmt(const ir::AssertStmt &op) override {
    llvm::Value *holds = visitExpr(op.condition);
    auto *message = op.message.as<ir::StringImm>();
    llvm::BasicBlock *failed = newBlock("check_failed"), *next = newBlock("checked");
    b_.CreateCondBr(holds, next, failed);
    b_.SetInsertPoint(failed);
    b_.CreateRet(b_.CreateCall(failFunction(), {stringConstant(message ? message->value : "assertion failed")}));
    b_.SetInsertPoint(next);
    visitStmt(op.body);
  }
  void visitWhile(const ir::While &op) override {
    llvm::BasicBlock *header = newBlock("while"), *body = newBlock("while_body"), *exit = newBlock("while_end");
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    b_.CreateCondBr(visitExpr(op.condition), body, exit);
    b_.SetInsertPoint(body);
    if (countsSteps_) countSteps(op, b_.getInt64(1));
    visitStmt(op.body);
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
  }
  void visitIfThenElse(const ir::IfThenElse &op) override {
    llvm::BasicBlock *then = newBlock("then"), *otherwise = op.elseCase ? newBlock("else") : nullptr,
                     *join = newBlock("endif");
    b_.CreateCondBr(visitExpr(op.condition), then, otherwise ? otherwise : join);
    b_.SetInsertPoint(then);
    visitStmt(op.thenCase);
    b_.CreateBr(join);
    if (otherwise) {
      b_.SetInsertPoint(otherwise);
      visitStmt(op.elseCase);
      b_.CreateBr(join);
    }
    b_.SetInsertPoint(join);
  }
  void emitReturnIfNonZero(const ir::Node &at, llvm::StringRef callee, llvm::Value *status) override {
    failedCall(at, callee, b_.CreateICmpNE(status, llvm::ConstantInt::get(status->getType(), 0)));
  }
  void emitDiscard(llvm::Value *) override {}
  void emitErrorCountCheck(const ir::Node &at, llvm::StringRef callee) override {
    failedCall(at, callee, b_.CreateICmpSGT(runtimeErrorCount(), errorsAtEntry_));
  }
  // The bytes `op` allocates (checked with the run-time checks), as a size_t.
  llvm::Value *allocationBytes(const ir::Allocate &op) {
    const llvm::DataLayout &layout = module_.getDataLayout();
    llvm::Value *bytes = b_.getInt64(layout.getTypeAllocSize(memoryType(op.dtype, op)));
    if (checkSites_) {
      checkAllocationSize(op, bytes);
    } else {
      for (const ir::Expr &extent : op.extents) bytes = b_.CreateMul(bytes, toInt64(extent));
    }
    return b_.CreateIntCast(bytes, layout.getIntPtrType(ctx_), false);
  }
  void emitVtaAllocate(const ir::Allocate &op) override {
    llvm::BasicBlock *skipped = nullptr;
    if (op.condition) {
      llvm::BasicBlock *allocate = newBlock("vta_alloc");
      llvm::Value *condition = visitExpr(op.condition);
      skipped = b_.GetInsertBlock();
      llvm::BasicBlock *join = newBlock("vta_allocated");
      b_.CreateCondBr(condition, allocate, join);
      b_.SetInsertPoint(allocate);
      llvm::Value *buffer = b_.CreateCall(runtimeFunction("VTABufferAlloc"), {allocationBytes(op)}, op.bufferVar->name);
      returnIf(b_.CreateIsNull(buffer), b_.getInt32(kStatusRuntimeError));
      llvm::BasicBlock *allocated = b_.GetInsertBlock();
      b_.CreateBr(join);
      b_.SetInsertPoint(join);
      llvm::PHINode *phi = b_.CreatePHI(b_.getPtrTy(), 2, op.bufferVar->name);
      phi->addIncoming(buffer, allocated);
      phi->addIncoming(llvm::ConstantPointerNull::get(b_.getPtrTy()), skipped);
      vars_[op.bufferVar.get()] = phi;
      visitStmt(op.body);
      llvm::BasicBlock *release = newBlock("vta_free"), *done = newBlock("vta_freed");
      b_.CreateCondBr(b_.CreateIsNotNull(phi), release, done);
      b_.SetInsertPoint(release);
      b_.CreateCall(runtimeFunction("VTABufferFree"), {phi});
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return;
    }
    llvm::Value *buffer = b_.CreateCall(runtimeFunction("VTABufferAlloc"), {allocationBytes(op)}, op.bufferVar->name);
    returnIf(b_.CreateIsNull(buffer), b_.getInt32(kStatusRuntimeError));
    vars_[op.bufferVar.get()] = buffer;
    visitStmt(op.body);
    b_.CreateCall(runtimeFunction("VTABufferFree"), {buffer});
  }
  llvm::Value *emitVtaBufferBytes(llvm::Value *handle) override { return b_.CreateCall(vtaBufferBytesFunction(), {handle}); }
  void emitAllocate(const ir::Allocate &op) override {
    llvm::Value *bytes = allocationBytes(op);
    llvm::FunctionCallee malloc = module_.getOrInsertFunction("malloc", b_.getPtrTy(), bytes->getType());
    llvm::Value *memory = b_.CreateCall(malloc, {bytes}, op.bufferVar->name);
    llvm::BasicBlock *failed = newBlock("alloc_failed"), *next = newBlock("allocated");
    b_.CreateCondBr(b_.CreateIsNull(memory), failed, next);
    b_.SetInsertPoint(failed);
    b_.CreateRet(b_.CreateCall(failFunction(),
                               {stringConstant(function_.symbol + ": cannot allocate '" + op.bufferVar->name + "'")}));
    b_.SetInsertPoint(next);
    if (op.constantData) {
      const std::vector<uint8_t> &bytes = op.constantData->bytes();
      auto *data = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint8_t>(bytes));
      auto *constant = new llvm::GlobalVariable(module_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data,
                                                op.bufferVar->name + "_constant");
      b_.CreateMemCpy(memory, llvm::MaybeAlign(1), constant, llvm::MaybeAlign(1), bytes.size());
    }
    vars_[op.bufferVar.get()] = memory;
    visitStmt(op.body);
    b_.CreateCall(module_.getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy()), {memory});
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    llvm::Value *value = visitExpr(op.value);
    llvm::Value *address = element(*op.buffer, op.indices, op, /*check=*/true);
    if (!address->getType()->isVectorTy()) {
      if (op.buffer->dtype.isBool()) value = b_.CreateZExt(value, b_.getInt8Ty());
      addAliasInfo(b_.CreateStore(value, address), *op.buffer);
      return;
    }
    if (op.buffer->dtype.isBool()) return fail(op, "the LLVM emitter does not support vector stores of bool");
    auto lanes = llvm::cast<llvm::FixedVectorType>(address->getType())->getNumElements();
    if (!value->getType()->isVectorTy()) value = b_.CreateVectorSplat(lanes, value);
    if (llvm::Value *start = consecutiveStart(*op.buffer, op.indices, op))
      addAliasInfo(b_.CreateAlignedStore(value, start, elementAlign(*op.buffer, op)), *op.buffer);
    else
      addAliasInfo(b_.CreateMaskedScatter(value, address, elementAlign(*op.buffer, op)), *op.buffer);
  }

  llvm::Value *placeholder() override { return b_.getInt32(0); }

  void emitLoop(const ir::Node &at, const ir::Var &var, const ir::Expr &min, const ir::Expr &extent,
                const ir::Stmt &body, const char *) override {
    if (bounds_) bounds_->bindLoop(var, min, extent);
    // The interpreter's rule (ForExec): `extent` iterations, none when a signed extent is not
    // positive, the variable wrapping in its type; so the loop runs until it reaches `end`,
    // which may have wrapped, and is entered only when it runs at all.
    llvm::Value *first = visitExpr(min), *iterations = convert(visitExpr(extent), extent->dtype, var.dtype, var);
    llvm::Value *zero = llvm::ConstantInt::get(iterations->getType(), 0);
    llvm::Value *runs = isUnsigned(var.dtype) ? b_.CreateICmpNE(iterations, zero) : b_.CreateICmpSGT(iterations, zero);
    llvm::Value *end = b_.CreateAdd(first, iterations);
    auto iteration = [&](llvm::Value *index) {
      vars_[&var] = index;
      visitStmt(body);
      return b_.CreateAdd(index, llvm::ConstantInt::get(index->getType(), 1));
    };
    if (!countsSteps_) return emitRange(var.name, first, end, runs, iteration);
    if (!ir::isLeafLoopBody(body, kLoopRunningCalls)) {
      return emitRange(var.name, first, end, runs, [&](llvm::Value *index) {
        countSteps(at, b_.getInt64(1));
        return iteration(index);
      });
    }
    // A leaf loop counts its iterations a chunk at a time, as the interpreter does (LoopSteps.h):
    // the loop over each chunk has no count in it. A constant extent is one chunk or none.
    auto *constantExtent = extent.as<ir::IntImm>();
    if (constantExtent && uint64_t(constantExtent->value) <= ir::kLeafLoopStepChunk) {
      if (constantExtent->value > 0) countSteps(at, b_.getInt64(uint64_t(constantExtent->value)));
      return emitRange(var.name, first, end, runs, iteration);
    }
    emitRange(var.name + "_chunk", first, end, runs, [&](llvm::Value *chunk) {
      // What is left, end - chunk in the variable's type, is positive and fits it unsigned.
      llvm::Value *left = b_.CreateZExt(b_.CreateSub(end, chunk), b_.getInt64Ty());
      llvm::Value *count = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, left, b_.getInt64(ir::kLeafLoopStepChunk));
      countSteps(at, count);
      llvm::Value *chunkEnd = b_.CreateAdd(chunk, b_.CreateTrunc(count, chunk->getType()));
      emitRange(var.name, chunk, chunkEnd, b_.getTrue(), iteration);
      return chunkEnd;
    });
  }

  // `if (runs) { index = first; do { next = iteration(index); index = next; } while (index != end); }`,
  // where `iteration(index)` emits the body and returns `next`.
  void emitRange(const std::string &name, llvm::Value *first, llvm::Value *end, llvm::Value *runs,
                 llvm::function_ref<llvm::Value *(llvm::Value *)> iteration) {
    llvm::BasicBlock *preheader = b_.GetInsertBlock();
    llvm::BasicBlock *loopBody = newBlock("for_body"), *exit = newBlock("for_end");
    b_.CreateCondBr(runs, loopBody, exit);
    b_.SetInsertPoint(loopBody);
    llvm::PHINode *index = b_.CreatePHI(first->getType(), 2, name);
    index->addIncoming(first, preheader);
    llvm::Value *next = iteration(index);
    index->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpNE(next, end), loopBody, exit);
    b_.SetInsertPoint(exit);
  }


  // ---- graphs ------------------------------------------------------------------------------
  // A DLTensor on the stack over the data and dims of a vtac.make_tensor (make_vta_tensor) call.
  llvm::Value *makeTensor(const ir::Call &call) {
    size_t ndim = call.args.size() - 4;
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Value *tensor = entry.CreateAlloca(dlTensor_, nullptr, "tensor");
    llvm::Value *shape = entry.CreateAlloca(b_.getInt64Ty(), b_.getInt64(std::max<size_t>(ndim, 1)), "shape");
    for (size_t i = 0; i < ndim; ++i)
      b_.CreateStore(toInt64(call.args[4 + i]), b_.CreateConstGEP1_64(b_.getInt64Ty(), shape, i));
    auto field = [&](std::initializer_list<unsigned> path) {
      std::vector<llvm::Value *> indices{b_.getInt32(0)};
      for (unsigned index : path) indices.push_back(b_.getInt32(index));
      return b_.CreateGEP(dlTensor_, tensor, indices);
    };
    auto narrow = [&](size_t arg, llvm::Type *t) { return b_.CreateIntCast(visitExpr(call.args[arg]), t, false); };
    b_.CreateStore(visitExpr(call.args[0]), field({0}));
    b_.CreateStore(b_.getInt32(call.op == hostop::kMakeVtaTensor ? kDLExtDev : kDLCPU), field({1, 0}));
    b_.CreateStore(b_.getInt32(0), field({1, 1}));
    b_.CreateStore(b_.getInt32(uint32_t(ndim)), field({2}));
    b_.CreateStore(narrow(1, b_.getInt8Ty()), field({3, 0}));
    b_.CreateStore(narrow(2, b_.getInt8Ty()), field({3, 1}));
    b_.CreateStore(narrow(3, b_.getInt16Ty()), field({3, 2}));
    b_.CreateStore(shape, field({4}));
    b_.CreateStore(llvm::ConstantPointerNull::get(b_.getPtrTy()), field({5}));
    b_.CreateStore(b_.getInt64(0), field({6}));
    return tensor;
  }

  void emitCallChecked(const ir::Call &call, const std::string &symbol, const std::vector<llvm::Value *> &args) override {
    std::vector<llvm::Type *> params(args.size(), b_.getPtrTy());
    llvm::FunctionCallee callee =
        module_.getOrInsertFunction(symbol, llvm::FunctionType::get(b_.getInt32Ty(), params, false));
    if (callee.getFunctionType()->getNumParams() != args.size())
      return fail(call, "'" + symbol + "' is called with " + std::to_string(args.size()) +
                            " tensors but takes " + std::to_string(callee.getFunctionType()->getNumParams()));
    llvm::Value *status = callCountingCode(callee, args);
    returnIf(b_.CreateICmpNE(status, b_.getInt32(0)), status);
  }

  // ---- outlined functions: micro-kernels and parallel tasks -------------------------------
  llvm::StructType *closureType(const std::vector<ir::VarRef> &closure) {
    std::vector<llvm::Type *> fields;
    for (const ir::VarRef &var : closure) fields.push_back(memoryType(var->dtype, *var));
    return llvm::StructType::get(ctx_, fields);
  }

  // An internal `i32 id(params...)` whose first parameters are `leading`, the last `closure`'s
  // struct, and which runs `body`. Built before the entry, so without error-count checks: the runtime checks
  // what a micro-kernel recorded when the push returns, and a parallel task makes no runtime
  // call.
  llvm::Function *addOutlined(const std::string &id, const std::vector<ir::VarRef> &leading,
                              const std::vector<ir::VarRef> &closure, const ir::Stmt &body) {
    std::vector<llvm::Type *> params;
    for (const ir::VarRef &var : leading) params.push_back(type(var->dtype, *var));
    params.push_back(b_.getPtrTy());
    auto *fn = llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), params, false),
                                      llvm::Function::InternalLinkage, id, module_);
    begin(fn);
    for (size_t i = 0; i < leading.size(); ++i) {
      fn->getArg(unsigned(i))->setName(leading[i]->name);
      vars_[leading[i].get()] = fn->getArg(unsigned(i));
    }
    unsigned closureArg = unsigned(leading.size());
    llvm::StructType *type = closureType(closure);
    for (size_t i = 0; i < closure.size(); ++i) {
      const ir::Var &var = *closure[i];
      llvm::Value *value = b_.CreateLoad(type->getElementType(unsigned(i)),
                                         b_.CreateStructGEP(type, fn->getArg(closureArg), unsigned(i)), var.name);
      vars_[&var] = var.dtype.isBool() ? b_.CreateICmpNE(value, b_.getInt8(0)) : value;
    }
    visitStmt(body);
    if (countsSteps_) flushSteps();
    b_.CreateRet(b_.getInt32(0));
    return fn;
  }

  llvm::Function *addKernel(size_t k) {
    const MicroKernel &kernel = function_.kernels[k];
    return addOutlined(function_.symbol + "_uop_kernel" + std::to_string(k), {}, kernel.closure, kernel.body);
  }

  // `i32 SYMBOL_parallelT(i64 begin, i64 end, ptr closure)`, as vtac_parallel_for calls it.
  llvm::Function *addTask(size_t t) {
    const ParallelTask &task = function_.tasks[t];
    return addOutlined(function_.symbol + "_parallel" + std::to_string(t), {task.begin, task.end}, task.closure,
                       task.body);
  }

  // A zeroed stack struct holding the current values of `closure` (null when it is empty) and
  // its size in bytes. Zeroed: the runtime caches a micro-kernel by the closure's bytes,
  // padding included.
  std::pair<llvm::Value *, uint64_t> packClosure(const std::vector<ir::VarRef> &closure) {
    if (closure.empty()) return {llvm::ConstantPointerNull::get(b_.getPtrTy()), 0};
    llvm::StructType *type = closureType(closure);
    uint64_t bytes = module_.getDataLayout().getTypeAllocSize(type);
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Value *pointer = entry.CreateAlloca(type, nullptr, "closure");
    b_.CreateMemSet(pointer, b_.getInt8(0), bytes, llvm::MaybeAlign(8));
    for (size_t i = 0; i < closure.size(); ++i) {
      llvm::Value *value = visitVar(*closure[i]);
      if (closure[i]->dtype.isBool()) value = b_.CreateZExt(value, b_.getInt8Ty());
      b_.CreateStore(value, b_.CreateStructGEP(type, pointer, unsigned(i)));
    }
    return {pointer, bytes};
  }

  void emitPushKernel(const ir::Node &at, size_t index) override {
    const MicroKernel &kernel = function_.kernels[index];
    std::string id = function_.symbol + "_uop_kernel" + std::to_string(index);
    llvm::GlobalVariable *handle;
    if (kernelHandles_) {
      handle = new llvm::GlobalVariable(module_, b_.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                        id + "_handle");
      kernelHandles_->push_back(handle->getName().str());
    } else {
      handle = new llvm::GlobalVariable(module_, b_.getPtrTy(), false, llvm::GlobalValue::InternalLinkage,
                                        llvm::ConstantPointerNull::get(b_.getPtrTy()), id + "_handle");
    }
    auto [closure, bytes] = packClosure(kernel.closure);
    llvm::Value *status = callCountingCode(runtimeFunction(kernel.pushFunction),
                                           {handle, kernels_[index], closure, b_.getInt32(uint32_t(bytes))});
    failedCall(at, kernel.pushFunction, b_.CreateICmpNE(status, b_.getInt32(0)));
  }

  void emitParallelFor(size_t index, llvm::Value *extent) override {
    llvm::FunctionCallee pool = module_.getOrInsertFunction(
        "vtac_parallel_for", llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt64Ty(), b_.getPtrTy(), b_.getPtrTy()}, false));
    llvm::Value *closure = packClosure(function_.tasks[index].closure).first;
    llvm::Value *status = callCountingCode(pool, {extent, tasks_[index], closure});
    returnIf(b_.CreateICmpNE(status, b_.getInt32(0)), status);
  }

  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  llvm::IRBuilder<> b_;
  llvm::StructType *dlTensor_;
  std::vector<llvm::Function *> kernels_;
  std::vector<llvm::Function *> tasks_;
  llvm::Function *fn_ = nullptr;
  llvm::Value *errorsAtEntry_ = nullptr;  // the runtime's error count when the function started
  std::unordered_map<const ir::Var *, llvm::Value *> vars_;
  std::unordered_map<std::string, llvm::Value *> &strings_;
  std::vector<CheckSite> *checkSites_;
  bool countsSteps_;
  llvm::Value *pendingSteps_ = nullptr, *stepRoom_ = nullptr;  // i64 allocas (startCountingSteps)
  std::vector<std::string> *kernelHandles_;
  std::optional<AccessBounds> bounds_;  // with run-time checks
  struct AliasInfo {
    llvm::MDNode *scope, *others;  // the !alias.scope and !noalias of an access
  };
  std::unordered_map<const ir::Var *, AliasInfo> aliasInfo_;  // by data variable (addAliasScopes)
};

llvm::OptimizationLevel optimizationLevel(int level) {
  switch (level) {
  case 0: return llvm::OptimizationLevel::O0;
  case 1: return llvm::OptimizationLevel::O1;
  case 3: return llvm::OptimizationLevel::O3;
  default: return llvm::OptimizationLevel::O2;
  }
}

struct ResolvedTarget {
  std::string spelled;  // as given (messages say what the user wrote)
  llvm::Triple triple;
  const llvm::Target *target;
};

// The target of a supported triple (empty: the host's). The triple is normalised as clang does
// (armv7a-linux-gnueabihf -> armv7a-unknown-linux-gnueabihf): unnormalised, its environment is
// not parsed and LLVM's ARM backend takes it for soft-float.
llvm::Expected<ResolvedTarget> resolveTarget(const std::string &name) {
  initializeTargets();
  std::string spelled = name.empty() ? llvm::sys::getDefaultTargetTriple() : name;
  llvm::Triple triple(llvm::Triple::normalize(spelled));
  if (triple.getArch() != llvm::Triple::x86_64 && triple.getArch() != llvm::Triple::x86 &&
      triple.getArch() != llvm::Triple::arm && triple.getArch() != llvm::Triple::thumb)
    return ir::diagnosticError("target '" + spelled + "' is not supported (vtac generates code for X86 and ARM)");
  std::string lookupError;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple.str(), lookupError);
  if (!target) return ir::diagnosticError("target '" + spelled + "': " + lookupError);
  return ResolvedTarget{spelled, triple, target};
}

}  // namespace

llvm::Error checkCpuAndFeatures(const std::string &tripleName, const std::string &cpu, const std::string &features) {
  auto resolved = resolveTarget(tripleName);
  if (!resolved) return resolved.takeError();
  const llvm::Triple &triple = resolved->triple;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(resolved->target->createMCSubtargetInfo(triple.str(), "", ""));
  if (!subtarget->isCPUStringValid(cpu))
    return llvm::createStringError("--mcpu: '" + cpu + "' is not a CPU of '" + resolved->spelled + "'");
  llvm::SmallVector<llvm::StringRef> attributes;
  llvm::StringRef(features).split(attributes, ',', -1, false);
  for (llvm::StringRef attribute : attributes) {
    llvm::StringRef name = attribute.drop_front();
    bool known = llvm::any_of(subtarget->getAllProcessorFeatures(),
                              [&](const llvm::SubtargetFeatureKV &feature) { return name == feature.Key; });
    if ((!attribute.starts_with("+") && !attribute.starts_with("-")) || !known)
      return llvm::createStringError("--mattr: '" + attribute.str() + "' is not +NAME or -NAME with NAME a feature of '" +
                                     resolved->spelled + "'");
  }
  return llvm::Error::success();
}

llvm::Expected<LLVMModule> buildLLVMModule(const std::vector<HostFunction> &functions, const std::string &sourceName,
                                           const LLVMEmitOptions &options, llvm::LLVMContext &context) {
  auto resolved = resolveTarget(options.targetTriple);
  if (!resolved) return resolved.takeError();
  const llvm::Triple &triple = resolved->triple;
  const llvm::Target *target = resolved->target;
  llvm::TargetOptions targetOptions;
  // As clang does: floats go in VFP registers on a hard-float triple (the PYNQ board's
  // armv7a-linux-gnueabihf, Tag_ABI_VFP_args), in core registers otherwise.
  targetOptions.FloatABIType = triple.isHardFloatABI() ? llvm::FloatABI::Hard : llvm::FloatABI::Soft;
  auto codeGenLevel = llvm::CodeGenOpt::getLevel(options.optLevel);
  LLVMModule result;
  result.machine.reset(target->createTargetMachine(triple.str(), options.cpu, options.features, targetOptions,
                                                   llvm::Reloc::PIC_, std::nullopt,
                                                   codeGenLevel ? *codeGenLevel : llvm::CodeGenOptLevel::Default));
  if (!result.machine) return ir::diagnosticError("cannot create a code generator for '" + triple.str() + "'");

  result.module = std::make_unique<llvm::Module>(sourceName, context);
  llvm::Module &module = *result.module;
  module.setTargetTriple(triple.str());
  module.setDataLayout(result.machine->createDataLayout());
  ModuleState state(module);
  if (options.runtimeChecks) state.checkSites = &result.checkSites;
  state.countSteps = options.countSteps;
  state.onChipScopesInHostMemory = options.onChipScopesInHostMemory;
  if (options.kernelHandlesFromCaller) state.kernelHandles = &result.kernelHandles;
  for (const HostFunction &function : functions) {
    FunctionBuilder builder(state, function);
    builder.addFunction();
    if (!options.packedEntry.empty() && &function == &functions[0]) builder.addPackedEntry(options.packedEntry);
    if (llvm::Error error = builder.takeError()) return error;
  }
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(module, &verifierStream))
    return ir::diagnosticError("internal error: the LLVM module is invalid: " + verifierStream.str());

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  // The standard instrumentations make the pipeline skip `optnone` functions (VTA host code).
  llvm::PassInstrumentationCallbacks instrumentation;
  llvm::StandardInstrumentations standard(context, /*DebugLogging=*/false);
  standard.registerCallbacks(instrumentation, &modules);
  llvm::PassBuilder passes(result.machine.get(), llvm::PipelineTuningOptions(), std::nullopt, &instrumentation);
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functionAnalyses);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functionAnalyses, cgscc, modules);
  llvm::OptimizationLevel level = optimizationLevel(options.optLevel);
  llvm::ModulePassManager pipeline =
      level == llvm::OptimizationLevel::O0 ? passes.buildO0DefaultPipeline(level) : passes.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
  return result;
}

llvm::Expected<std::string> emitLLVM(const std::vector<HostFunction> &functions, const std::string &sourceName,
                                     const LLVMEmitOptions &options) {
  llvm::LLVMContext context;
  auto built = buildLLVMModule(functions, sourceName, options, context);
  if (!built) return built.takeError();
  llvm::Module &module = *built->module;
  std::string bytes;
  llvm::raw_string_ostream out(bytes);
  switch (options.kind) {
  case EmitKind::LLVMIR: module.print(out, nullptr); break;
  case EmitKind::Bitcode: llvm::WriteBitcodeToFile(module, out); break;
  default: {
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream stream(buffer);
    llvm::legacy::PassManager codegen;
    auto fileType = options.kind == EmitKind::Assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
    if (built->machine->addPassesToEmitFile(codegen, stream, nullptr, fileType))
      return ir::diagnosticError("target '" + module.getTargetTriple() + "' cannot emit this kind of file");
    codegen.run(module);
    out << buffer;
  }
  }
  out.flush();
  return bytes;
}

}  // namespace vtac::codegen
