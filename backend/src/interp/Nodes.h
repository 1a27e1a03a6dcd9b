// The compiled form the interpreter executes: a tree of small typed nodes.
//
// Every IR expression becomes an IntExpr (all integer types and bool, held as int64 normalised
// to the type's width), a FloatExpr (held as double, rounded to the type after every
// operation, so float32 arithmetic is exactly IEEE float32) or a HandleExpr; every statement
// becomes a StmtExec. Variables are slot indices, constant shapes are folded into the access
// nodes, and integer index arithmetic (+, -, * by constants) is folded into one affine node, so
// evaluating a node allocates nothing and costs one virtual call.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Runtime.h"
#include "vtac/backend/KernelCacheSlot.h"
#include "vtac/ir/ConstantData.h"
#include "vtac/ir/DataType.h"

namespace vtac::backend::interp {

struct IntExpr {
  virtual ~IntExpr() = default;
  virtual int64_t eval(Frame &frame) const = 0;
};
struct FloatExpr {
  virtual ~FloatExpr() = default;
  virtual double eval(Frame &frame) const = 0;
};
// Evaluates to the pointer an extern receives (a buffer's externPointer(), a command handle).
struct HandleExpr {
  virtual ~HandleExpr() = default;
  virtual void *eval(Frame &frame) const = 0;
};
struct StmtExec {
  virtual ~StmtExec() = default;
  virtual void exec(Frame &frame) const = 0;
};

using IntPtr = std::unique_ptr<IntExpr>;
using FloatPtr = std::unique_ptr<FloatExpr>;
using HandlePtr = std::unique_ptr<HandleExpr>;
using StmtPtr = std::unique_ptr<StmtExec>;

// ---- integer normalisation ------------------------------------------------------------------

// The integer types the interpreter distinguishes; values are kept sign- or zero-extended
// into int64 (bool as 0/1), so comparisons of normalised values are plain int64 comparisons
// except for uint64.
struct IntType {
  uint8_t bits = 32;
  bool isSigned = true;
  bool isBool = false;

