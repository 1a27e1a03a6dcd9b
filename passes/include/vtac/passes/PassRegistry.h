// The registry of passes by name: every pass and named pipeline vtac knows, registered once at
// start-up by the folders that define them (tir/, vta/, ...). --passes and --list-passes read it.
#pragma once

#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>

#include "vtac/passes/Pass.h"

namespace vtac::passes {

class PassRegistry {
public:
  // The registry with every built-in pass and pipeline registered.
  static const PassRegistry &builtin();

  void add(PassInfo info);
  // null when no pass has this name.
  const PassInfo *lookup(llvm::StringRef name) const;
  // Every registered pass, sorted by name.
  std::vector<const PassInfo *> all() const;
  // Up to `limit` registered names closest to `name` (edit distance), best first, for
  // "did you mean" in usage errors.
  std::vector<std::string> closestNames(llvm::StringRef name, size_t limit = 3) const;
  // Every pass option some registered pass reads, sorted.
  std::vector<std::string> optionNames() const;

private:
  llvm::StringMap<PassInfo> passes_;
};

// Registration functions, one per folder of passes (each defined in that folder's Passes.cpp).
void registerTirPasses(PassRegistry &registry);
void registerVtaPasses(PassRegistry &registry);
void registerHostPasses(PassRegistry &registry);
void registerRelaxPasses(PassRegistry &registry);

}  // namespace vtac::passes
