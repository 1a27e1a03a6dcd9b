// Schedule state: function lookup, finding blocks and loops by RV, rebuilding a tree around a
// replaced node.
#include "vtac/passes/schedule/Schedule.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"

#include <functional>
#include <set>

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// Paths to every statement that `match` accepts, in pre-order.
class PathFinder : public StmtExprVisitor {
public:
  explicit PathFinder(std::function<bool(const StmtNode &)> match) : match_(std::move(match)) {}
  void visitExpr(const Expr &) override {}
  void visitStmt(const Stmt &s) override {
    path_.push_back(s);
    if (match_(*s)) found.push_back(path_);
    StmtExprVisitor::visitStmt(s);
    path_.pop_back();
  }
  std::vector<StmtPath> found;

private:
  std::function<bool(const StmtNode &)> match_;
  StmtPath path_;
};

std::vector<StmtPath> findPaths(const Stmt &root, std::function<bool(const StmtNode &)> match) {
  PathFinder finder(std::move(match));
  finder.visitStmt(root);
  return std::move(finder.found);
}

class NodeReplacer : public StmtExprMutator {
public:
  explicit NodeReplacer(const std::map<const StmtNode *, Stmt> &replacements) : replacements_(replacements) {}
  Expr visitExpr(const Expr &e) override { return e; }
  Stmt visitStmt(const Stmt &s) override {
    auto it = replacements_.find(s.get());
    return it != replacements_.end() ? it->second : StmtExprMutator::visitStmt(s);
  }

private:
  const std::map<const StmtNode *, Stmt> &replacements_;
};

}  // namespace

const TensorIntrin *Schedule::intrinsic(const std::string &name) const {
  if (!intrinsics_) return nullptr;
  auto it = intrinsics_->find(name);
  return it == intrinsics_->end() ? nullptr : &it->second;
}

llvm::Expected<PrimFuncRef> Schedule::function(const std::string &name, SourceLoc at) const {
  FunctionRef func = module_.lookup(name);
  if (!func || !func->isa<PrimFunc>()) return diagnosticError(at, "the module has no prim_func '" + name + "'");
  return cast<PrimFunc>(func);
}

llvm::Expected<std::string> Schedule::defaultFunction(SourceLoc at) const {
  std::vector<std::string> primFuncs;
  for (const IRModule::Entry &entry : module_.functions())
    if (entry.function->isa<PrimFunc>()) primFuncs.push_back(entry.name->name);
  if (std::find(primFuncs.begin(), primFuncs.end(), "main") != primFuncs.end()) return "main";
  if (primFuncs.size() == 1) return primFuncs[0];
  return diagnosticError(at, "the module has " + std::to_string(primFuncs.size()) +
                                 " prim_funcs and none is 'main': give func_name");
}

void Schedule::setBody(const std::string &func, Stmt body) {
  PrimFunc *copy = copyNode(*cast<PrimFunc>(module_.lookup(func)));
  copy->body = std::move(body);
  setFunction(func, PrimFuncRef(copy));
}

void Schedule::setFunction(const std::string &name, PrimFuncRef func) { module_.add(name, std::move(func)); }

llvm::Expected<StmtPath> Schedule::findBlock(const BlockRV &rv, SourceLoc at) const {
  llvm::Expected<PrimFuncRef> func = function(rv.func, at);
  if (!func) return func.takeError();
  std::vector<StmtPath> paths = findPaths((*func)->body, [&](const StmtNode &s) {
    const auto *realize = s.as<BlockRealize>();
    return realize && realize->block->name == rv.name;
  });
  if (paths.empty()) return diagnosticError(at, "no block named '" + rv.name + "' in '" + rv.func + "'");
  if (paths.size() > 1)
    return diagnosticError(at, "the block name '" + rv.name + "' is not unique in '" + rv.func + "'");
  return paths[0];
}

llvm::Expected<StmtPath> Schedule::findLoop(const LoopRV &rv, SourceLoc at) const {
  llvm::Expected<PrimFuncRef> func = function(rv.func, at);
  if (!func) return func.takeError();
  std::vector<StmtPath> paths = findPaths((*func)->body, [&](const StmtNode &s) {
    const auto *loop = s.as<For>();
    return loop && loop->loopVar == rv.loopVar;
  });
  if (paths.empty())
    return diagnosticError(at, "the loop '" + rv.loopVar->name + "' is no longer in '" + rv.func +
                                   "' (an earlier step replaced it)");
  return paths[0];
}

void Schedule::replace(const std::string &func, const StmtPath &path, Stmt replacement) {
  replaceAll(func, {{path.back().get(), std::move(replacement)}});
}

void Schedule::replaceAll(const std::string &func, const std::map<const StmtNode *, Stmt> &replacements) {
  PrimFuncRef current = cast<PrimFunc>(module_.lookup(func));
  setBody(func, NodeReplacer(replacements).visitStmt(current->body));
}

std::string Schedule::freshBlockName(const std::string &func, const std::string &base) const {
  std::set<std::string> used;
  preOrderVisit(cast<PrimFunc>(module_.lookup(func))->body, [&](const Node &node) {
    if (const auto *block = node.as<Block>()) used.insert(block->name);
  });
  if (!used.count(base)) return base;
  for (int i = 1;; ++i)
    if (!used.count(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}

void Schedule::renameBlock(const std::string &func, const std::string &from, const std::string &to) {
  for (Binding &binding : bindings_)
    if (auto *block = std::get_if<BlockRV>(&binding.rv); block && block->func == func && block->name == from)
      block->name = to;
}

Schedule::Binding Schedule::bindNew(RV rv) {
  bool isLoop = std::holds_alternative<LoopRV>(rv) || std::holds_alternative<LocationMarkRV>(rv);
  const char *prefix = std::holds_alternative<BlockRV>(rv) ? "b" : isLoop ? "l" : "v";
  // A None result prints as `_` but takes its number, as TVM's trace names outputs.
  std::string name = std::holds_alternative<NoneRV>(rv) ? "_" : prefix + std::to_string(nextRV_);
  ++nextRV_;
  bindings_.push_back({std::move(rv), std::move(name)});
  return bindings_.back();
}

}  // namespace vtac::passes::schedule
