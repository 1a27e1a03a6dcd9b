// AttrMap: a small map kept sorted by key.
#include "vtac/ir/AttrValue.h"

#include <algorithm>

namespace vtac::ir {

static auto lowerBound(const std::vector<AttrMap::Entry> &entries, llvm::StringRef key) {
  return std::lower_bound(entries.begin(), entries.end(), key,
                          [](const AttrMap::Entry &e, llvm::StringRef k) { return llvm::StringRef(e.first) < k; });
}

void AttrMap::set(std::string key, AttrValue value) {
  auto it = lowerBound(entries_, key);
  if (it != entries_.end() && it->first == key) {
    entries_[it - entries_.begin()].second = std::move(value);
    return;
  }
  entries_.insert(it, Entry(std::move(key), std::move(value)));
}

const AttrValue *AttrMap::find(llvm::StringRef key) const {
  auto it = lowerBound(entries_, key);
  return it != entries_.end() && it->first == key ? &it->second : nullptr;
}

bool AttrMap::erase(llvm::StringRef key) {
  auto it = lowerBound(entries_, key);
  if (it == entries_.end() || it->first != key) return false;
  entries_.erase(it);
  return true;
}

}  // namespace vtac::ir
