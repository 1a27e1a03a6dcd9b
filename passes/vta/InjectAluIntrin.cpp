#include "vta/InjectAluIntrin.h"

#include "vta/VtaTarget.h"
#include "vta/isa.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"

namespace vtac::passes {
namespace {

using ir::Expr;

// A tile index as coefficients per micro-op loop plus an offset, in tiles.
struct TileIndex {
  std::vector<int64_t> coeffs;
  Expr offset;
};

class AluInjector : public vta::PragmaLowerer {
public:
  explicit AluInjector(const ::vta::Config &config) : PragmaLowerer("alu"), config_(config) {}

private:
  llvm::Error fail(const ir::Node &at, const llvm::Twine &message) {
    return ir::diagnosticError(at.loc(), "alu: " + message);
  }

  llvm::Expected<ir::Stmt> lowerPragma(const ir::AttrStmt &attr) override {
    vta::LoopNest nest = vta::loopNest(attr.body);
    const std::vector<const ir::For *> &loops = nest.loops;
    const ir::VarMap &lets = nest.lets;
    const ir::Stmt &body = nest.innermost;
    const auto *store = body.as<ir::BufferStore>();
    if (!store) return fail(*body, "the ALU stage is not a loop nest around one buffer store");
    if (store->indices.size() != 1) return fail(*store, "expects flat 1-d buffers (run tir-lower first)");
    Expr value = ir::substitute(store->value, lets);
    Expr lhs, rhs;
    int opcode = 0;
    if (const auto *bin = value.as<ir::BinaryExpr>()) {
      switch (bin->kind()) {
      case ir::NodeKind::Add: opcode = vta::kAluAdd; break;
      case ir::NodeKind::Sub: {  // x - c: the simplifier's form of x + (-c)
        auto c = ir::asConstInt(bin->b);
        if (!c) return fail(*store, "VTA's ALU cannot subtract a tensor (it adds a negative immediate)");
        if (*c == INT64_MIN || !::vta::isa::fitsAluImmediate(-*c))
          return fail(*store, "immediate -(" + llvm::Twine(*c) + ") does not fit the ALU's " +
                                  llvm::Twine(::vta::isa::kAluImmBits) + " bits");
        opcode = vta::kAluAdd;
        value = ir::make<ir::BinaryExpr>(ir::NodeKind::Add, bin->a, ir::intImm(-*c, bin->b->dtype), bin->loc());
        break;
      }
      case ir::NodeKind::Mul: opcode = vta::kAluMul; break;
      case ir::NodeKind::Min: opcode = vta::kAluMin; break;
      case ir::NodeKind::Max: opcode = vta::kAluMax; break;
      default: return fail(*store, "VTA's ALU cannot compute '" + llvm::Twine(ir::nodeKindName(bin->kind())) + "'");
      }
      lhs = value.as<ir::BinaryExpr>()->a, rhs = value.as<ir::BinaryExpr>()->b;
    } else if (const auto *call = value.as<ir::Call>();
               call && (call->op == "tir.shift_right" || call->op == "tir.shift_left")) {
      opcode = vta::kAluShr;
      lhs = call->args[0];
      rhs = call->op == "tir.shift_right" ? call->args[1]
                                          : ir::simplify(ir::intImm(0, call->args[1]->dtype) - call->args[1]);
    } else if (value.isa<ir::BufferLoad>()) {
      opcode = vta::kAluShr;  // a copy: shift by 0
      lhs = value, rhs = ir::intImm(0);
    } else {
      return fail(*store, "VTA's ALU cannot compute this value (expected +, *, min, max, a shift or a copy)");
    }

    std::vector<ir::VarRef> vars;
    for (const ir::For *loop : loops) vars.push_back(loop->loopVar);
    auto coefficients = [&](const Expr &index) { return ir::detectLinearEquation(ir::substitute(index, lets), vars); };
    auto dstEq = coefficients(store->indices[0]);
    if (!dstEq) return fail(*store, "the destination index is not linear in the loops");
    const ir::Var *dst = store->buffer->data.get();
    auto operandOf = [&](const Expr &e) -> const ir::BufferLoad * {
      const auto *load = e.as<ir::BufferLoad>();
      return load && load->buffer->data.get() == dst && load->indices.size() == 1 ? load : nullptr;
    };
    const ir::BufferLoad *source = nullptr;
    bool useImm = false;
    int64_t imm = 0;
    if (auto v = ir::asConstInt(rhs); v || ir::asConstInt(lhs)) {
      useImm = true;
      imm = v ? *v : *ir::asConstInt(lhs);
      source = operandOf(v ? lhs : rhs);
      if (!source)
        return fail(*store, "the non-immediate operand must load the destination buffer '" +
                                store->buffer->name + "' (the ALU works in place)");
      // VTA's ALU reads no source with an immediate (dst = dst op imm): the operand must be the
      // destination itself, else its value would be dropped (a stage reading another stage's
      // tile at another offset of the shared accumulator, e.g. one computed at an outer loop).
      auto opEq = coefficients(source->indices[0]);
      if (!opEq || opEq->coeffs != dstEq->coeffs || !ir::isZero(ir::simplify(opEq->base - dstEq->base)))
        return fail(*store, "with an immediate the ALU computes dst = dst op imm, so the other operand must "
                            "be read at the destination's own index (it reads another part of '" +
                                store->buffer->name + "': stages computed at different loops are not in place)");
    } else {
      const ir::BufferLoad *a = operandOf(lhs), *b = operandOf(rhs);
      if (!a || !b)
        return fail(*store, "both operands must load the destination buffer '" + store->buffer->name +
                                "' (the ALU works in place; storage-rewrite reuses the accumulator)");
      auto aEq = coefficients(a->indices[0]);
      source = aEq && aEq->coeffs == dstEq->coeffs && ir::isZero(ir::simplify(aEq->base - dstEq->base)) ? b : a;
      auto sEq = coefficients((source == a ? b : a)->indices[0]);
      if (!sEq || sEq->coeffs != dstEq->coeffs || !ir::isZero(ir::simplify(sEq->base - dstEq->base)))
        return fail(*store, "one operand must be read at the destination's own index");
    }
    if (!::vta::isa::fitsAluImmediate(imm))
      return fail(*store, "immediate " + llvm::Twine(imm) + " does not fit the ALU's " +
                              llvm::Twine(::vta::isa::kAluImmBits) + " bits");
    auto srcEq = coefficients(source->indices[0]);
    if (!srcEq) return fail(*source, "the source index is not linear in the loops");

    auto dstTiles = toTiles(*store, *dstEq, loops.size());
    if (!dstTiles) return dstTiles.takeError();
    auto srcTiles = toTiles(*store, *srcEq, loops.size());
    if (!srcTiles) return srcTiles.takeError();
    size_t laneLoops = config_.batch > 1 ? 2 : 1;
    std::vector<Expr> extents;
    for (size_t i = 0; i + laneLoops < loops.size(); ++i) extents.push_back(loops[i]->extent);
    flatten(*dstTiles, *srcTiles, extents);
    if (extents.size() > 2)
      return fail(attr, "the ALU stage needs " + llvm::Twine(extents.size()) +
                            " micro-op loops after merging; VTA has two");

    std::vector<ir::Stmt> stmts;
    for (size_t i = 0; i < extents.size(); ++i)
      stmts.push_back(vta::evaluate(vta::callExtern(
          "VTAUopLoopBegin", {extents[i], ir::intImm(dstTiles->coeffs[i]), ir::intImm(srcTiles->coeffs[i]),
                              ir::intImm(0)}, attr.loc())));
    stmts.push_back(vta::evaluate(vta::intrinsic(
        "tir.vta.uop_push", {ir::intImm(1), ir::intImm(0), dstTiles->offset, srcTiles->offset, ir::intImm(0),
                             ir::intImm(opcode), ir::intImm(useImm), ir::intImm(imm)}, store->loc())));
    for (size_t i = 0; i < extents.size(); ++i)
      stmts.push_back(vta::evaluate(vta::callExtern("VTAUopLoopEnd", {}, attr.loc())));
    return ir::seq(stmts, attr.loc());
  }