  static IntType of(ir::DataType dtype) {
    return {uint8_t(dtype.bits()), dtype.isInt(), dtype.isBool()};
  }
  bool isUInt64() const { return !isSigned && !isBool && bits == 64; }
  int64_t wrap(int64_t value) const {
    if (isBool) return value != 0;
    if (bits >= 64) return value;
    int shift = 64 - bits;
    return isSigned ? int64_t(uint64_t(value) << shift) >> shift
                    : int64_t(uint64_t(value) & ((uint64_t(1) << bits) - 1));
  }
};

struct WrapInt32 {
  int64_t operator()(int64_t v) const { return int32_t(uint32_t(uint64_t(v))); }
};
struct WrapInt64 {
  int64_t operator()(int64_t v) const { return v; }
};
struct WrapGeneric {
  IntType type;
  int64_t operator()(int64_t v) const { return type.wrap(v); }
};

// Float rounding after each operation.
enum class FloatWidth : uint8_t { F16, F32, F64 };
double roundToWidth(double value, FloatWidth width);
inline FloatWidth floatWidthOf(ir::DataType dtype) {
  return dtype.bits() == 16 ? FloatWidth::F16 : dtype.bits() == 32 ? FloatWidth::F32 : FloatWidth::F64;
}

// ---- leaves ----------------------------------------------------------------------------------

struct IntConst final : IntExpr {
  int64_t value;
  explicit IntConst(int64_t value) : value(value) {}
  int64_t eval(Frame &) const override { return value; }
};
struct IntSlot final : IntExpr {
  int slot;
  explicit IntSlot(int slot) : slot(slot) {}
  int64_t eval(Frame &frame) const override { return frame.slots[slot].i; }
};
struct FloatConst final : FloatExpr {
  double value;
  explicit FloatConst(double value) : value(value) {}
  double eval(Frame &) const override { return value; }
};
struct FloatSlot final : FloatExpr {
  int slot;
  explicit FloatSlot(int slot) : slot(slot) {}
  double eval(Frame &frame) const override { return frame.slots[slot].f; }
};

// A variable no statement binds: evaluating it is an error at its location.
struct UnboundVar {
  std::string name;
  ir::SourceLoc loc;
  UnboundVar(std::string name, ir::SourceLoc loc) : name(std::move(name)), loc(loc) {}
  void fail(Frame &frame) const { frame.trap(loc, "variable '" + name + "' is not bound"); }
};
struct UnboundIntVar final : IntExpr {
  UnboundVar var;
  UnboundIntVar(std::string name, ir::SourceLoc loc) : var(std::move(name), loc) {}
  int64_t eval(Frame &frame) const override { var.fail(frame); return 0; }
};
struct UnboundFloatVar final : FloatExpr {
  UnboundVar var;
  UnboundFloatVar(std::string name, ir::SourceLoc loc) : var(std::move(name), loc) {}
  double eval(Frame &frame) const override { var.fail(frame); return 0; }
};
struct UnboundHandleVar final : HandleExpr {
  UnboundVar var;
  UnboundHandleVar(std::string name, ir::SourceLoc loc) : var(std::move(name), loc) {}
  void *eval(Frame &frame) const override { var.fail(frame); return nullptr; }
};

// ---- integer arithmetic ---------------------------------------------------------------------

// c0 + sum(coefficient * slot), modulo 2^64, for up to kMaxTerms variables: integer index
// arithmetic (+, -, * by constants) folded into one loop without virtual calls. Wrapping the
// sum to the expression's type once at the end gives the same value as wrapping after every
// + - *, because wrapping is a ring homomorphism.
struct AffineSum {
  static constexpr int kMaxTerms = 8;
  uint64_t constant = 0;
  int count = 0;
  int slots[kMaxTerms] = {};
  uint64_t coefficients[kMaxTerms] = {};
  uint64_t eval(const Frame &frame) const {
    const Slot *v = frame.slots.data();
    uint64_t sum = constant;
    // Unrolled: a loop here costs as much as the arithmetic.
    switch (count) {
    case 8: sum += uint64_t(v[slots[7]].i) * coefficients[7]; [[fallthrough]];
    case 7: sum += uint64_t(v[slots[6]].i) * coefficients[6]; [[fallthrough]];
    case 6: sum += uint64_t(v[slots[5]].i) * coefficients[5]; [[fallthrough]];
    case 5: sum += uint64_t(v[slots[4]].i) * coefficients[4]; [[fallthrough]];
    case 4: sum += uint64_t(v[slots[3]].i) * coefficients[3]; [[fallthrough]];
    case 3: sum += uint64_t(v[slots[2]].i) * coefficients[2]; [[fallthrough]];
    case 2: sum += uint64_t(v[slots[1]].i) * coefficients[1]; [[fallthrough]];
    case 1: sum += uint64_t(v[slots[0]].i) * coefficients[0]; [[fallthrough]];
    default: return sum;
    }
  }
};

// An AffineSum plus terms that are not variables (loads, divisions, other widths).
template <class Wrap> struct IntAffine final : IntExpr {
  struct ExprTerm { IntPtr expr; uint64_t coefficient; };
  AffineSum sum;
  std::vector<ExprTerm> exprTerms;
  Wrap wrap;
  int64_t eval(Frame &frame) const override {
    uint64_t total = sum.eval(frame);
    for (const ExprTerm &term : exprTerms) total += uint64_t(term.expr->eval(frame)) * term.coefficient;
    return wrap(int64_t(total));
  }
};

struct OpAdd { static int64_t apply(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); } };
struct OpSub { static int64_t apply(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); } };
struct OpMul { static int64_t apply(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); } };
struct OpMin { static int64_t apply(int64_t a, int64_t b) { return a < b ? a : b; } };
struct OpMax { static int64_t apply(int64_t a, int64_t b) { return a > b ? a : b; } };
struct OpUMin { static int64_t apply(int64_t a, int64_t b) { return uint64_t(a) < uint64_t(b) ? a : b; } };
struct OpUMax { static int64_t apply(int64_t a, int64_t b) { return uint64_t(a) > uint64_t(b) ? a : b; } };
struct OpAnd { static int64_t apply(int64_t a, int64_t b) { return a & b; } };
struct OpOr { static int64_t apply(int64_t a, int64_t b) { return a | b; } };
struct OpXor { static int64_t apply(int64_t a, int64_t b) { return a ^ b; } };

