// Statements: IR statement -> StmtExec (see Compiler.h).
#include "Compiler.h"
#include "vtac/ir/Builtins.h"
#include "vtac/ir/LoopSteps.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/UndefinedVars.h"

namespace vtac::backend::interp {

using ir::DataType;
using ir::NodeKind;

FunctionCompiler::ScopedBinding::ScopedBinding(FunctionCompiler &compiler, const ir::Var *var, VarInfo info)
    : compiler_(&compiler), var_(var) {
  auto it = compiler.vars_.find(var);
  if (it != compiler.vars_.end()) previous_ = it->second;
  compiler.vars_[var] = info;
}

FunctionCompiler::ScopedBinding::ScopedBinding(ScopedBinding &&other) noexcept
    : compiler_(other.compiler_), var_(other.var_), previous_(other.previous_) {
  other.compiler_ = nullptr;
}

FunctionCompiler::ScopedBinding::~ScopedBinding() {
  if (!compiler_) return;
  if (previous_)
    compiler_->vars_[var_] = *previous_;
  else
    compiler_->vars_.erase(var_);
}

StmtPtr FunctionCompiler::compileStmt(const ir::Stmt &stmt) {
  ir::SourceLoc outer = stmtLoc_;
  if (stmt->loc().isKnown()) stmtLoc_ = stmt->loc();
  StmtPtr result;
  switch (stmt->kind()) {
  case NodeKind::BufferStore: result = compileStore(static_cast<const ir::BufferStore &>(*stmt)); break;
  case NodeKind::LetStmt: result = compileLet(static_cast<const ir::LetStmt &>(*stmt)); break;
  case NodeKind::AttrStmt: result = compileAttr(static_cast<const ir::AttrStmt &>(*stmt)); break;
  case NodeKind::AssertStmt: {
    auto &assertion = static_cast<const ir::AssertStmt &>(*stmt);
    auto node = std::make_unique<AssertExec>();
    node->condition = compileInt(assertion.condition);
    if (auto *text = assertion.message.as<ir::StringImm>()) node->message = text->value;
    node->loc = locOf(assertion);
    node->body = compileStmt(assertion.body);
    result = std::move(node);
    break;
  }
  case NodeKind::For: result = compileFor(static_cast<const ir::For &>(*stmt)); break;
  case NodeKind::While: {
    auto &loop = static_cast<const ir::While &>(*stmt);
    auto node = std::make_unique<WhileExec>();
    node->loc = locOf(loop);
    node->condition = compileInt(loop.condition);
    node->body = compileStmt(loop.body);
    result = std::move(node);
    break;
  }
  case NodeKind::IfThenElse: {
    auto &branch = static_cast<const ir::IfThenElse &>(*stmt);
    auto node = std::make_unique<IfExec>();
    node->condition = compileInt(branch.condition);
    node->thenCase = compileStmt(branch.thenCase);
    if (branch.elseCase) node->elseCase = compileStmt(branch.elseCase);
    result = std::move(node);
    break;
  }
  case NodeKind::SeqStmt: {
    auto node = std::make_unique<SeqExec>();
    for (const ir::Stmt &child : static_cast<const ir::SeqStmt &>(*stmt).stmts)
      node->stmts.push_back(compileStmt(child));
    result = std::move(node);
    break;
  }
  case NodeKind::Evaluate: {
    auto node = std::make_unique<EvaluateExec>();
    node->value = compileAssign(newSlot(), static_cast<const ir::Evaluate &>(*stmt).value);
    result = std::move(node);
    break;
  }
  case NodeKind::Allocate: result = compileAllocate(static_cast<const ir::Allocate &>(*stmt)); break;
  case NodeKind::DeclBuffer:  // a view: accesses find the storage through its data variable
    result = compileStmt(static_cast<const ir::DeclBuffer &>(*stmt).body);
    break;
  case NodeKind::BlockRealize: {
    auto &realize = static_cast<const ir::BlockRealize &>(*stmt);
    result = compileBlock(*realize.block, &realize);
    break;
  }
  case NodeKind::Block: result = compileBlock(static_cast<const ir::Block &>(*stmt), nullptr); break;
  default:
    fail(*stmt, llvm::Twine(ir::nodeKindName(stmt->kind())) + " is not supported by the interpreter");
    result = std::make_unique<SeqExec>();
    break;
  }
  stmtLoc_ = outer;
  return result;
}

StmtPtr FunctionCompiler::compileStore(const ir::BufferStore &store) {
  DataType element = store.buffer->dtype;
  if (kindOf(store.value->dtype) != kindOf(element) || element.isHandle()) {
    fail(store, "cannot store a " + store.value->dtype.str() + " value into buffer '" +
                    store.buffer->name + "' of " + element.str());
    return std::make_unique<SeqExec>();
  }
  if (StmtPtr accumulate = compileAccumulate(store)) return accumulate;
  BufferAccess access = compileAccess(*store.buffer, store.indices, store);
  if (element.isFloat())
    return forFloatElement(element, [&](auto tag) -> StmtPtr {
      auto node = std::make_unique<FloatStore<decltype(tag)>>();
      node->access = std::move(access);
      node->value = compileFloat(store.value);
      return node;
    });
  return forIntElement(element, [&](auto tag) -> StmtPtr {
    auto node = std::make_unique<IntStore<decltype(tag)>>();
    node->access = std::move(access);
    node->value = compileInt(store.value);
    return node;
  });
}

StmtPtr FunctionCompiler::compileAccumulate(const ir::BufferStore &store) {
  auto *binary = store.value.as<ir::BinaryExpr>();
  auto *load = binary ? binary->a.as<ir::BufferLoad>() : nullptr;
  if (!load || load->buffer != store.buffer || load->indices.size() != store.indices.size()) return nullptr;
  for (size_t i = 0; i < store.indices.size(); ++i)
    if (!ir::structuralEqual(load->indices[i], store.indices[i])) return nullptr;
  DataType element = store.buffer->dtype;
  NodeKind op = binary->kind();
  bool supported = op == NodeKind::Add || op == NodeKind::Sub || op == NodeKind::Mul ||
                   ((op == NodeKind::Min || op == NodeKind::Max) && !IntType::of(element).isUInt64());
  if (!supported) return nullptr;
  // The load comes first in the original too: an out-of-bounds index is reported at the load.
  BufferAccess access = compileAccess(*store.buffer, store.indices, *load);
  if (element.isFloat())
    return forFloatElement(element, [&](auto tag) -> StmtPtr {
      using Element = decltype(tag);
      auto make = [&](auto opTag) -> StmtPtr {
        auto node = std::make_unique<FloatAccumulate<Element, decltype(opTag)>>();
        node->access = std::move(access);
        node->value = compileFloat(binary->b);
        return node;
      };
      switch (op) {
      case NodeKind::Add: return make(FAdd{});
      case NodeKind::Sub: return make(FSub{});
      case NodeKind::Mul: return make(FMul{});
      case NodeKind::Min: return make(FMin{});
      default: return make(FMax{});
      }
    });
  return forIntElement(element, [&](auto tag) -> StmtPtr {
    using Element = decltype(tag);
    auto make = [&](auto opTag) -> StmtPtr {
      auto node = std::make_unique<IntAccumulate<Element, decltype(opTag)>>();
      node->access = std::move(access);
      node->value = compileInt(binary->b);
      return node;
    };
    switch (op) {
    case NodeKind::Add: return make(OpAdd{});
    case NodeKind::Sub: return make(OpSub{});
    case NodeKind::Mul: return make(OpMul{});
    case NodeKind::Min: return make(OpMin{});
    default: return make(OpMax{});
    }
  });
}

StmtPtr FunctionCompiler::compileLet(const ir::LetStmt &let) {
  // A handle that names a buffer's storage aliases its slot.
  if (const ir::Var *storage = ir::storageViewedBy(let.value)) {
    const VarInfo *info = lookup(storage);
    if (info && info->kind == VarKind::Storage) {
      auto guard = bind(let.var.get(), *info);
      return compileStmt(let.body);
    }
  }
  int slot = newSlot();
  if (kindOf(let.value->dtype) == VarKind::Int && kindOf(let.var->dtype) == VarKind::Int) {
    auto node = std::make_unique<IntLetExec>();
    node->slot = slot;
    node->value = compileInt(let.value);
    auto guard = bind(let.var.get(), {slot, VarKind::Int, let.var->dtype});
    node->body = compileStmt(let.body);
    return node;
  }
  auto node = std::make_unique<LetExec>();
  node->binding = compileAssign(slot, let.value);
  auto guard = bind(let.var.get(), {slot, kindOf(let.var->dtype), let.var->dtype});
  node->body = compileStmt(let.body);
  return node;
}

StmtPtr FunctionCompiler::compileAttr(const ir::AttrStmt &attr) {
  if (attr.key == "coproc_uop_scope") return compileUopScope(attr);
  auto *iterVar = attr.node.as<ir::IterVar>();
  if (iterVar && (attr.key == "thread_extent" || attr.key == "virtual_thread")) {
    // A launched thread or virtual thread runs its body once per index, one after another.
    auto node = std::make_unique<ForExec>();
    node->min = std::make_unique<IntConst>(0);
    node->extent = compileInt(attr.value);
    node->type = IntType::of(iterVar->var->dtype);
    node->slot = newSlot();
    auto guard = bind(iterVar->var.get(), {node->slot, VarKind::Int, iterVar->var->dtype});
    node->body = compileStmt(attr.body);
    if (ir::isLeafLoopBody(attr.body)) node->stepChunk = ir::kLeafLoopStepChunk;
    return node;
  }
  // Every other attribute (coproc_scope, pragmas, storage hints) only annotates its body.
  return compileStmt(attr.body);
}

StmtPtr FunctionCompiler::compileUopScope(const ir::AttrStmt &attr) {
  auto *pushName = attr.value.as<ir::StringImm>();
  if (!pushName) {
    fail(attr, "coproc_uop_scope needs the name of the runtime function as its value");
    return std::make_unique<SeqExec>();
  }
  const ExternEntry *push = registry_.find(pushName->value);
  if (!push) {
    fail(attr, "micro-kernel function '" + pushName->value + "' of coproc_uop_scope is not registered");
    return std::make_unique<SeqExec>();
  }
  usesDeviceMemory_ |= push->usesDeviceMemory;
  auto node = std::make_unique<UopScopeExec>();
  node->pushFunction = push;
  node->pushName = pushName->value;
  node->loc = locOf(attr);
  for (const ir::VarRef &var : ir::undefinedVars(attr.body)) {
    const VarInfo *info = lookup(var.get());
    if (!info) continue;  // reported as unbound when the body runs
    if (info->kind == VarKind::Int)
      node->captured.push_back({info->slot, std::max(1, info->dtype.bytes()), false, IntType::of(info->dtype)});
    else if (info->kind == VarKind::Float)
      node->captured.push_back({info->slot, info->dtype.bits() == 64 ? 8 : 4, true, IntType{}});
    // Buffers and other handles are the same in every call: not part of the kernel's key.
  }
  node->body = compileStmt(attr.body);
  return node;
}

StmtPtr FunctionCompiler::compileFor(const ir::For &loop) {
  auto node = std::make_unique<ForExec>();
  node->loc = locOf(loop);
  node->min = compileInt(loop.min);
  node->extent = compileInt(loop.extent);
  node->type = IntType::of(loop.loopVar->dtype);
  node->slot = newSlot();
  auto guard = bind(loop.loopVar.get(), {node->slot, VarKind::Int, loop.loopVar->dtype});
  node->body = compileStmt(loop.body);
  if (ir::isLeafLoopBody(loop.body)) node->stepChunk = ir::kLeafLoopStepChunk;
  return node;
}

Allocation FunctionCompiler::compileAllocation(int slot, const std::string &name, DataType dtype,
                                               const std::vector<ir::Expr> &extents, const ir::Node &at) {
  Allocation allocation;
  allocation.slot = slot;
  allocation.name = name;
  allocation.elementBytes = dtype.bytes();
  allocation.loc = locOf(at);
  for (const ir::Expr &extent : extents) allocation.extents.push_back(compileInt(extent));
  return allocation;
}

StmtPtr FunctionCompiler::compileAllocate(const ir::Allocate &allocate) {
  auto node = std::make_unique<AllocateExec>();
  int slot = newSlot();
  node->allocation = compileAllocation(slot, allocate.bufferVar->name, allocate.dtype, allocate.extents, allocate);
  node->constantData = allocate.constantData;
  auto guard = bind(allocate.bufferVar.get(), {slot, VarKind::Storage, allocate.bufferVar->dtype});
  node->body = compileStmt(allocate.body);
  return node;
}

StmtPtr FunctionCompiler::compileBlock(const ir::Block &block, const ir::BlockRealize *realize) {
  auto node = std::make_unique<BlockExec>();
  std::vector<ScopedBinding> guards;
  size_t numValues = realize ? realize->iterValues.size() : 0;
  if (numValues != block.iterVars.size()) {
    fail(block, "block '" + block.name + "' has " + llvm::Twine(block.iterVars.size()) +
                    " iteration variables but " + llvm::Twine(numValues) + " bound values");
    return node;
  }
  // Values first (they refer to the enclosing loops), then the block's variables.
  std::vector<VarInfo> infos;
  for (size_t i = 0; i < numValues; ++i) {
    const ir::Var &var = *block.iterVars[i]->var;
    const ir::Expr &value = realize->iterValues[i];
    auto *loopVar = value.as<ir::Var>();
    const VarInfo *loopInfo = loopVar ? lookup(loopVar) : nullptr;
    if (loopInfo && loopInfo->kind == VarKind::Int && loopInfo->dtype == var.dtype) {
      infos.push_back(*loopInfo);  // bound to a loop variable as is: share its slot
      continue;
    }
    int slot = newSlot();
    node->bindings.push_back(compileAssign(slot, value));
    infos.push_back({slot, VarKind::Int, var.dtype});
  }
  for (size_t i = 0; i < numValues; ++i) guards.push_back(bind(block.iterVars[i]->var.get(), infos[i]));
  if (realize && realize->predicate) {
    auto *always = realize->predicate.as<ir::IntImm>();
    if (!always || always->value == 0) node->predicate = compileInt(realize->predicate);
  }
  for (const ir::BufferRef &buffer : block.allocBuffers) {
    int slot = newSlot();
    // The alloc_buffer's own line when the frontend recorded it (an implicit root block has none).
    const ir::Node &at = buffer->loc().isKnown() ? static_cast<const ir::Node &>(*buffer) : block;
    node->allocations.push_back(compileAllocation(slot, buffer->name, buffer->dtype, buffer->shape, at));
    guards.push_back(bind(buffer->data.get(), {slot, VarKind::Storage, buffer->data->dtype}));
  }
  ir::VarMap matchBound;
  for (const ir::MatchBufferRegion &match : block.matchBuffers)
    if (!bindMatchBuffer(match, block, *node, guards, matchBound)) return node;
  if (block.init) {
    node->init = compileStmt(block.init);
    // Init runs on the first step of every reduction axis (TVM's lowering of T.init()).
    for (const ir::IterVarRef &iv : block.iterVars) {
      if (iv->iterType != ir::IterType::CommReduce) continue;
      IntPtr first = iv->dom.defined() ? compileInt(iv->dom.min) : std::make_unique<IntConst>(0);
      IntPtr isFirst = std::make_unique<IntCompare<CmpEQ, int64_t>>(compileInt(ir::Expr(iv->var)), std::move(first));
      if (!node->initCondition) {
        node->initCondition = std::move(isFirst);
      } else {
        auto both = std::make_unique<LogicalAnd>();
        both->a = std::move(node->initCondition);
        both->b = std::move(isFirst);
        node->initCondition = std::move(both);
      }
    }
  }
  node->body = compileStmt(block.body);
  for (const ir::MatchBufferRegion &match : block.matchBuffers) views_.erase(match.buffer.get());
  // Bindings shared with the loops, no predicate, storage or init: the block is its body.
  if (node->bindings.empty() && !node->predicate && node->allocations.empty() && !node->init)
    return std::move(node->body);
  return node;
}

bool FunctionCompiler::bindMatchBuffer(const ir::MatchBufferRegion &match, const ir::Block &block,
                                       BlockExec &node, std::vector<ScopedBinding> &guards, ir::VarMap &bound) {
  const ir::Buffer &view = *match.buffer;
  // A view of a view is a view of the first one's source.
  ir::BufferRegion source = match.source;
  if (auto outer = views_.find(source.buffer.get()); outer != views_.end()) {
    const ir::BufferRegion &base = outer->second;
    size_t dropped = base.region.size() - source.region.size();
    std::vector<ir::Range> ranges(base.region.begin(), base.region.begin() + dropped);
    for (size_t i = dropped; i < base.region.size(); ++i)
      ranges.push_back({base.region[i].min + source.region[i - dropped].min, source.region[i - dropped].extent});
    source = {base.buffer, std::move(ranges)};
  }
  const ir::Buffer &target = *source.buffer;
  std::string name = "match_buffer '" + view.name + "'";
  if (view.dtype != target.dtype || source.region.size() < view.rank()) {
    fail(block, name + " does not fit its source '" + target.name + "' (element type or rank)");
    return false;
  }
  const VarInfo *data = lookup(target.data.get());
  if (!data || data->kind != VarKind::Storage) {
    fail(block, "the source '" + target.name + "' of " + name + " has no storage here");
    return false;
  }
  guards.push_back(bind(view.data.get(), *data));
  views_[&view] = source;

  // Each part of the view is a variable bound here, or an expression that must equal its value.
  auto bindPart = [&](const ir::Expr &part, ir::Expr value, const std::string &what) {
    value = ir::substitute(value, bound);
    if (const auto *var = part.as<ir::Var>(); var && !lookup(var)) {
      int slot = newSlot();
      node.bindings.push_back(compileAssign(slot, value));
      guards.push_back(bind(var, {slot, VarKind::Int, var->dtype}));
      bound.emplace(var, value);
      return true;
    }
    if (ir::structuralEqual(ir::simplify(ir::substitute(part, bound)), ir::simplify(value))) return true;
    fail(block, "the buffer match constraint for " + what + " is unmet: " + ir::printExpr(part) + " == " +
                    ir::printExpr(value));
    return false;
  };
  // The source's strides (row-major from its shape when it has none) and the region's start.
  std::vector<ir::Expr> strides = target.strides;
  if (strides.empty()) {
    strides.resize(target.rank());
    ir::Expr stride = ir::intImm(1);
    for (size_t d = target.rank(); d-- > 0;) {
      strides[d] = stride;
      stride = stride * target.shape[d];
    }
  }
  ir::Expr offset = target.elemOffset ? target.elemOffset : ir::intImm(0);
  for (size_t d = 0; d < target.rank(); ++d) offset = offset + source.region[d].min * strides[d];
  size_t dropped = source.region.size() - view.rank();
  // A view without an elem_offset is reached only through its accesses, which go to the source.
  bool ok = !view.elemOffset || bindPart(view.elemOffset, offset, view.name + ".elem_offset");
  for (size_t i = 0; ok && i < view.strides.size() && i < view.rank(); ++i)
    ok = bindPart(view.strides[i], strides[i + dropped], view.name + ".strides[" + std::to_string(i) + "]");
  for (size_t i = 0; ok && i < view.rank(); ++i)
    ok = bindPart(view.shape[i], source.region[i + dropped].extent, view.name + ".shape[" + std::to_string(i) + "]");
  return ok;
}

}  // namespace vtac::backend::interp