  // Drops the lane loop(s) and divides the rest by the tile.
  llvm::Expected<TileIndex> toTiles(const ir::Node &at, const ir::LinearEquation &eq, size_t nloops) {
    int64_t tile = int64_t(config_.batch) * config_.blockOut;
    size_t laneLoops = config_.batch > 1 ? 2 : 1;
    if (nloops < laneLoops || eq.coeffs[nloops - 1] != 1 ||
        (laneLoops == 2 && eq.coeffs[nloops - 2] != int64_t(config_.blockOut)))
      return fail(at, "the innermost loop(s) must walk the " + llvm::Twine(tile) +
                          " lanes of one accumulator tile");
    auto offset = ir::divideExactly(eq.base, tile);
    if (!offset) return fail(at, "the accumulator offset is not a whole number of tiles");
    TileIndex result{{}, *offset};
    for (size_t i = 0; i + laneLoops < nloops; ++i) {
      if (eq.coeffs[i] % tile != 0)
        return fail(at, "an outer loop does not step by whole accumulator tiles");
      result.coeffs.push_back(eq.coeffs[i] / tile);
    }
    return result;
  }

  // Merges a loop into the one inside it when both indices step contiguously across them.
  static void flatten(TileIndex &dst, TileIndex &src, std::vector<Expr> &extents) {
    if (extents.empty()) return;
    std::vector<int64_t> d{dst.coeffs.back()}, s{src.coeffs.back()};
    std::vector<Expr> e{extents.back()};
    for (size_t i = extents.size() - 1; i-- > 0;) {
      auto inner = ir::asConstInt(e.back());
      if (inner && dst.coeffs[i] == d.back() * *inner && src.coeffs[i] == s.back() * *inner) {
        e.back() = ir::simplify(e.back() * extents[i]);
      } else {
        d.push_back(dst.coeffs[i]), s.push_back(src.coeffs[i]), e.push_back(extents[i]);
      }
    }
    dst.coeffs.assign(d.rbegin(), d.rend());
    src.coeffs.assign(s.rbegin(), s.rend());
    extents.assign(e.rbegin(), e.rend());
  }

  const ::vta::Config &config_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> injectAluIntrin(const ir::PrimFuncRef &func, PassContext &context) {
  AluInjector injector(context.vta);
  return mutateBody(func, injector, func->loc());
}

}  // namespace vtac::passes