template <class Op, class Wrap> struct IntBinary final : IntExpr {
  IntPtr a, b;
  Wrap wrap;
  IntBinary(IntPtr a, IntPtr b, Wrap wrap) : a(std::move(a)), b(std::move(b)), wrap(wrap) {}
  int64_t eval(Frame &frame) const override {
    int64_t x = a->eval(frame);
    return wrap(Op::apply(x, b->eval(frame)));
  }
};

// Div/Mod (truncating) and FloorDiv/FloorMod; division by zero is an error.
struct IntDivide final : IntExpr {
  enum class Kind : uint8_t { TruncDiv, TruncMod, FloorDiv, FloorMod };
  Kind op;
  IntType type;
  IntPtr a, b;
  ir::SourceLoc loc;
  int64_t eval(Frame &frame) const override;
};

struct IntShift final : IntExpr {
  bool left;
  IntType type;
  IntPtr a, b;
  ir::SourceLoc loc;
  int64_t eval(Frame &frame) const override;
};

struct IntNot final : IntExpr {  // bitwise not, wrapped
  IntType type;
  IntPtr a;
  int64_t eval(Frame &frame) const override { return type.wrap(~a->eval(frame)); }
};

struct CmpEQ { template <class T> static bool apply(T a, T b) { return a == b; } };
struct CmpNE { template <class T> static bool apply(T a, T b) { return a != b; } };
struct CmpLT { template <class T> static bool apply(T a, T b) { return a < b; } };
struct CmpLE { template <class T> static bool apply(T a, T b) { return a <= b; } };
struct CmpGT { template <class T> static bool apply(T a, T b) { return a > b; } };
struct CmpGE { template <class T> static bool apply(T a, T b) { return a >= b; } };

template <class Cmp, class T> struct IntCompare final : IntExpr {
  IntPtr a, b;
  IntCompare(IntPtr a, IntPtr b) : a(std::move(a)), b(std::move(b)) {}
  int64_t eval(Frame &frame) const override {
    T x = T(a->eval(frame));
    return Cmp::apply(x, T(b->eval(frame)));
  }
};
template <class Cmp> struct FloatCompare final : IntExpr {
  FloatPtr a, b;
  FloatCompare(FloatPtr a, FloatPtr b) : a(std::move(a)), b(std::move(b)) {}
  int64_t eval(Frame &frame) const override {
    double x = a->eval(frame);
    return Cmp::apply(x, b->eval(frame));
  }
};

// Short-circuit && and || (the right operand may be an access guarded by the left one).
struct LogicalAnd final : IntExpr {
  IntPtr a, b;
  int64_t eval(Frame &frame) const override { return a->eval(frame) && b->eval(frame); }
};
struct LogicalOr final : IntExpr {
  IntPtr a, b;
  int64_t eval(Frame &frame) const override { return a->eval(frame) || b->eval(frame); }
};
struct LogicalNot final : IntExpr {
  IntPtr a;
  int64_t eval(Frame &frame) const override { return !a->eval(frame); }
};

// T.Select evaluates both sides; T.if_then_else only the chosen one.
template <class E, class R> struct SelectNode final : E {
  IntPtr condition;
  std::unique_ptr<E> onTrue, onFalse;
  bool lazy;
  R eval(Frame &frame) const override {
    if (lazy) return condition->eval(frame) ? onTrue->eval(frame) : onFalse->eval(frame);
    int64_t c = condition->eval(frame);
    R t = onTrue->eval(frame);
    R f = onFalse->eval(frame);
    return c ? t : f;
  }
};
using IntSelect = SelectNode<IntExpr, int64_t>;
using FloatSelect = SelectNode<FloatExpr, double>;
using HandleSelect = SelectNode<HandleExpr, void *>;

