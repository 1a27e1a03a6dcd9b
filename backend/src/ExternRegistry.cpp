#include "vtac/backend/ExternRegistry.h"

#include "vtac/backend/Diagnostic.h"

namespace vtac::backend {

void ExternRegistry::add(llvm::StringRef name, ExternEntry entry) {
  entries_[name] = std::move(entry);
}

const ExternEntry *ExternRegistry::find(llvm::StringRef name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

namespace {

// args[index] when it exists and has `kind`, else an error naming the function and position.
llvm::Expected<const Value *> argument(llvm::StringRef function, llvm::ArrayRef<Value> args, size_t index,
                                       Value::Kind kind, llvm::StringRef kindName) {
  if (index >= args.size())
    return diagnosticError("'" + function + "' needs at least " + llvm::Twine(index + 1) +
                           " arguments, got " + llvm::Twine(args.size()));
  if (args[index].kind != kind)
    return diagnosticError("argument " + llvm::Twine(index + 1) + " of '" + function + "' must be " + kindName);
  return &args[index];
}

}  // namespace

llvm::Expected<int64_t> intArgument(llvm::StringRef function, llvm::ArrayRef<Value> args, size_t index) {
  auto value = argument(function, args, index, Value::Kind::Int, "an integer");
  if (!value) return value.takeError();
  return (*value)->i;
}

llvm::Expected<void *> handleArgument(llvm::StringRef function, llvm::ArrayRef<Value> args, size_t index) {
  auto value = argument(function, args, index, Value::Kind::Handle, "a handle");
  if (!value) return value.takeError();
  return (*value)->p;
}

}  // namespace vtac::backend
