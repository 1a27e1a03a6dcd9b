#include <cstring>

#include "Nodes.h"

#include <limits>

#include <llvm/ADT/SmallVector.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/RunErrors.h"
#include "vtac/backend/Tensor.h"
#include "vtac/backend/Float16.h"

namespace vtac::backend::interp {

double roundToWidth(double value, FloatWidth width) {
  switch (width) {
  case FloatWidth::F16: return halfToFloat(doubleToHalf(value));
  case FloatWidth::F32: return double(float(value));
  case FloatWidth::F64: return value;
  }
  return value;
}

double HalfElement::load(const uint8_t *p) {
  uint16_t bits;
  std::memcpy(&bits, p, sizeof bits);
  return halfToFloat(bits);
}

void HalfElement::store(uint8_t *p, double value) {
  uint16_t bits = doubleToHalf(value);
  std::memcpy(p, &bits, sizeof bits);
}

namespace {

std::string typeName(const IntType &type) {
  if (type.isBool) return "bool";
  return (type.isSigned ? "int" : "uint") + std::to_string(type.bits);
}

}  // namespace

int64_t IntDivide::eval(Frame &frame) const {
  int64_t x = a->eval(frame);
  int64_t y = b->eval(frame);
  if (y == 0) {
    frame.trap(loc, divisionByZeroMessage(op == Kind::TruncMod || op == Kind::FloorMod, x));
    return 0;
  }
  if (type.isUInt64()) {  // floor and truncation agree on unsigned values
    uint64_t ux = uint64_t(x), uy = uint64_t(y);
    return int64_t(op == Kind::TruncDiv || op == Kind::FloorDiv ? ux / uy : ux % uy);
  }
  if (y == -1)  // avoids the INT64_MIN / -1 trap; the quotient wraps like every int op
    return op == Kind::TruncMod || op == Kind::FloorMod ? 0 : type.wrap(int64_t(0 - uint64_t(x)));
  int64_t quotient = x / y, remainder = x % y;
  switch (op) {
  case Kind::TruncDiv: return type.wrap(quotient);
  case Kind::TruncMod: return remainder;
  case Kind::FloorDiv:
    return type.wrap(remainder != 0 && ((remainder < 0) != (y < 0)) ? quotient - 1 : quotient);
  case Kind::FloorMod:
    return remainder != 0 && ((remainder < 0) != (y < 0)) ? remainder + y : remainder;
  }
  return 0;
}

int64_t IntShift::eval(Frame &frame) const {
  int64_t x = a->eval(frame);
  int64_t amount = b->eval(frame);
  if (amount < 0 || amount >= type.bits) {
    frame.trap(loc, shiftOutOfRangeMessage(amount, typeName(type)));
    return 0;
  }
  if (left) return type.wrap(int64_t(uint64_t(x) << amount));
  // Normalised signed values are sign-extended, so >> is the arithmetic shift of the type.
  return type.isSigned ? x >> amount : int64_t(uint64_t(x) >> amount);
}

int64_t IntFromFloat::eval(Frame &frame) const {
  double value = a->eval(frame);
  if (type.isBool) return value != 0;
  double truncated = std::trunc(value);
  double low = type.isSigned ? -std::ldexp(1.0, type.bits - 1) : 0.0;
  double high = type.isSigned ? std::ldexp(1.0, type.bits - 1) : std::ldexp(1.0, type.bits);
  if (!(truncated >= low && truncated < high)) {  // also catches NaN
    frame.trap(loc, floatToIntMessage(value, typeName(type)));
    return 0;
  }
  if (type.isUInt64()) return int64_t(uint64_t(truncated));
  return type.wrap(int64_t(truncated));
}

uint8_t *BufferAccess::outOfBounds(Frame &frame, size_t dim, int64_t index, int64_t extent) const {
  frame.trap(loc, dimensionOutOfBoundsMessage(index, int64_t(dim), bufferName, extent));
  return nullptr;
}

uint8_t *BufferAccess::outsideStorage(Frame &frame, const Storage *storage, int64_t flat) const {
  if (!storage)
    frame.trap(loc, "buffer '" + bufferName + "' has no storage");
  else
    frame.trap(loc, outsideAllocationMessage(flat, bufferName, dims.size() == 1 && elemOffset.isConst() && elemOffset.value == 0,
                                             elementBytes, storage->byteSize));
  return nullptr;
}

Value ExternCall::call(Frame &frame) const {
  for (size_t i = 0; i < arguments.size(); ++i) scratch[i] = arguments[i].eval(frame);
  if (frame.trapped) return Value::none();
  llvm::Expected<Value> result = entry->function(scratch, returnType);
  if (!result) {
    frame.trap(loc, "call to '" + name + "' failed: " + errorMessage(result.takeError()));
    return Value::none();
  }
  return *result;
}

int64_t IntCall::eval(Frame &frame) const {
  Value result = call.call(frame);
  switch (result.kind) {
  case Value::Kind::Int: return type.wrap(result.i);
  case Value::Kind::None: return 0;
  case Value::Kind::Float: return type.wrap(int64_t(result.f));
  default:
    frame.trap(call.loc, "'" + call.name + "' returned a non-integer value");
    return 0;
  }
}

double FloatCall::eval(Frame &frame) const {
  Value result = call.call(frame);
  switch (result.kind) {
  case Value::Kind::Float: return roundToWidth(result.f, width);
  case Value::Kind::Int: return roundToWidth(double(result.i), width);
  case Value::Kind::None: return 0;
  default:
    frame.trap(call.loc, "'" + call.name + "' returned a non-numeric value");
    return 0;
  }
}

void *HandleCall::eval(Frame &frame) const {
  Value result = call.call(frame);
  switch (result.kind) {
  case Value::Kind::Handle: return result.p;
  case Value::Kind::None: return nullptr;
  default:
    frame.trap(call.loc, "'" + call.name + "' returned a non-handle value");
    return nullptr;
  }
}

void *AccessPtr::eval(Frame &frame) const {
  auto *storage = static_cast<Storage *>(frame.slots[dataSlot].p);
  int64_t first = offset->eval(frame), count = extent->eval(frame);
  if (!storage) {
    frame.trap(loc, "buffer '" + bufferName + "' has no storage");
    return nullptr;
  }
  int64_t elements = storage->byteSize / elementBytes;
  if (first < 0 || count < 0 || first > elements || count > elements - first) {
    frame.trap(loc, accessPtrOutOfRangeMessage(first, count, bufferName, elements));
    return nullptr;
  }
  return storage->data + first * elementBytes;
}

void AssertExec::exec(Frame &frame) const {
  int64_t holds = condition->eval(frame);
  if (frame.trapped) return;
  if (!holds) {
    frame.trap(loc, "assertion failed: " + message);
    return;
  }
  body->exec(frame);
}

std::unique_ptr<Storage> Allocation::allocate(Frame &frame) const {
  llvm::SmallVector<int64_t, 4> shape;
  for (const IntPtr &extent : extents) {
    int64_t value = extent->eval(frame);
    if (value < 0) {
      frame.trap(loc, "allocation '" + name + "' has negative extent " + std::to_string(value));
      return nullptr;
    }
    shape.push_back(value);
  }
  if (frame.trapped) return nullptr;
  auto bytes = checkedByteSize(shape, elementBytes);
  if (!bytes) {
    frame.trap(loc, "cannot allocate '" + name + "': " + errorMessage(bytes.takeError()));
    return nullptr;
  }
  auto storage = allocateStorage(*bytes, frame.device);
  if (!storage) {
    frame.trap(loc, "cannot allocate '" + name + "': " + errorMessage(storage.takeError()));
    return nullptr;
  }
  frame.slots[slot].p = storage->get();
  return std::move(*storage);
}

void AllocateExec::exec(Frame &frame) const {
  std::unique_ptr<Storage> storage = allocation.allocate(frame);
  if (!storage) return;
  if (constantData) {
    const std::vector<uint8_t> &bytes = constantData->bytes();
    if (uint64_t(storage->byteSize) != bytes.size()) {
      frame.trap(allocation.loc, "constant allocation '" + allocation.name + "' holds " +
                                     std::to_string(bytes.size()) + " bytes of data for " +
                                     std::to_string(storage->byteSize) + " bytes of memory");
      return;
    }
    std::memcpy(storage->data, bytes.data(), bytes.size());
  }
  body->exec(frame);
}

void BlockExec::exec(Frame &frame) const {
  for (const SlotAssign &binding : bindings) binding.run(frame);
  if (frame.trapped) return;
  if (predicate && !predicate->eval(frame)) return;
  llvm::SmallVector<std::unique_ptr<Storage>, 2> storages;
  for (const Allocation &allocation : allocations) {
    storages.push_back(allocation.allocate(frame));
    if (frame.trapped) return;
  }
  if (init && (!initCondition || initCondition->eval(frame))) {
    if (frame.trapped) return;
    init->exec(frame);
    if (frame.trapped) return;
  }
  body->exec(frame);
}

void UopScopeExec::exec(Frame &frame) const {
  llvm::SmallVector<uint8_t, 32> signature;
  for (const Captured &value : captured) {
    size_t offset = signature.size();
    signature.resize(offset + value.bytes);
    const Slot &slot = frame.slots[value.slot];
    if (value.isFloat && value.bytes == 4) {
      float narrow = float(slot.f);
      std::memcpy(signature.data() + offset, &narrow, 4);
    } else {
      // Little-endian: the low bytes of the normalised value are the packed value.
      std::memcpy(signature.data() + offset, &slot, value.bytes);
    }
  }
  Value arguments[] = {Value::fromHandle(uopHandle), Value::fromClosure(this),
                       Value::fromHandle(signature.data()),
                       Value::fromInt(int64_t(signature.size()))};
  activeFrame = &frame;
  llvm::Expected<Value> result = pushFunction->function(arguments, ir::DataType::int32());
  activeFrame = nullptr;
  if (frame.trapped) {  // the kernel body failed; that error is the precise one
    llvm::consumeError(result.takeError());
    return;
  }
  if (!result)
    frame.trap(loc, "call to '" + pushName + "' failed: " + errorMessage(result.takeError()));
  else if (result->kind == Value::Kind::Int && result->i != 0)
    frame.trap(loc, "'" + pushName + "' returned error code " + std::to_string(result->i));
}

int UopScopeExec::run(const void *signature) const {
  Frame *frame = activeFrame;
  if (!frame) return -1;  // only valid while exec() is pushing this kernel
  size_t offset = 0;
  for (const Captured &value : captured) {
    Slot &slot = frame->slots[value.slot];
    const uint8_t *bytes = static_cast<const uint8_t *>(signature) + offset;
    if (value.isFloat && value.bytes == 4) {
      float narrow;
      std::memcpy(&narrow, bytes, 4);
      slot.f = narrow;
    } else if (value.isFloat) {
      std::memcpy(&slot.f, bytes, 8);
    } else {
      int64_t packed = 0;
      std::memcpy(&packed, bytes, value.bytes);
      slot.i = value.type.wrap(packed);
    }
    offset += value.bytes;
  }
  body->exec(*frame);
  return frame->trapped ? -1 : 0;
}

}  // namespace vtac::backend::interp