template <class Wrap> struct IntWrap final : IntExpr {  // integer -> integer cast
  IntPtr a;
  Wrap wrap;
  IntWrap(IntPtr a, Wrap wrap) : a(std::move(a)), wrap(wrap) {}
  int64_t eval(Frame &frame) const override { return wrap(a->eval(frame)); }
};

struct IntFromFloat final : IntExpr {  // float -> integer cast (out of range is an error)
  IntType type;
  FloatPtr a;
  ir::SourceLoc loc;
  int64_t eval(Frame &frame) const override;
};

struct FloatFromInt final : FloatExpr {
  FloatWidth width;
  bool fromUInt64;
  IntPtr a;
  double eval(Frame &frame) const override {
    int64_t v = a->eval(frame);
    // Rounded once, as sitofp/uitofp: through double, a 64-bit value rounds twice for float32
    // (float16 overflows long before double rounds).
    if (width == FloatWidth::F32) return fromUInt64 ? double(float(uint64_t(v))) : double(float(v));
    return roundToWidth(fromUInt64 ? double(uint64_t(v)) : double(v), width);
  }
};

struct FloatRound final : FloatExpr {  // float -> float cast
  FloatWidth width;
  FloatPtr a;
  double eval(Frame &frame) const override { return roundToWidth(a->eval(frame), width); }
};

// ---- float arithmetic -----------------------------------------------------------------------

struct FAdd { static double apply(double a, double b) { return a + b; } };
struct FSub { static double apply(double a, double b) { return a - b; } };
struct FMul { static double apply(double a, double b) { return a * b; } };
struct FDiv { static double apply(double a, double b) { return a / b; } };
// TVM's LLVM codegen: select(a < b, a, b) and select(a > b, a, b), so a NaN `a` gives b and a
// NaN `b` gives NaN (not fmin/fmax, which drop either NaN).
struct FMin { static double apply(double a, double b) { return a < b ? a : b; } };
struct FMax { static double apply(double a, double b) { return a > b ? a : b; } };
struct FFloorDiv { static double apply(double a, double b) { return std::floor(a / b); } };
struct FFloorMod { static double apply(double a, double b) { return a - std::floor(a / b) * b; } };
struct FMod { static double apply(double a, double b) { return std::fmod(a, b); } };
struct FPow { static double apply(double a, double b) { return std::pow(a, b); } };

// Exact float32 arithmetic: a double result of one + - * / on float32 inputs rounds to the
// same float32 as the float32 operation (double has more than 2 * 24 + 2 bits).
template <FloatWidth Width> double roundTo(double value) {
  if constexpr (Width == FloatWidth::F32) return double(float(value));
  else if constexpr (Width == FloatWidth::F64) return value;
  else return roundToWidth(value, Width);
}

template <class Op, FloatWidth Width> struct FloatBinary final : FloatExpr {
  FloatPtr a, b;
  FloatBinary(FloatPtr a, FloatPtr b) : a(std::move(a)), b(std::move(b)) {}
  double eval(Frame &frame) const override {
    double x = a->eval(frame);
    return roundTo<Width>(Op::apply(x, b->eval(frame)));
  }
};

struct FloatUnaryMath final : FloatExpr {
  double (*function)(double);
  FloatWidth width;
  FloatPtr a;
  double eval(Frame &frame) const override { return roundToWidth(function(a->eval(frame)), width); }
};

// ---- let ------------------------------------------------------------------------------------

// Assigns one slot from an expression of any kind (let values, block bindings, signatures).
struct SlotAssign {
  int slot = -1;
  IntPtr intValue;
  FloatPtr floatValue;
  HandlePtr handleValue;
  void run(Frame &frame) const {
    if (intValue) frame.slots[slot].i = intValue->eval(frame);
    else if (floatValue) frame.slots[slot].f = floatValue->eval(frame);
    else frame.slots[slot].p = handleValue->eval(frame);
  }
};

