// Block read/write region inference, checked through the printed regions.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {
std::string regionText(const std::vector<BufferRegion> &regions) {
  std::string out;
  for (const BufferRegion &r : regions) {
    if (!out.empty()) out += ", ";
    out += r.buffer->name + "[";
    for (size_t d = 0; d < r.region.size(); ++d) {
      if (d) out += ", ";
      out += printExpr(r.region[d].min) + ", extent " + printExpr(r.region[d].extent);
    }
    out += "]";
  }
  return out;
}

BlockRef blockOf(std::vector<IterVarRef> axes, Stmt body, Stmt init = nullptr, std::vector<BufferRef> allocs = {}) {
  return make<Block>("b", std::move(axes), std::vector<BufferRegion>{}, std::vector<BufferRegion>{}, std::move(body),
                     std::move(init), std::move(allocs));
}
}  // namespace

TEST_CASE("a reduction without init reads its output, with init it does not", "[ir][regions]") {
  BufferRef A = buffer("A", {16, 16}), B = buffer("B", {16, 16}), C = buffer("C", {16, 16});
  VarRef vi = makeVar("vi"), vj = makeVar("vj"), vk = makeVar("vk");
  Stmt update = store(C, addExpr(load(C, {vi, vj}), mulExpr(load(A, {vi, vk}), load(B, {vk, vj}))), {vi, vj});
  std::vector<IterVarRef> axes{axis(vi, 16), axis(vj, 16), axis(vk, 16, IterType::CommReduce)};
  BlockAccessRegions noInit = inferAccessRegions(*blockOf(axes, update));
  CHECK(regionText(noInit.reads) == "C[vi, extent 1, vj, extent 1], A[vi, extent 1, vk, extent 1], "
                                    "B[vk, extent 1, vj, extent 1]");
  CHECK(regionText(noInit.writes) == "C[vi, extent 1, vj, extent 1]");
  BlockAccessRegions withInit = inferAccessRegions(*blockOf(axes, update, store(C, f32(0.0), {vi, vj})));
  CHECK(regionText(withInit.reads) == "A[vi, extent 1, vk, extent 1], B[vk, extent 1, vj, extent 1]");
  CHECK(regionText(withInit.writes) == "C[vi, extent 1, vj, extent 1]");
}

TEST_CASE("accesses at constant offsets merge into one slice", "[ir][regions]") {
  BufferRef A = buffer("A", {1027}), B = buffer("B", {1024});
  VarRef vi = makeVar("vi");
  Expr sum = addExpr(addExpr(load(A, {vi}), load(A, {addExpr(vi, i32(1))})), load(A, {addExpr(vi, i32(2))}));
  BlockAccessRegions r = inferAccessRegions(*blockOf({axis(vi, 1024)}, store(B, sum, {vi})));
  CHECK(regionText(r.reads) == "A[vi, extent 3]");
  // The start is the index as written, so it prints as T.reads(A[vi:vi + 3]).
  CHECK(r.reads[0].region[0].min == vi);
}

TEST_CASE("loops inside the block are relaxed to their bounds", "[ir][regions]") {
  BufferRef A = buffer("A", {256}), C = buffer("C", {16});
  VarRef vi = makeVar("vi"), k = makeVar("k");
  Stmt body = loop(k, 16, store(C, addExpr(load(C, {vi}), load(A, {addExpr(mulExpr(vi, i32(16)), k)})), {vi}));
  BlockAccessRegions r = inferAccessRegions(*blockOf({axis(vi, 16)}, body));
  CHECK(regionText(r.reads) == "C[vi, extent 1], A[vi * 16, extent 16]");
}

TEST_CASE("unanalysable indices cover the whole dimension", "[ir][regions]") {
  BufferRef A = buffer("A", {64, 8}), B = buffer("B", {8});
  VarRef vi = makeVar("vi"), k = makeVar("k");
  Expr nonLinear = floorDivExpr(mulExpr(k, k), i32(3));
  Stmt body = loop(k, 8, store(B, load(A, {nonLinear, vi}), {vi}));
  BlockAccessRegions r = inferAccessRegions(*blockOf({axis(vi, 8)}, body));
  CHECK(regionText(r.reads) == "A[0, extent 64, vi, extent 1]");
}

TEST_CASE("inner blocks contribute their regions with bindings substituted", "[ir][regions]") {
  BufferRef A = buffer("A", {64}), C = buffer("C", {64});
  VarRef vo = makeVar("vo"), i = makeVar("i"), vii = makeVar("vii");
  Stmt inner = blockRealize("inner", {axis(vii, 16)}, {addExpr(mulExpr(vo, i32(16)), i)},
                            {point(A, {vii})}, {point(C, {vii})}, store(C, load(A, {vii}), {vii}));
  BlockAccessRegions r = inferAccessRegions(*blockOf({axis(vo, 4)}, loop(i, 16, inner)));
  CHECK(regionText(r.reads) == "A[vo * 16, extent 16]");
  CHECK(regionText(r.writes) == "C[vo * 16, extent 16]");
}

TEST_CASE("pointer uses are whole-buffer accesses; block allocations are left out", "[ir][regions]") {
  BufferRef A = buffer("A", {16, 16}), C = buffer("C", {16, 16});
  BufferRef local = buffer("local", {16}, DataType::float32(), "local");
  auto accessPtr = [](const BufferRef &b, int mask) {
    return call(DataType::handle(), "tir.tvm_access_ptr",
                {call(DataType::float32(), "tir.type_annotation", {}), b->data, i32(0), i32(256), i32(mask)});
  };
  Stmt body = seq({store(local, f32(0.0), {i32(0)}),
                   eval(call(DataType::int32(), "tir.call_extern",
                             {make<StringImm>("tmm16"), accessPtr(C, 2), accessPtr(A, 1)}))});
  BlockAccessRegions r = inferAccessRegions(*blockOf({}, body, nullptr, {local}), {A, C});
  CHECK(regionText(r.reads) == "A[0, extent 16, 0, extent 16]");
  CHECK(regionText(r.writes) == "C[0, extent 16, 0, extent 16]");
}
