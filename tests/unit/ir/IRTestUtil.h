// Small builders shared by the IR unit tests: hand-made functions stay readable.
#pragma once

#include <utility>
#include <vector>

#include "vtac/ir/IR.h"

namespace vtac::ir::test {

inline Expr i32(int64_t v) { return intImm(v); }
inline Expr f32(double v) { return floatImm(v); }

inline BufferRef buffer(const char *name, std::vector<int64_t> shape, DataType dtype = DataType::float32(),
                        const char *scope = "global") {
  std::vector<Expr> dims;
  for (int64_t d : shape) dims.push_back(intImm(d));
  return makeBuffer(name, dtype, std::move(dims), scope);
}

inline Expr load(const BufferRef &b, std::vector<Expr> indices) { return bufferLoad(b, std::move(indices)); }
inline Stmt store(const BufferRef &b, Expr value, std::vector<Expr> indices) {
  return make<BufferStore>(b, std::move(value), std::move(indices));
}
inline Stmt loop(const VarRef &v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return make<For>(v, intImm(0), intImm(extent), kind, std::move(body));
}
inline Stmt eval(Expr e) { return make<Evaluate>(std::move(e)); }
inline Expr call(DataType t, const char *op, std::vector<Expr> args) { return make<Call>(t, op, std::move(args)); }

// A prim_func whose parameters are handles bound to `buffers` (in order).
inline PrimFuncRef funcWithBuffers(const std::vector<BufferRef> &buffers, Stmt body, AttrMap attrs = {}) {
  std::vector<VarRef> params;
  std::vector<std::pair<VarRef, BufferRef>> bufferMap;
  for (const BufferRef &b : buffers) {
    VarRef handle = make<Var>(b->name, DataType::handle());
    params.push_back(handle);
    bufferMap.emplace_back(handle, b);
  }
  return make<PrimFunc>(std::move(params), std::move(bufferMap), std::move(body), std::move(attrs));
}

// A point region `buffer[i, j, ...]`.
inline BufferRegion point(const BufferRef &b, std::vector<Expr> indices) {
  BufferRegion r{b, {}};
  for (Expr &e : indices) r.region.push_back(Range{std::move(e), intImm(1)});
  return r;
}

inline IterVarRef axis(const VarRef &v, int64_t extent, IterType type = IterType::DataPar) {
  return make<IterVar>(v, rangeFromExtent(intImm(extent)), type);
}

// `with T.block(name)` bound to `values`, regions given.
inline Stmt blockRealize(const char *name, std::vector<IterVarRef> axes, std::vector<Expr> values,
                         std::vector<BufferRegion> reads, std::vector<BufferRegion> writes, Stmt body,
                         Stmt init = nullptr, Expr predicate = nullptr) {
  BlockRef b = make<Block>(name, std::move(axes), std::move(reads), std::move(writes), std::move(body), std::move(init));
  return make<BlockRealize>(std::move(values), std::move(predicate), b);
}

// The implicit root block around `body`, with `allocs`.
inline Stmt rootBlock(Stmt body, std::vector<BufferRef> allocs = {}) {
  BlockRef root = make<Block>("root", std::vector<IterVarRef>{}, std::vector<BufferRegion>{},
                              std::vector<BufferRegion>{}, std::move(body), nullptr, std::move(allocs));
  return make<BlockRealize>(std::vector<Expr>{}, nullptr, root);
}

}  // namespace vtac::ir::test