template <class E, class R> struct LetNode final : E {
  SlotAssign binding;
  std::unique_ptr<E> body;
  R eval(Frame &frame) const override {
    binding.run(frame);
    return body->eval(frame);
  }
};
using IntLet = LetNode<IntExpr, int64_t>;
using FloatLet = LetNode<FloatExpr, double>;

// ---- buffer access --------------------------------------------------------------------------

// An integer operand that is usually a constant, a variable or an affine index: evaluated
// without a virtual call in those cases.
struct Operand {
  enum class Kind : uint8_t { Const, Slot, Affine, Expr };
  Kind kind = Kind::Const;
  int slot = 0;
  int64_t value = 0;
  AffineSum affine;
  IntType type;  // of an Affine operand, to wrap the sum
  IntPtr expr;
  int64_t eval(Frame &frame) const {
    switch (kind) {
    case Kind::Const: return value;
    case Kind::Slot: return frame.slots[slot].i;
    case Kind::Affine: {
      uint64_t sum = affine.eval(frame);
      return type.isSigned && type.bits == 32 ? int64_t(int32_t(uint32_t(sum))) : type.wrap(int64_t(sum));
    }
    default: return expr->eval(frame);
    }
  }
  bool isConst() const { return kind == Kind::Const; }
};

// The address of buffer[indices]. The element must lie inside the storage the buffer views,
// so no access leaves its allocation; indices of multi-dimensional buffers must also lie inside
// their dimension's extent. A one-dimensional buffer is lowered TIR's view of raw memory (TVM
// declares (16384,) views over a 32768-element allocation after merging buffers and indexes
// them past 16384), so its declared extent is not a bound.
struct BufferAccess {
  struct Dim {
    Operand index, extent, stride;
  };
  int dataSlot = 0;
  int elementBytes = 1;
  std::string bufferName;
  ir::SourceLoc loc;
  std::vector<Dim> dims;
  Operand elemOffset;  // Const 0 unless the buffer has an element offset
  // One dimension, compact, no offset: the lowered-TIR case, one check against the storage.
  bool isFlat = false;
  // Several dimensions of constant extents and strides, no offset (static TensorIR buffers).
  bool isConstLayout = false;

  uint8_t *address(Frame &frame) const {
    if (isFlat) return inStorage(frame, dims[0].index.eval(frame));
    int64_t flat = 0;
    if (isConstLayout) {
      for (size_t d = 0; d < dims.size(); ++d) {
        const Dim &dim = dims[d];
        int64_t index = dim.index.eval(frame);
        if (uint64_t(index) >= uint64_t(dim.extent.value)) return outOfBounds(frame, d, index, dim.extent.value);
        flat += index * dim.stride.value;
      }
      return inStorage(frame, flat);
    }
    flat = elemOffset.eval(frame);
    for (size_t d = 0; d < dims.size(); ++d) {
      const Dim &dim = dims[d];
      int64_t index = dim.index.eval(frame);
      if (dims.size() > 1) {
        int64_t extent = dim.extent.eval(frame);
        if (uint64_t(index) >= uint64_t(extent)) return outOfBounds(frame, d, index, extent);
      }
      flat += index * dim.stride.eval(frame);
    }
    return inStorage(frame, flat);
  }

  uint8_t *inStorage(Frame &frame, int64_t flat) const {
    auto *storage = static_cast<Storage *>(frame.slots[dataSlot].p);
    // The first test also catches negative and huge indices, so the product cannot overflow.
    if (!storage || uint64_t(flat) >= uint64_t(storage->byteSize) || (flat + 1) * elementBytes > storage->byteSize)
      return outsideStorage(frame, storage, flat);
    return storage->data + flat * elementBytes;
  }

  [[gnu::cold]] uint8_t *outOfBounds(Frame &frame, size_t dim, int64_t index, int64_t extent) const;
  [[gnu::cold]] uint8_t *outsideStorage(Frame &frame, const Storage *storage, int64_t flat) const;
};

