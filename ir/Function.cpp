// PrimFunc buffer lookup and IRModule bookkeeping.
#include "vtac/ir/Function.h"

namespace vtac::ir {

BufferRef PrimFunc::bufferOf(const VarRef &param) const {
  for (const auto &[var, buffer] : bufferMap)
    if (var == param) return buffer;
  return nullptr;
}

GlobalVarRef IRModule::add(llvm::StringRef name, FunctionRef function) {
  auto [it, inserted] = index_.try_emplace(name, entries_.size());
  if (inserted) {
    entries_.push_back({make<GlobalVar>(name.str(), function->loc()), std::move(function)});
  } else {
    entries_[it->second].function = std::move(function);
  }
  return entries_[it->second].name;
}

FunctionRef IRModule::lookup(llvm::StringRef name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : entries_[it->second].function;
}

GlobalVarRef IRModule::globalVar(llvm::StringRef name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : entries_[it->second].name;
}

}  // namespace vtac::ir
