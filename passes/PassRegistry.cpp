#include "vtac/passes/PassRegistry.h"

#include <algorithm>

namespace vtac::passes {

const PassRegistry &PassRegistry::builtin() {
  static const PassRegistry registry = [] {
    PassRegistry r;
    registerTirPasses(r);
    registerVtaPasses(r);
    registerHostPasses(r);
    registerRelaxPasses(r);
    return r;
  }();
  return registry;
}

void PassRegistry::add(PassInfo info) {
  std::string name = info.name;
  passes_.insert_or_assign(name, std::move(info));
}

const PassInfo *PassRegistry::lookup(llvm::StringRef name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo *> PassRegistry::all() const {
  std::vector<const PassInfo *> result;
  for (const auto &entry : passes_) result.push_back(&entry.second);
  std::sort(result.begin(), result.end(),
            [](const PassInfo *a, const PassInfo *b) { return a->name < b->name; });
  return result;
}

std::vector<std::string> PassRegistry::optionNames() const {
  std::vector<std::string> names;
  for (const PassInfo *pass : all()) names.insert(names.end(), pass->options.begin(), pass->options.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> PassRegistry::closestNames(llvm::StringRef name, size_t limit) const {
  std::vector<std::pair<unsigned, std::string>> scored;
  for (const PassInfo *pass : all()) {
    llvm::StringRef candidate = pass->name;
    unsigned distance = name.edit_distance(candidate, /*AllowReplacements=*/true);
    // A name that contains what was typed (`dma` -> `inject-dma-copies`) is a good guess too.
    if (!name.empty() && candidate.contains(name)) distance = std::min<unsigned>(distance, 1);
    if (distance <= std::max<size_t>(3, name.size() / 2)) scored.emplace_back(distance, pass->name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> result;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) result.push_back(scored[i].second);
  return result;
}

}  // namespace vtac::passes
