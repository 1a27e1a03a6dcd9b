// TVM's thread and storage scopes (runtime/thread_storage_scope.h): the rank of a thread tag and
// of a storage scope, which the passes compare to decide which thread loops share a buffer, and
// the storage scopes TVM knows.
#pragma once

#include <cstdint>
#include <string>

namespace vtac::ir {

// TVM's StorageScope for the memories whose rank the passes compare: the rank from the name's
// first component, the rest is the tag ("local.acc_buffer" -> Local, ".acc_buffer"). Any other
// memory (wmma.*, texture, an empty name, ...) is Other.
struct StorageScope {
  enum Rank : uint8_t { Global, Shared, Warp, Local, Other };
  Rank rank = Global;
  std::string tag;
  std::string name;

  static StorageScope parse(const std::string &name);
  bool operator==(const StorageScope &o) const { return rank == o.rank && tag == o.tag && (rank != Other || name == o.name); }
  bool operator!=(const StorageScope &o) const { return !(*this == o); }
};

// The rank compared with threadRank: global 0, shared 1, warp 2, local 3 (so VTA's
// local.inp_buffer / local.acc_buffer are local); other memories 0, relaxed as global is.
int storageRank(const std::string &scope);

// TVM's thread ranks: blockIdx.* 0; threadIdx.*, vthread* and cthread 1. -1 for any other tag:
// TVM refuses such a tag (ThreadScope::Create) and so does `bind`, so only a parsed program
// carries one; -1 is the rank TVM gives a loop bound to no thread, which relaxes no storage.
int threadRank(const std::string &tag);

// Whether TVM's StorageScope::Create accepts `scope`: one of kStorageScopes, possibly followed by
// a tag (`local.acc_buffer`).
bool isStorageScope(const std::string &scope);
inline constexpr const char *kStorageScopes =
    "global, shared, warp, local, wmma.matrix_a, wmma.matrix_b, wmma.accumulator, texture, amx.tmm, "
    "m16n8k8.matrixA, m16n8k8.matrixB, m16n8k8.matrixC, metal.simdgroup, metal.cooperative_tensor, "
    "trn.sbuf, trn.psum";

}  // namespace vtac::ir
