// Expression node constructors (result dtypes), buffers, iteration types and node kind names.
#include "vtac/ir/Expr.h"

namespace vtac::ir {

const char *nodeKindName(NodeKind kind) {
  static const char *const names[kNumNodeKinds] = {
      "IntImm", "FloatImm", "StringImm", "Var", "Cast",
      "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max",
      "EQ", "NE", "LT", "LE", "GT", "GE",
      "And", "Or",
      "Not", "Select", "BufferLoad", "Call", "Let", "Ramp", "Broadcast",
      "BufferStore", "LetStmt", "AttrStmt", "AssertStmt", "For", "While", "IfThenElse", "SeqStmt",
      "Evaluate", "Allocate", "DeclBuffer", "Block", "BlockRealize",
      "IterVar", "Buffer", "GlobalVar", "CommReducer",
      "PrimFunc", "RelaxFunction",
  };
  return names[size_t(kind)];
}

static DataType binaryResultType(NodeKind op, const Expr &a) {
  if (BinaryExpr::isComparison(op)) return DataType::boolTy(a->dtype.lanes());
  return a->dtype;
}

BinaryExpr::BinaryExpr(NodeKind op, Expr a, Expr b, SourceLoc loc)
    : ExprNode(op, binaryResultType(op, a), loc), a(std::move(a)), b(std::move(b)) {
  assert(classof(op) && "BinaryExpr built with a non-binary kind");
}

Not::Not(Expr a, SourceLoc loc)
    : ExprNode(NodeKind::Not, DataType::boolTy(a->dtype.lanes()), loc), a(std::move(a)) {}

Select::Select(Expr condition, Expr trueValue, Expr falseValue, SourceLoc loc)
    : ExprNode(NodeKind::Select, trueValue->dtype, loc), condition(std::move(condition)),
      trueValue(std::move(trueValue)), falseValue(std::move(falseValue)) {}

Let::Let(VarRef var, Expr value, Expr body, SourceLoc loc)
    : ExprNode(NodeKind::Let, body->dtype, loc), var(std::move(var)), value(std::move(value)),
      body(std::move(body)) {}

Ramp::Ramp(Expr base, Expr stride, int lanes, SourceLoc loc)
    : ExprNode(NodeKind::Ramp, base->dtype.withLanes(lanes), loc), base(std::move(base)),
      stride(std::move(stride)), lanes(lanes) {}

Broadcast::Broadcast(Expr value, int lanes, SourceLoc loc)
    : ExprNode(NodeKind::Broadcast, value->dtype.withLanes(lanes), loc), value(std::move(value)),
      lanes(lanes) {}

static DataType loadType(const BufferRef &buffer, const std::vector<Expr> &indices) {
  int lanes = indices.empty() ? 1 : indices.back()->dtype.lanes();
  return buffer->dtype.withLanes(buffer->dtype.lanes() * lanes);
}

BufferLoad::BufferLoad(BufferRef buffer, std::vector<Expr> indices, SourceLoc loc)
    : ExprNode(NodeKind::BufferLoad, loadType(buffer, indices), loc), buffer(std::move(buffer)),
      indices(std::move(indices)) {}

static bool isLiteralZero(const Expr &e) {
  const auto *imm = e.as<IntImm>();
  return imm && imm->value == 0;
}

Buffer::Buffer(std::string name, VarRef data, DataType dtype, std::vector<Expr> shape,
               std::vector<Expr> strides, Expr elemOffset, int dataAlignment, int offsetFactor,
               SourceLoc loc)
    : Node(NodeKind::Buffer, loc), name(std::move(name)), data(std::move(data)), dtype(dtype),
      shape(std::move(shape)), strides(std::move(strides)),
      elemOffset(isLiteralZero(elemOffset) ? Expr() : std::move(elemOffset)),
      dataAlignment(dataAlignment > 0 ? dataAlignment : kDefaultAlignment),
      offsetFactor(offsetFactor != 0 ? offsetFactor : 1) {}

const std::string &Buffer::scope() const {
  static const std::string global = "global";
  return data && data->pointer ? data->pointer->scope : global;
}

BufferRef makeBuffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope,
                     SourceLoc loc) {
  VarRef data = make<Var>(name, PointerType{dtype, std::move(scope)}, loc);
  return make<Buffer>(std::move(name), std::move(data), dtype, std::move(shape), std::vector<Expr>{},
                      Expr(), Buffer::kDefaultAlignment, 1, loc);
}

static const char *const kIterTypeNames[] = {"DataPar",  "ThreadIndex", "CommReduce",
                                             "Ordered",  "Opaque",      "Unrolled",
                                             "Vectorized", "Parallelized", "Tensorized"};

const char *iterTypeName(IterType type) { return kIterTypeNames[size_t(type)]; }

std::optional<IterType> parseIterType(llvm::StringRef name) {
  for (size_t i = 0; i < std::size(kIterTypeNames); ++i)
    if (name == kIterTypeNames[i]) return IterType(i);
  return std::nullopt;
}

const char *threadLaunchKey(llvm::StringRef threadTag) {
  bool isVirtual = threadTag == "vthread" || threadTag == "vthread.x" || threadTag == "vthread.y" ||
                   threadTag == "vthread.z" || threadTag == "cthread";
  return isVirtual ? "virtual_thread" : "thread_extent";
}

Expr intImm(int64_t value, DataType dtype, SourceLoc loc) { return make<IntImm>(dtype, value, loc); }
Expr floatImm(double value, DataType dtype, SourceLoc loc) { return make<FloatImm>(dtype, value, loc); }
Expr boolImm(bool value, SourceLoc loc) { return make<IntImm>(DataType::boolTy(), value, loc); }
VarRef makeVar(std::string name, DataType dtype, SourceLoc loc) { return make<Var>(std::move(name), dtype, loc); }
Expr binary(NodeKind op, Expr a, Expr b, SourceLoc loc) {
  return make<BinaryExpr>(op, std::move(a), std::move(b), loc);
}
Expr bufferLoad(BufferRef buffer, std::vector<Expr> indices, SourceLoc loc) {
  return make<BufferLoad>(std::move(buffer), std::move(indices), loc);
}
Range rangeFromExtent(Expr extent) {
  Expr zero = intImm(0, extent->dtype);
  return Range{std::move(zero), std::move(extent)};
}

}  // namespace vtac::ir
