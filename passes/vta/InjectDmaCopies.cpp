#include "vta/InjectDmaCopies.h"

#include <algorithm>
#include <set>

#include <llvm/ADT/StringExtras.h>

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes {
namespace {

using ir::Expr;
using ir::NodeKind;

bool provablyEqual(const Expr &a, const Expr &b) {
  return ir::isZero(ir::simplify(ir::subExpr(a, b)));
}
bool provablyMultiple(const Expr &e, int64_t factor) {
  return ir::divideExactly(ir::simplify(e), factor).has_value();
}
Expr maxExpr(const Expr &a, const Expr &b) { return ir::makeBinary(NodeKind::Max, a, b); }
Expr minExpr(const Expr &a, const Expr &b) { return ir::makeBinary(NodeKind::Min, a, b); }

// One side of a copy as InjectCopyIntrin hands it to the lowering: the data, its scope and the
// region the loop nest walks (one dimension per loop).
struct CopyBuffer {
  ir::VarRef data;
  ir::DataType dtype;
  std::string scope;
  std::vector<Expr> shape, strides;
  Expr elemOffset;
};

// The 2D pattern of a DMA: x_size tiles per row, y_size rows, x_stride tiles between rows, the
// first tile's index.
struct Pattern2D {
  Expr xSize, ySize, xStride, offset;
};

// A bound per loop variable from a condition `c1 && c2 && ...` of comparisons that each contain
// exactly one loop variable with coefficient +-1 (arith::DetectClipBound).
struct ClipBound {
  Expr min, max;  // null when unbounded
};

void splitConjunction(const Expr &cond, std::vector<Expr> &out) {
  if (const auto *bin = cond.as<ir::BinaryExpr>(); bin && bin->kind() == NodeKind::And) {
    splitConjunction(bin->a, out);
    splitConjunction(bin->b, out);
    return;
  }
  out.push_back(cond);
}

std::optional<std::vector<ClipBound>> detectClipBound(const Expr &cond,
                                                      const std::vector<ir::VarRef> &vars) {
  std::vector<ClipBound> bounds(vars.size());
  std::vector<Expr> terms;
  splitConjunction(cond, terms);
  // Each comparison is one or two bounds `nonNegative >= 0`: an equality (the simplifier's form
  // of `c <= v and v < c + 1`) bounds its variable on both sides.
  std::vector<Expr> nonNegatives;
  for (const Expr &term : terms) {
    const auto *cmp = term.as<ir::BinaryExpr>();
    if (!cmp || !cmp->a->dtype.isInt()) return std::nullopt;
    switch (cmp->kind()) {
    case NodeKind::LT: nonNegatives.push_back(cmp->b - cmp->a - 1); break;
    case NodeKind::LE: nonNegatives.push_back(cmp->b - cmp->a); break;
    case NodeKind::GT: nonNegatives.push_back(cmp->a - cmp->b - 1); break;
    case NodeKind::GE: nonNegatives.push_back(cmp->a - cmp->b); break;
    case NodeKind::EQ:
      nonNegatives.push_back(cmp->a - cmp->b);
      nonNegatives.push_back(cmp->b - cmp->a);
      break;
    default: return std::nullopt;
    }
  }
  for (const Expr &nonNegative : nonNegatives) {
    auto eq = ir::detectLinearEquation(nonNegative, vars);
    if (!eq) return std::nullopt;
    int which = -1;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (eq->coeffs[i] == 0) continue;
      if (which >= 0 || (eq->coeffs[i] != 1 && eq->coeffs[i] != -1)) return std::nullopt;
      which = int(i);
    }
    if (which < 0) return std::nullopt;
    ClipBound &b = bounds[which];
    if (eq->coeffs[which] == 1) {  // v + base >= 0: v >= -base
      Expr low = ir::simplify(ir::intImm(0, eq->base->dtype) - eq->base);
      b.min = b.min ? maxExpr(b.min, low) : low;
    } else {  // base - v >= 0: v <= base
      b.max = b.max ? minExpr(b.max, eq->base) : eq->base;
    }
  }
  return bounds;
}

class DmaInjector : public vta::PragmaLowerer {
public:
  DmaInjector(PassContext &context, const ir::PrimFuncRef &function)
      : PragmaLowerer("dma_copy"), config_(context.vta), axis_(vta::coprocAxis(function->body)), function_(function) {}

  // The ranges of the loops and virtual threads around a copy, for what its pattern must prove.
  ir::Stmt visitFor(const ir::For &op) override {
    analyzer_.bind(op.loopVar, ir::Range{op.min, op.extent});
    return PragmaLowerer::visitFor(op);
  }
  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (const auto *iv = op.node.as<ir::IterVar>(); iv && op.key == "virtual_thread")
      analyzer_.bind(iv->var, ir::Range{ir::intImm(0, iv->var->dtype), op.value});
    return PragmaLowerer::visitAttrStmt(op);
  }

private:
  llvm::Error fail(const ir::Node &at, const llvm::Twine &message) {
    return ir::diagnosticError(at.loc(), "dma_copy: " + message);
  }

  // The guard split added for a factor that does not divide its loop (`l_0 * f + l_1 < extent`,
  // located at the split's factors) that shares a loop variable with `condition`: the copy's guard
  // is that one carried through compute_at. Null when the function has none.
  const ir::BinaryExpr *splitGuardOf(const Expr &condition) {
    std::set<const ir::Var *> vars;
    ir::preOrderVisit(condition, [&](const ir::Node &n) {
      if (auto *var = n.as<ir::Var>()) vars.insert(var);
    });
    const ir::BinaryExpr *found = nullptr;
    ir::preOrderVisit(function_->body, [&](const ir::Node &n) {
      auto *branch = n.as<ir::IfThenElse>();
      auto *less = branch ? branch->condition.as<ir::BinaryExpr>() : nullptr;
      if (found || !less || less->kind() != ir::NodeKind::LT || !less->loc().isKnown() ||
          less->loc().file == function_->loc().file || !ir::asConstInt(less->b))
        return;
      ir::preOrderVisit(less->a, [&](const ir::Node &m) {
        if (auto *var = m.as<ir::Var>(); var && vars.count(var)) found = less;
      });
    });
    return found;
  }

  // Whether e >= 1 wherever the loops around take it: the analyzer's bounds, else (they treat
  // each max() of a padding term on its own) every value of its variables when they are few.
  bool atLeastOne(const Expr &e) {
    if (analyzer_.canProveGreaterEqual(e, 1)) return true;
    std::vector<const ir::Var *> vars;
    ir::preOrderVisit(e, [&](const ir::Node &n) {
      if (const auto *v = n.as<ir::Var>(); v && std::find(vars.begin(), vars.end(), v) == vars.end())
        vars.push_back(v);
    });
    std::vector<ir::arith::IntBound> bounds;  // the bound loops' ranges
    uint64_t points = 1;
    for (const ir::Var *v : vars) {
      ir::arith::IntBound b = analyzer_.constIntBound(ir::VarRef(v));
      if (b.min == ir::arith::IntBound::kNegInf || b.max == ir::arith::IntBound::kPosInf || b.max < b.min ||
          b.max - b.min >= 65536)
        return false;
      points *= uint64_t(b.max - b.min + 1);
      if (points > 65536) return false;
      bounds.push_back(b);
    }
    for (uint64_t point = 0; point < points; ++point) {
      ir::VarMap at;
      uint64_t rest = point;
      for (size_t i = 0; i < vars.size(); ++i) {
        uint64_t n = uint64_t(bounds[i].max - bounds[i].min + 1);
        at[vars[i]] = ir::intImm(bounds[i].min + int64_t(rest % n), vars[i]->dtype);
        rest /= n;
      }
      auto value = ir::asConstInt(analyzer_.simplify(ir::substitute(e, at)));
      if (!value || *value < 1) return false;
    }
    return true;
  }

  llvm::Expected<ir::Stmt> lowerPragma(const ir::AttrStmt &attr) override {
    vta::LoopNest nest = vta::loopNest(attr.body);
    // Unit loops (a TensorIR pragma on an extent-1 loop keeps it) copy nothing more: their
    // variable is 0, as when TE elides them.
    std::vector<const ir::For *> loops;
    ir::VarMap lets = nest.lets;
    for (const ir::For *loop : nest.loops) {
      if (!ir::isZero(loop->min)) return fail(*loop, "a loop of the copy does not start at 0");
      if (ir::isOne(loop->extent))
        lets[loop->loopVar.get()] = ir::intImm(0, loop->loopVar->dtype);
      else
        loops.push_back(loop);
    }
    const ir::Stmt &body = nest.innermost;
    const auto *store = body.as<ir::BufferStore>();
    if (const auto *guard = body.as<ir::IfThenElse>(); guard && !guard->elseCase) {
      const auto *guarded = guard->thenCase.as<ir::BufferStore>();
      std::string copy = "the copy into '" + (guarded ? guarded->buffer->name : std::string("?")) +
                         "' is guarded by `" + ir::printExpr(guard->condition) + "`";
      if (const ir::BinaryExpr *split = splitGuardOf(guard->condition)) {
        int64_t extent = *ir::asConstInt(split->b);
        std::vector<std::string> divisors;
        for (int64_t d = 1; d <= extent && divisors.size() < 8; ++d)
          if (extent % d == 0) divisors.push_back(std::to_string(d));
        return ir::diagnosticError(split->loc(), "dma_copy: " + copy + ": this split's factors do not divide the extent " +
                                                     std::to_string(extent) + " (its guard `" +
                                                     ir::printExpr(ir::Expr(split)) + "`), and VTA's DMA copies no "
                                                     "guarded tile; split by a factor that divides " +
                                                     std::to_string(extent) + " (" + llvm::join(divisors, ", ") + ")");
      }
      return fail(*guard, copy + ": a tile that does not divide its loop's extent; split that loop by a factor that "
                                 "divides it");
    }
    if (!store)
      return fail(loops.empty() ? static_cast<const ir::Node &>(attr) : *loops.back(),
                  "the copy is not a loop nest around one buffer store");
    Expr value = ir::substitute(store->value, lets);
    Expr condition, padValue;
    if (const auto *call = value.as<ir::Call>(); call && call->op == "tir.if_then_else") {
      condition = call->args[0], value = call->args[1], padValue = call->args[2];
    } else if (const auto *select = value.as<ir::Select>()) {
      condition = select->condition, value = select->trueValue, padValue = select->falseValue;
    }
    if (const auto *cast = value.as<ir::Cast>()) value = cast->value;
    const auto *load = value.as<ir::BufferLoad>();
    if (!load)
      return fail(*store, "the stored value is not a load, a cast load or a padded load");
    if (store->indices.size() != 1 || load->indices.size() != 1)
      return fail(*store, "expects flat 1-d buffers (run tir-lower first)");

    std::vector<ir::VarRef> vars;
    for (const ir::For *loop : loops) vars.push_back(loop->loopVar);
    auto storeEq = ir::detectLinearEquation(ir::substitute(store->indices[0], lets), vars);
    auto loadEq = ir::detectLinearEquation(load->indices[0], vars);
    if (!storeEq || !loadEq)
      return fail(*store, "the copy's indices are not linear in its loops");

    CopyBuffer src{load->buffer->data, load->buffer->dtype, load->buffer->scope(), {}, {},
                   loadEq->base};
    CopyBuffer dst{store->buffer->data, store->buffer->dtype, store->buffer->scope(), {}, {},
                   storeEq->base};
    for (size_t i = 0; i < loops.size(); ++i) {
      dst.shape.push_back(loops[i]->extent);
      src.shape.push_back(loops[i]->extent);
      src.strides.push_back(ir::intImm(loadEq->coeffs[i]));
      dst.strides.push_back(ir::intImm(storeEq->coeffs[i]));
    }
    if (loops.empty()) {
      for (CopyBuffer *b : {&src, &dst}) {
        b->shape.push_back(ir::intImm(1));
        b->strides.push_back(ir::intImm(1));
      }
    }

    std::vector<Expr> padBefore, padAfter;
    if (condition) {
      auto bounds = detectClipBound(ir::substitute(condition, lets), vars);
      if (!bounds)
        return fail(*store, "cannot derive the padding from the copy's condition (it must be "
                            "'and'ed comparisons, each bounding one loop variable)");
      for (size_t i = 0; i < loops.size(); ++i) {
        Expr zero = ir::intImm(0, vars[i]->dtype);
        Expr before = zero, after = zero;
        Expr size = src.shape[i];
        if ((*bounds)[i].min) {
          before = ir::simplify(maxExpr(ir::simplify((*bounds)[i].min), zero));
          src.elemOffset = src.elemOffset + before * src.strides[i];
          size = size - before;
        }
        if ((*bounds)[i].max) {
          after = ir::simplify(maxExpr(ir::simplify(loops[i]->extent - (*bounds)[i].max - 1), zero));
          size = size - after;
        }
        padBefore.push_back(before);
        padAfter.push_back(after);
        src.shape[i] = ir::simplify(size);
      }
      src.elemOffset = ir::simplify(src.elemOffset);
    }
    (void)padValue;  // VTA pads with zeros whatever the value (as TVM does)

    if (dst.scope == "global") return lowerStore(*store, src, dst, condition);
    if (src.scope == "global") return lowerLoad(*store, src, dst, padBefore, padAfter);
    return fail(*store, "cannot copy from '" + src.scope + "' to '" + dst.scope +
                            "' (one side must be DRAM)");
  }

  llvm::Expected<ir::Stmt> lowerStore(const ir::Node &at, const CopyBuffer &src,
                                      const CopyBuffer &dst, const Expr &condition) {
    if (condition) return fail(at, "a store to DRAM cannot pad");
    if (src.scope != vta::kAccScope)
      return fail(at, "cannot store from '" + src.scope + "' to DRAM (only from the accumulator)");
    if (llvm::Error error = checkCompact(at, src)) return error;
    auto pattern = pattern2D(at, dst, vta::outputTileScalars(config_), vta::outputScalar(config_),
                             true);
    if (!pattern) return pattern.takeError();
    Expr call = vta::callExtern(
        "VTAStoreBuffer2D",
        {vta::commandHandle(), sramPointer(src), ir::intImm(vta::kMemOut), Expr(dst.data),
         pattern->offset, pattern->xSize, pattern->ySize, pattern->xStride},
        at.loc());
    return coprocScope(vta::kQueueStore, call);
  }

  llvm::Expected<ir::Stmt> lowerLoad(const ir::Node &at, const CopyBuffer &src,
                                     const CopyBuffer &dst, const std::vector<Expr> &padBefore,
                                     const std::vector<Expr> &padAfter) {
    auto sram = vta::sramOf(config_, dst.scope);
    if (!sram) return fail(at, "cannot load from DRAM into '" + dst.scope + "'");
    int memoryType = sram->memoryType;
    ir::DataType expected = sram->scalar;
    if (dst.scope == vta::kAccScope && src.dtype == vta::outputScalar(config_)) {
      memoryType = vta::kMemAcc8Bit;  // narrow values widened by the load
      expected = src.dtype;
    }
    Expr zero = ir::intImm(0);
    Expr xBefore = zero, yBefore = zero, xAfter = zero, yAfter = zero;
    Expr one = ir::intImm(1), rows = one, columns = one;  // of the window in SRAM, padding included
    if (!padBefore.empty()) {
      size_t ndim = padBefore.size();
      // The tile is the innermost loop, or the two innermost (BATCH x BLOCK); the loops outside
      // it are the window's, the last two its rows and columns.
      Expr tile = ir::intImm(sram->tileScalars);
      size_t tileDims = provablyEqual(dst.shape[ndim - 1], tile)                                   ? 1
                        : ndim >= 2 && provablyEqual(dst.shape[ndim - 1] * dst.shape[ndim - 2], tile) ? 2
                                                                                                     : 0;
      size_t outer = ndim - tileDims;
      if (tileDims == 0 || outer < 1 || outer > 3)
        return fail(at, "a padded load needs 1 to 3 loops around its tile of " + llvm::Twine(sram->tileScalars) +
                            " elements (has " + llvm::Twine(ndim) + " loops)");
      // One loop: a window of one input row (or column), its unit loop gone. The loop is the 2D
      // pattern's row when its elements are adjacent tiles, else its column.
      size_t y = outer - 1, x = outer - 1;
      if (outer == 1 && provablyEqual(src.strides[0], tile)) {
        xBefore = padBefore[x], xAfter = padAfter[x], columns = dst.shape[x];
      } else if (outer == 1) {
        yBefore = padBefore[y], yAfter = padAfter[y], rows = dst.shape[y];
      } else {
        y = outer - 2;
        yBefore = padBefore[y], xBefore = padBefore[x];
        yAfter = padAfter[y], xAfter = padAfter[x];
        for (size_t d = 0; d <= y; ++d) rows = rows * dst.shape[d];
        columns = dst.shape[x];
      }
      for (size_t d = 0; d < ndim; ++d)
        if (d != y && d != x && (!ir::isZero(padBefore[d]) || !ir::isZero(padAfter[d])))
          return fail(at, "padding on loop " + llvm::Twine(d) + " of the copy is not supported; only the "
                          "window's rows and columns (the two loops around the tile) can be padded");
    }
    if (llvm::Error error = checkCompact(at, dst)) return error;
    auto pattern = pattern2D(at, src, sram->tileScalars, expected, padBefore.empty());
    if (!pattern) return pattern.takeError();
    // VTA loads nothing, padding included, when a row is empty (x_size 0: a no-op that carries
    // dependency flags), so a tile lying wholly in the padding would keep the SRAM's old contents.
    if (!padBefore.empty() && !(atLeastOne(pattern->xSize) && atLeastOne(pattern->ySize)))
      return fail(at, "a tile of this padded load can lie wholly in the padding (x_size " +
                          ir::printExpr(pattern->xSize) + ", y_size " + ir::printExpr(pattern->ySize) +
                          " can be 0), where VTA loads nothing and the tile keeps old data; choose tiles "
                          "that each overlap the data");
    // A padded window's rows and columns in SRAM must be the pattern's, padding included: the
    // padding was given to the loops, the pattern read from the strides, and a disagreement
    // would pad the wrong side or overrun the buffer.
    Expr patternRows = yBefore + pattern->ySize + yAfter, patternColumns = xBefore + pattern->xSize + xAfter;
    if (!padBefore.empty() && !(provablyEqual(patternRows, rows) && provablyEqual(patternColumns, columns)))
      return fail(at, "the padded load's 2D pattern (" + ir::printExpr(ir::simplify(patternRows)) + " rows of " +
                          ir::printExpr(ir::simplify(patternColumns)) + " tiles) is not its window (" +
                          ir::printExpr(ir::simplify(rows)) + " rows of " + ir::printExpr(ir::simplify(columns)) +
                          ")");
    Expr call = vta::callExtern(
        "VTALoadBuffer2D",
        {vta::commandHandle(), Expr(src.data), pattern->offset, pattern->xSize, pattern->ySize,
         pattern->xStride, xBefore, yBefore, xAfter, yAfter, sramPointer(dst),
         ir::intImm(memoryType)},
        at.loc());
    return coprocScope(sram->loadQueue, call);
  }

  ir::Stmt coprocScope(int queue, const Expr &call) {
    return ir::make<ir::AttrStmt>(axis_, "coproc_scope", ir::intImm(queue), vta::evaluate(call),
                                  call->loc());
  }

  // buffer.access_ptr("r", "int32") of the SRAM side.
  static Expr sramPointer(const CopyBuffer &b) {
    Expr extent = ir::simplify(b.strides[0] * b.shape[0]);
    return vta::accessPtr(b.data, b.dtype, b.elemOffset, extent, 1);
  }

  // The SRAM side must be dense in loop order (VTA's _check_compact).
  llvm::Error checkCompact(const ir::Node &at, const CopyBuffer &b) {
    Expr size = ir::intImm(1);
    for (size_t i = b.shape.size(); i-- > 0;) {
      if (!provablyEqual(size, b.strides[i]))
        return fail(at, "the copy does not walk the " + b.scope + " buffer densely in loop order");
      size = size * b.shape[i];
    }
    return llvm::Error::success();
  }

  // Merges the innermost dimensions into one tile and each run of mutually contiguous outer
  // dimensions into one (VTA's _fold_buffer_dim).
  llvm::Error foldDims(const ir::Node &at, const CopyBuffer &b, int64_t tile,
                       std::vector<Expr> &shape, std::vector<Expr> &strides) {
    size_t ndim = b.shape.size(), base = 0;
    Expr size = ir::intImm(1);
    for (size_t i = 1; i <= ndim; ++i) {
      if (!provablyEqual(b.strides[ndim - i], size)) break;
      size = size * b.shape[ndim - i];
      if (provablyEqual(size, ir::intImm(tile))) {
        base = i + 1;
        break;
      }
    }
    if (base == 0)
      return fail(at, "the innermost dimensions of the DRAM side do not form one contiguous tile "
                      "of " + llvm::Twine(tile) + " elements");
    shape = {ir::intImm(tile)};
    strides = {ir::intImm(1)};
    if (base < ndim + 1 && !provablyEqual(b.strides[ndim - base], ir::intImm(tile))) {
      shape.push_back(ir::intImm(1));
      strides.push_back(ir::intImm(tile));
    }
    while (base < ndim + 1) {
      Expr extent = ir::intImm(1);
      Expr stride = b.strides[ndim - base];
      size_t next = base;
      if (!provablyMultiple(stride, tile))
        return fail(at, "a stride of the DRAM side is not a multiple of the tile (" +
                            llvm::Twine(tile) + " elements)");
      for (size_t i = base; i <= ndim; ++i) {
        size_t k = ndim - i;
        if (!provablyEqual(extent * stride, b.strides[k])) break;
        extent = extent * b.shape[k];
        next = i + 1;
      }
      shape.push_back(ir::simplify(extent));
      strides.push_back(stride);
      base = next;
    }
    std::reverse(shape.begin(), shape.end());
    std::reverse(strides.begin(), strides.end());
    return llvm::Error::success();
  }

  // The DRAM side as x_size tiles per row, y_size rows (VTA's _get_2d_pattern).
  llvm::Expected<Pattern2D> pattern2D(const ir::Node &at, const CopyBuffer &b, int64_t tile,
                                      ir::DataType expected, bool allowFold) {
    if (b.dtype != expected)
      return fail(at, "the DRAM buffer holds " + b.dtype.str() + ", the transfer needs " +
                          expected.str());
    auto offset = ir::divideExactly(ir::simplify(b.elemOffset), tile);
    if (!offset)
      return fail(at, "the DRAM offset is not a multiple of the tile (" + llvm::Twine(tile) +
                          " elements)");
    std::vector<Expr> shape = b.shape, strides = b.strides;
    if (allowFold)
      if (llvm::Error error = foldDims(at, b, tile, shape, strides)) return error;
    auto noPattern = [&] {
      return fail(at, "cannot detect a 2D pattern of " + llvm::Twine(tile) +
                          "-element tiles in the DRAM side of the copy");
    };
    auto is = [](const Expr &e, int64_t v) { return provablyEqual(e, ir::intImm(v)); };
    auto tiles = [&](const Expr &stride) { return *ir::divideExactly(ir::simplify(stride), tile); };
    size_t ndim = shape.size();
    // a tile of two dimensions (BATCH x BLOCK), dense, is one dimension of `tile` elements
    if (ndim >= 2 && !is(shape[ndim - 1], tile) && is(strides[ndim - 1], 1) && provablyEqual(strides[ndim - 2], shape[ndim - 1]) &&
        is(shape[ndim - 1] * shape[ndim - 2], tile)) {
      shape.erase(shape.end() - 2), strides.erase(strides.end() - 2);
      shape.back() = ir::intImm(tile);
      --ndim;
    }
    Expr one = ir::intImm(1);
    if (!is(shape[ndim - 1], tile) || !is(strides[ndim - 1], 1)) return noPattern();
    if (ndim == 1) return Pattern2D{one, one, one, *offset};
    // one loop of vectors: adjacent ones make a row, strided ones a column
    if (ndim == 2 && !is(strides[0], tile) && provablyMultiple(strides[0], tile))
      return Pattern2D{one, shape[0], tiles(strides[0]), *offset};
    if (!is(strides[ndim - 2], tile)) return noPattern();
    if (ndim == 2) return Pattern2D{shape[ndim - 2], one, shape[ndim - 2], *offset};
    if (!provablyMultiple(strides[ndim - 3], tile)) return noPattern();
    if (ndim == 3) return Pattern2D{shape[ndim - 2], shape[ndim - 3], tiles(strides[ndim - 3]), *offset};
    return noPattern();
  }

  const ::vta::Config &config_;
  ir::IterVarRef axis_;
  ir::PrimFuncRef function_;
  ir::arith::Analyzer analyzer_;  // the ranges of the loops and virtual threads seen so far
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> injectDmaCopies(const ir::PrimFuncRef &func, PassContext &context) {
  DmaInjector injector(context, func);
  return mutateBody(func, injector, func->loc());
}

}  // namespace vtac::passes
