#include "host/HoistReductionInit.h"

#include <map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

// The terms of a chain of `and`s, left to right.
void collectConjuncts(const ir::Expr &e, std::vector<ir::Expr> &terms) {
  if (e->kind() == ir::NodeKind::And) {
    auto *both = e.as<ir::BinaryExpr>();
    collectConjuncts(both->a, terms);
    collectConjuncts(both->b, terms);
    return;
  }
  terms.push_back(e);
}

// `var == start` or `start == var`.
bool isStartTest(const ir::Expr &e, const ir::Var &var, const ir::Expr &start) {
  if (e->kind() != ir::NodeKind::EQ) return false;
  auto *eq = e.as<ir::BinaryExpr>();
  auto sameValue = [](const ir::Expr &a, const ir::Expr &b) {
    auto x = ir::asConstInt(a), y = ir::asConstInt(b);
    return x && y && *x == *y;
  };
  return (eq->a.get() == &var && sameValue(eq->b, start)) || (eq->b.get() == &var && sameValue(eq->a, start));
}

// The statement with its accesses to the buffers of `copies` (old -> new) through the new ones:
// the hoisted statement declares copies of its loop's buffers, each declared once.
class BufferRenamer : public ir::StmtExprMutator {
public:
  explicit BufferRenamer(std::map<const ir::Buffer *, ir::BufferRef> copies) : copies_(std::move(copies)) {}

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    auto *load = visited.as<ir::BufferLoad>();
    auto it = copies_.find(load->buffer.get());
    return it == copies_.end() ? visited : ir::make<ir::BufferLoad>(it->second, load->indices, load->loc());
  }
  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    auto *store = visited.as<ir::BufferStore>();
    auto it = copies_.find(store->buffer.get());
    return it == copies_.end() ? visited : ir::make<ir::BufferStore>(it->second, store->value, store->indices, store->loc());
  }

private:
  std::map<const ir::Buffer *, ir::BufferRef> copies_;
};

class InitHoister : public ir::StmtExprMutator {
public:
  ir::Stmt visitFor(const ir::For &op) override {
    ir::Stmt visited = StmtExprMutator::visitFor(op);
    const auto *loop = visited.as<ir::For>();
    auto extent = ir::asConstInt(loop->extent);
    if (loop->forKind != ir::ForKind::Serial || !extent || *extent <= 0 || !ir::asConstInt(loop->min)) return visited;

    // The declarations the guarded statement sits under, outermost first.
    std::vector<const ir::DeclBuffer *> declarations;
    ir::Stmt inner = loop->body;
    while (auto *decl = inner.as<ir::DeclBuffer>()) {
      declarations.push_back(decl);
      inner = decl->body;
    }
    auto *sequence = inner.as<ir::SeqStmt>();
    auto *guard = sequence && !sequence->stmts.empty() ? sequence->stmts[0].as<ir::IfThenElse>() : nullptr;
    if (!guard || guard->elseCase || sequence->stmts.size() < 2) return visited;
    std::vector<ir::Expr> terms;
    collectConjuncts(guard->condition, terms);
    auto start = std::find_if(terms.begin(), terms.end(),
                              [&](const ir::Expr &term) { return isStartTest(term, *loop->loopVar, loop->min); });
    if (start == terms.end()) return visited;
    terms.erase(start);

    // In front of the loop: the guarded statement of the first iteration, under the same
    // declarations; in the loop: the rest of the body.
    ir::VarMap first{{loop->loopVar.get(), loop->min}};
    ir::Stmt init = guard->thenCase;
    if (!terms.empty()) {
      ir::Expr condition = terms[0];
      for (size_t i = 1; i < terms.size(); ++i) condition = ir::makeBinary(ir::NodeKind::And, condition, terms[i]);
      init = ir::make<ir::IfThenElse>(condition, init, nullptr, guard->loc());
    }
    ir::Stmt rest = ir::seq(std::vector<ir::Stmt>(sequence->stmts.begin() + 1, sequence->stmts.end()), sequence->loc());
    std::map<const ir::Buffer *, ir::BufferRef> copies;
    for (const ir::DeclBuffer *decl : declarations) copies[decl->buffer.get()] = ir::BufferRef(ir::copyNode(*decl->buffer));
    init = BufferRenamer(copies).visitStmt(init);
    for (auto it = declarations.rbegin(); it != declarations.rend(); ++it) {
      init = ir::make<ir::DeclBuffer>(copies[(*it)->buffer.get()], init, (*it)->loc());
      rest = ir::make<ir::DeclBuffer>((*it)->buffer, rest, (*it)->loc());
    }
    ir::For *remaining = ir::copyNode(*loop);
    remaining->body = rest;
    return ir::seq({ir::substitute(init, first), ir::Stmt(remaining)}, loop->loc());
  }
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> hoistReductionInit(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, InitHoister().visitStmt(func->body));
}

}  // namespace vtac::passes
