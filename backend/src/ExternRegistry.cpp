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

llvm::Expected<int64_t> intArgument(llvm::StringRef function, llvm::ArrayRef<Value> args,
                                    size_t index) {
  if (index >= args.size())
    return diagnosticError("'" + function + "' needs at least " + llvm::Twine(index + 1) +
                           " arguments, got " + llvm::Twine(args.size()));
  if (args[index].kind != Value::Kind::Int)
    return diagnosticError("argument " + llvm::Twine(index + 1) + " of '" + function +
                           "' must be an integer");
  return args[index].i;
}

llvm::Expected<void *> handleArgument(llvm::StringRef function, llvm::ArrayRef<Value> args,
                                      size_t index) {
  if (index >= args.size())
    return diagnosticError("'" + function + "' needs at least " + llvm::Twine(index + 1) +
                           " arguments, got " + llvm::Twine(args.size()));
  if (args[index].kind != Value::Kind::Handle)
    return diagnosticError("argument " + llvm::Twine(index + 1) + " of '" + function +
                           "' must be a handle");
  return args[index].p;
}

}  // namespace vtac::backend
