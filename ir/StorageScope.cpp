#include "vtac/ir/StorageScope.h"

#include <utility>

#include <llvm/ADT/StringRef.h>

namespace vtac::ir {

StorageScope StorageScope::parse(const std::string &name) {
  StorageScope s;
  s.name = name;
  for (auto [prefix, rank] : {std::pair<const char *, Rank>{"global", Global}, {"shared", Shared},
                              {"warp", Warp}, {"local", Local}}) {
    llvm::StringRef ref(name);
    if (ref.consume_front(prefix) && (ref.empty() || ref.front() == '.')) {
      s.rank = rank;
      s.tag = ref.str();
      return s;
    }
  }
  s.rank = Other;
  return s;
}

int storageRank(const std::string &scope) {
  StorageScope::Rank rank = StorageScope::parse(scope).rank;
  return rank == StorageScope::Other ? 0 : int(rank);
}

int threadRank(const std::string &tag) {
  llvm::StringRef ref(tag);
  if (ref.starts_with("blockIdx.")) return 0;
  if (ref.starts_with("threadIdx.") || ref.starts_with("vthread") || ref == "cthread") return 1;
  return -1;
}

bool isStorageScope(const std::string &scope) {
  llvm::StringRef known(kStorageScopes);
  while (!known.empty()) {
    auto [prefix, rest] = known.split(", ");
    if (llvm::StringRef(scope).starts_with(prefix)) return true;
    known = rest;
  }
  return false;
}

}  // namespace vtac::ir