// Element types as stored, with their conversion to the interpreter's value domain.
template <class T> struct IntElement {
  static int64_t load(const uint8_t *p) { T v; std::memcpy(&v, p, sizeof v); return int64_t(v); }
  static void store(uint8_t *p, int64_t value) { T v = T(uint64_t(value)); std::memcpy(p, &v, sizeof v); }
};
struct BoolElement {
  static int64_t load(const uint8_t *p) { return *p != 0; }
  static void store(uint8_t *p, int64_t value) { *p = value != 0; }
};
template <class T> struct FloatElement {
  static double load(const uint8_t *p) { T v; std::memcpy(&v, p, sizeof v); return double(v); }
  static void store(uint8_t *p, double value) { T v = T(value); std::memcpy(p, &v, sizeof v); }
};
struct HalfElement {
  static double load(const uint8_t *p);
  static void store(uint8_t *p, double value);
};

// Calls make(ElementTag{}) for the element type of a buffer (integer/bool or float family).
template <class Make> auto forIntElement(ir::DataType element, Make &&make) {
  if (element.isBool()) return make(BoolElement{});
  bool isSigned = element.isInt();
  switch (element.bits()) {
  case 8: return isSigned ? make(IntElement<int8_t>{}) : make(IntElement<uint8_t>{});
  case 16: return isSigned ? make(IntElement<int16_t>{}) : make(IntElement<uint16_t>{});
  case 32: return isSigned ? make(IntElement<int32_t>{}) : make(IntElement<uint32_t>{});
  default: return isSigned ? make(IntElement<int64_t>{}) : make(IntElement<uint64_t>{});
  }
}
template <class Make> auto forFloatElement(ir::DataType element, Make &&make) {
  switch (element.bits()) {
  case 16: return make(HalfElement{});
  case 32: return make(FloatElement<float>{});
  default: return make(FloatElement<double>{});
  }
}

template <class Element> struct IntLoad final : IntExpr {
  BufferAccess access;
  int64_t eval(Frame &frame) const override {
    const uint8_t *p = access.address(frame);
    return p ? Element::load(p) : 0;
  }
};
template <class Element> struct FloatLoad final : FloatExpr {
  BufferAccess access;
  double eval(Frame &frame) const override {
    const uint8_t *p = access.address(frame);
    return p ? Element::load(p) : 0.0;
  }
};

template <class Element> struct IntStore final : StmtExec {
  BufferAccess access;
  IntPtr value;
  void exec(Frame &frame) const override {
    ++frame.statements;
    int64_t v = value->eval(frame);
    if (uint8_t *p = access.address(frame)) Element::store(p, v);
  }
};
template <class Element> struct FloatStore final : StmtExec {
  BufferAccess access;
  FloatPtr value;
  void exec(Frame &frame) const override {
    ++frame.statements;
    double v = value->eval(frame);
    if (uint8_t *p = access.address(frame)) Element::store(p, v);
  }
};

// buffer[i] = buffer[i] <op> value with the address computed once (reductions, accumulations).
template <class Element, class Op> struct IntAccumulate final : StmtExec {
  BufferAccess access;
  IntPtr value;
  void exec(Frame &frame) const override {
    ++frame.statements;
    uint8_t *p = access.address(frame);
    if (!p) return;
    int64_t old = Element::load(p);
    int64_t v = value->eval(frame);
    Element::store(p, Op::apply(old, v));  // storing truncates to the element: the int wrap
  }
};
template <class Element, class Op> struct FloatAccumulate final : StmtExec {
  BufferAccess access;
  FloatPtr value;
  void exec(Frame &frame) const override {
    ++frame.statements;
    uint8_t *p = access.address(frame);
    if (!p) return;
    double old = Element::load(p);
    double v = value->eval(frame);
    Element::store(p, Op::apply(old, v));  // storing rounds once to the element type
  }
};

// ---- handles --------------------------------------------------------------------------------

