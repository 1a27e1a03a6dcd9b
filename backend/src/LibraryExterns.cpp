#include "vtac/backend/LibraryExterns.h"

#include <ffi.h>

#include <map>
#include <memory>

#include "vtac/backend/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::backend {

namespace {

// A C signature as the calls spell it, and where it was first seen.
struct CallSignature {
  ir::DataType result;
  std::vector<ir::DataType> params;
  ir::SourceLoc loc;

  std::string str() const {
    std::string text = "(";
    for (size_t i = 0; i < params.size(); ++i) text += (i ? ", " : "") + params[i].str();
    return text + ") -> " + (result.isVoid() ? "void" : result.str());
  }
  bool operator==(const CallSignature &other) const { return result == other.result && params == other.params; }
};

// The libffi type of a C value of `dtype`; null when C cannot take it by value.
ffi_type *ffiType(ir::DataType dtype) {
  if (dtype.isVoid()) return &ffi_type_void;
  if (dtype.lanes() != 1) return nullptr;
  if (dtype.isHandle()) return &ffi_type_pointer;
  if (dtype.isBool()) return &ffi_type_uint8;
  if (dtype.isFloat()) return dtype.bits() == 32 ? &ffi_type_float : dtype.bits() == 64 ? &ffi_type_double : nullptr;
  bool isSigned = dtype.isInt();
  switch (dtype.bits()) {
  case 8: return isSigned ? &ffi_type_sint8 : &ffi_type_uint8;
  case 16: return isSigned ? &ffi_type_sint16 : &ffi_type_uint16;
  case 32: return isSigned ? &ffi_type_sint32 : &ffi_type_uint32;
  case 64: return isSigned ? &ffi_type_sint64 : &ffi_type_uint64;
  default: return nullptr;
  }
}

// One C argument or result, at the width of its type.
union CValue {
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  const void *pointer;
  ffi_arg widened;  // small integer results come back widened to a register
};

CValue toC(const Value &value, ir::DataType dtype) {
  CValue c{};
  if (dtype.isFloat()) {
    if (dtype.bits() == 32) c.f32 = float(value.f);
    else c.f64 = value.f;
  } else if (dtype.isHandle()) {
    c.pointer = value.kind == Value::Kind::String ? value.s.data() : value.p;
  } else {
    switch (dtype.isBool() ? 8 : dtype.bits()) {
    case 8: c.i8 = int8_t(value.i); break;
    case 16: c.i16 = int16_t(value.i); break;
    case 32: c.i32 = int32_t(value.i); break;
    default: c.i64 = value.i; break;
    }
  }
  return c;
}

Value fromC(const CValue &c, ir::DataType dtype) {
  if (dtype.isVoid()) return Value::none();
  if (dtype.isFloat()) return Value::fromFloat(dtype.bits() == 32 ? double(c.f32) : c.f64);
  if (dtype.isHandle()) return Value::fromHandle(const_cast<void *>(c.pointer));
  if (dtype.bits() == 64) return Value::fromInt(c.i64);
  // libffi widens integer results narrower than a register to ffi_arg.
  int64_t widened = int64_t(c.widened);
  if (dtype.isBool()) return Value::fromInt(uint8_t(widened) != 0);
  int bits = dtype.bits();
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t low = uint64_t(widened) & mask;
  if (dtype.isInt() && (low >> (bits - 1))) low |= ~mask;
  return Value::fromInt(int64_t(low));
}

// A prepared libffi call of one C function.
struct ForeignFunction {
  void (*address)() = nullptr;
  CallSignature signature;
  std::vector<ffi_type *> paramTypes;
  ffi_cif cif{};