struct StorageHandle final : HandleExpr {  // a buffer's data variable
  int slot;
  explicit StorageHandle(int slot) : slot(slot) {}
  void *eval(Frame &frame) const override {
    auto *storage = static_cast<Storage *>(frame.slots[slot].p);
    return storage ? storage->externPointer() : nullptr;
  }
};
struct RawHandleSlot final : HandleExpr {
  int slot;
  explicit RawHandleSlot(int slot) : slot(slot) {}
  void *eval(Frame &frame) const override { return frame.slots[slot].p; }
};
struct HandleConst final : HandleExpr {
  void *value;
  explicit HandleConst(void *value) : value(value) {}
  void *eval(Frame &) const override { return value; }
};

// `T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask)`: the CPU address of
// element `offset` of the allocation `data`, after checking that the `extent` elements from there
// lie inside it (TVM's C ABI hands such pointers to extern functions).
struct AccessPtr final : HandleExpr {
  int dataSlot = 0;
  int elementBytes = 1;
  IntPtr offset, extent;
  std::string bufferName;
  ir::SourceLoc loc;
  void *eval(Frame &frame) const override;
};
// `T.address_of(B[i, j])`: the CPU address of one element, bounds-checked as a load would be.
struct ElementAddress final : HandleExpr {
  BufferAccess access;
  void *eval(Frame &frame) const override { return access.address(frame); }
};

// ---- extern calls ---------------------------------------------------------------------------

struct ArgumentExpr {
  IntPtr intValue;
  FloatPtr floatValue;
  HandlePtr handleValue;
  std::string stringValue;
  bool isString = false;
  Value eval(Frame &frame) const {
    if (intValue) return Value::fromInt(intValue->eval(frame));
    if (floatValue) return Value::fromFloat(floatValue->eval(frame));
    if (handleValue) return Value::fromHandle(handleValue->eval(frame));
    return Value::fromString(stringValue);
  }
};

// Calls a registered function; the result is converted to the call's dtype.
struct ExternCall {
  const ExternEntry *entry = nullptr;
  std::string name;
  ir::DataType returnType;
  ir::SourceLoc loc;
  std::vector<ArgumentExpr> arguments;
  mutable std::vector<Value> scratch;  // argument values; a call never re-enters itself

  Value call(Frame &frame) const;
};

struct IntCall final : IntExpr {
  ExternCall call;
  IntType type;
  int64_t eval(Frame &frame) const override;
};
struct FloatCall final : FloatExpr {
  ExternCall call;
  FloatWidth width;
  double eval(Frame &frame) const override;
};
struct HandleCall final : HandleExpr {
  ExternCall call;
  void *eval(Frame &frame) const override;
};

// ---- statements -----------------------------------------------------------------------------

struct SeqExec final : StmtExec {
  std::vector<StmtPtr> stmts;
  void exec(Frame &frame) const override {
    for (const StmtPtr &stmt : stmts) {
      stmt->exec(frame);
      if (frame.trapped) return;
    }
  }
};

// A loop runs `extent` iterations (none when a signed extent is not positive), its variable
// taking min, min + 1, ... wrapped to its type, as every integer result is: the rule of the
// JIT and of the constant folder too (docs/design.md, IR). `min + extent` may overflow.
struct ForExec final : StmtExec {
  int slot;
  IntType type;  // the loop variable's
  IntPtr min, extent;
  StmtPtr body;
  ir::SourceLoc loc;
  uint64_t stepChunk = 1;  // iterations counted at once: more for a leaf loop (ir/LoopSteps.h)
  void exec(Frame &frame) const override {
    int64_t begin = min->eval(frame), iterations = extent->eval(frame);
    uint64_t count = type.isSigned ? uint64_t(std::max<int64_t>(iterations, 0)) : uint64_t(iterations);
    for (uint64_t done = 0; done < count;) {
      uint64_t chunkEnd = done + std::min(count - done, stepChunk);
      frame.steps += chunkEnd - done;
      if (frame.steps >= frame.nextLimitCheck && !frame.withinLimits(loc)) return;
      for (; done < chunkEnd; ++done) {
        frame.slots[slot].i = type.wrap(int64_t(uint64_t(begin) + done));
        body->exec(frame);
        if (frame.trapped) return;
      }
    }
  }
};

struct WhileExec final : StmtExec {
  IntPtr condition;
  StmtPtr body;
  ir::SourceLoc loc;
  void exec(Frame &frame) const override {
    while (condition->eval(frame) && !frame.trapped) {
      if (++frame.steps >= frame.nextLimitCheck && !frame.withinLimits(loc)) return;
      body->exec(frame);
      if (frame.trapped) return;
    }
  }
};

struct IfExec final : StmtExec {
  IntPtr condition;
  StmtPtr thenCase, elseCase;  // elseCase may be null
  void exec(Frame &frame) const override {
    int64_t c = condition->eval(frame);
    if (frame.trapped) return;
    if (c) thenCase->exec(frame);
    else if (elseCase) elseCase->exec(frame);
  }
};

struct LetExec final : StmtExec {
  SlotAssign binding;
  StmtPtr body;
  void exec(Frame &frame) const override {
    ++frame.statements;
    binding.run(frame);
    if (!frame.trapped) body->exec(frame);
  }
};

// The common let: an integer value (index arithmetic, CSE variables).
struct IntLetExec final : StmtExec {
  int slot;
  IntPtr value;
  StmtPtr body;
  void exec(Frame &frame) const override {
    ++frame.statements;
    frame.slots[slot].i = value->eval(frame);
    if (!frame.trapped) body->exec(frame);
  }
};

struct EvaluateExec final : StmtExec {
  SlotAssign value;  // evaluated into a scratch slot
  void exec(Frame &frame) const override {
    ++frame.statements;
    value.run(frame);
  }
};

struct AssertExec final : StmtExec {
  IntPtr condition;
  std::string message;
  ir::SourceLoc loc;
  StmtPtr body;
  void exec(Frame &frame) const override;
};

// Storage for a T.allocate or a block's alloc_buffer, live while body runs.
struct Allocation {
  int slot;
  std::string name;
  int elementBytes;
  std::vector<IntPtr> extents;
  ir::SourceLoc loc;
  // Allocates into the slot; nullptr (and a trap) on failure.
  std::unique_ptr<Storage> allocate(Frame &frame) const;
};

struct AllocateExec final : StmtExec {
  Allocation allocation;
  ir::ConstantDataRef constantData;  // T.allocate_const: copied in before the body runs
  StmtPtr body;
  void exec(Frame &frame) const override;
};

// One execution of a block: bind its iteration variables, test the predicate, allocate its
// buffers, run init on the first step of every reduction axis, then the body.
struct BlockExec final : StmtExec {
  std::vector<SlotAssign> bindings;
  IntPtr predicate;      // null: always
  IntPtr initCondition;  // null with init: always
  std::vector<Allocation> allocations;
  StmtPtr init;  // may be null
  StmtPtr body;
  void exec(Frame &frame) const override;
};

// `with T.attr(..., "coproc_uop_scope", "VTAPushGEMMOp")`: the body becomes a micro-kernel
// closure handed to the named runtime function together with a per-node kernel-cache slot
// and the packed values of the body's free variables (its signature), as TVM's code
// generator does for VTA.
struct UopScopeExec final : StmtExec, KernelClosure {
  struct Captured {
    int slot;
    int bytes;     // packed width in the signature
    bool isFloat;
    IntType type;  // of integer values (to sign- or zero-extend them when unpacking)
  };
  const ExternEntry *pushFunction = nullptr;
  std::string pushName;
  ir::SourceLoc loc;
  std::vector<Captured> captured;
  StmtPtr body;
  void **uopHandle = newKernelCacheSlot();  // the runtime's kernel cache for this scope
  mutable Frame *activeFrame = nullptr;

  void exec(Frame &frame) const override;
  int run(const void *signature) const override;
};

}  // namespace vtac::backend::interp