  Value call(llvm::ArrayRef<Value> args) const {
    std::vector<CValue> values(args.size());
    std::vector<void *> pointers(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      values[i] = toC(args[i], signature.params[i]);
      pointers[i] = &values[i];
    }
    CValue result{};
    ffi_call(const_cast<ffi_cif *>(&cif), address, &result, pointers.data());
    return fromC(result, signature.result);
  }
};

// The signatures of the module's call_extern calls of unregistered callees, by callee.
llvm::Expected<std::map<std::string, CallSignature>> collectCalls(const ir::IRModule &module,
                                                                  const ExternRegistry &registry) {
  std::map<std::string, CallSignature> calls;
  llvm::Error error = llvm::Error::success();
  auto visit = [&](const ir::Node &node) {
    const auto *call = node.as<ir::Call>();
    if (error || !call || (call->op != "tir.call_extern" && call->op != "tir.call_pure_extern")) return;
    const auto *callee = call->args.empty() ? nullptr : call->args[0].as<ir::StringImm>();
    if (!callee || registry.find(callee->value)) return;
    CallSignature signature{call->dtype, {}, call->loc()};
    for (size_t i = 1; i < call->args.size(); ++i) signature.params.push_back(call->args[i]->dtype);
    for (ir::DataType dtype : signature.params)
      if (!ffiType(dtype) || dtype.isVoid()) {
        error = diagnosticError(call->loc(), "'" + callee->value + "' cannot take an argument of type " +
                                                 dtype.str() + " from C");
        return;
      }
    if (!ffiType(call->dtype)) {
      error = diagnosticError(call->loc(), "'" + callee->value + "' cannot return " + call->dtype.str() + " to C");
      return;
    }
    auto [it, inserted] = calls.emplace(callee->value, signature);
    if (!inserted && !(it->second == signature))
      error = diagnosticError(call->loc(), "this call of '" + callee->value + "' has the C signature " +
                                               signature.str() + ", an earlier one " + it->second.str() +
                                               " (at line " + std::to_string(it->second.loc.line) +
                                               "); a C function has one signature");
  };
  for (const ir::IRModule::Entry &entry : module.functions())
    if (const auto *func = entry.function->as<ir::PrimFunc>()) ir::preOrderVisit(func->body, visit);
  if (error) return error;
  return calls;
}

std::string libraryList(llvm::ArrayRef<SharedLibrary> libraries) {
  std::string list;
  for (const SharedLibrary &library : libraries) list += (list.empty() ? "" : ", ") + library.path();
  return list;
}

}  // namespace

llvm::Error registerLibraryExterns(const ir::IRModule &module, llvm::ArrayRef<SharedLibrary> libraries,
                                   ExternRegistry &registry) {
  if (libraries.empty()) return llvm::Error::success();
  llvm::Expected<std::map<std::string, CallSignature>> calls = collectCalls(module, registry);
  if (!calls) return calls.takeError();
  for (const auto &[name, signature] : *calls) {
    void *address = nullptr;
    for (const SharedLibrary &library : libraries)
      if ((address = library.symbol(name))) break;
    if (!address)
      return diagnosticError(signature.loc, "'" + name + "' is not exported by the libraries loaded with --load-library (" +
                                                libraryList(libraries) + ")");
    auto function = std::make_shared<ForeignFunction>();
    function->address = reinterpret_cast<void (*)()>(address);
    function->signature = signature;
    for (ir::DataType dtype : signature.params) function->paramTypes.push_back(ffiType(dtype));
    if (ffi_prep_cif(&function->cif, FFI_DEFAULT_ABI, unsigned(signature.params.size()), ffiType(signature.result),
                     function->paramTypes.data()) != FFI_OK)
      return diagnosticError(signature.loc, "cannot prepare a C call of '" + name + "' " + signature.str());
    ExternEntry entry;
    entry.arity = int(signature.params.size());
    entry.function = [function](llvm::ArrayRef<Value> args, ir::DataType) -> llvm::Expected<Value> {
      return function->call(args);
    };
    registry.add(name, std::move(entry));
  }
  return llvm::Error::success();
}

}  // namespace vtac::backend
