// The base of every IR node and the reference-counted handle `Ref<T>` that holds nodes.
//
// Nodes are immutable once built and shared freely between trees (and threads): a handle is one
// pointer with an intrusive atomic count, so copying a handle is an increment and building a
// node is one allocation. Every node has a `NodeKind` for switch-based dispatch (see Functor.h)
// and a `SourceLoc`. Downcasts are checked by kind: `node->as<For>()` returns nullptr when the
// node is not a `For`, `node->isa<For>()` tests, `ref.as<For>()` does the same on a handle and
// `cast<For>(ref)` returns a `Ref<For>` (asserting the kind).
//
// To change a node, copy it (`copyNode(*old)` gives a mutable fresh copy), edit the copy's
// fields, then wrap it (`Ref<For>(copy)`); that is what the mutators do (copy-on-write).
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "vtac/ir/SourceLoc.h"

namespace vtac::ir {

// One enumerator per concrete node class (binary operators share the class BinaryExpr).
// The order matters: each family is a contiguous range so `classof` is two comparisons.
enum class NodeKind : uint8_t {
  // expressions
  IntImm, FloatImm, StringImm, Var, Cast,
  Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max,  // arithmetic BinaryExpr
  EQ, NE, LT, LE, GT, GE,                                 // comparison BinaryExpr
  And, Or,                                                // logical BinaryExpr
  Not, Select, BufferLoad, Call, Let, Ramp, Broadcast,
  // statements
  BufferStore, LetStmt, AttrStmt, AssertStmt, For, While, IfThenElse, SeqStmt, Evaluate,
  Allocate, DeclBuffer, Block, BlockRealize,
  // neither expression nor statement
  IterVar, Buffer, GlobalVar, CommReducer,
  // functions
  PrimFunc,
  RelaxFunction,  // Relax.h
};

constexpr NodeKind kFirstExprKind = NodeKind::IntImm;
constexpr NodeKind kLastExprKind = NodeKind::Broadcast;
constexpr NodeKind kFirstBinaryKind = NodeKind::Add;
constexpr NodeKind kLastBinaryKind = NodeKind::Or;
constexpr NodeKind kFirstStmtKind = NodeKind::BufferStore;
constexpr NodeKind kLastStmtKind = NodeKind::BlockRealize;
constexpr NodeKind kFirstFunctionKind = NodeKind::PrimFunc;
constexpr NodeKind kLastFunctionKind = NodeKind::RelaxFunction;
constexpr size_t kNumNodeKinds = size_t(NodeKind::RelaxFunction) + 1;

inline bool kindInRange(NodeKind k, NodeKind first, NodeKind last) {
  return uint8_t(k) >= uint8_t(first) && uint8_t(k) <= uint8_t(last);
}

// "Add", "For", ... (the enumerator's name).
const char *nodeKindName(NodeKind kind);

class Node {
public:
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }
  const SourceLoc &loc() const { return loc_; }
  // Locations are not part of a node's value (structural equality ignores them), so the
  // frontend may attach one to a node it just built, before sharing it.
  void setLoc(const SourceLoc &loc) { loc_ = loc; }

  template <class T> bool isa() const { return T::classof(kind_); }
  template <class T> const T *as() const {
    return T::classof(kind_) ? static_cast<const T *>(this) : nullptr;
  }

  static bool classof(NodeKind) { return true; }

  void retain() const { refCount_.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refCount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  uint32_t useCount() const { return refCount_.load(std::memory_order_relaxed); }

protected:
  Node(NodeKind kind, SourceLoc loc) : kind_(kind), loc_(loc) {}
  // A copy is a new object: it starts unreferenced.
  Node(const Node &other) : refCount_(0), kind_(other.kind_), loc_(other.loc_) {}
  Node &operator=(const Node &) = delete;

private:
  mutable std::atomic<uint32_t> refCount_{0};
  NodeKind kind_;
  SourceLoc loc_;
};

// Shared handle to an immutable node of class T (T derives from Node). Null is allowed and
// means "absent" (an optional field, e.g. a Block without init).
template <class T> class Ref {
public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(const T *node) : ptr_(node) {
    if (ptr_) ptr_->retain();
  }
  Ref(const Ref &other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->retain();
  }
  Ref(Ref &&other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <class U, class = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(const Ref<U> &other) : Ref(static_cast<const T *>(other.get())) {}
  template <class U, class = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(Ref<U> &&other) noexcept : ptr_(other.release()) {}
  ~Ref() {
    if (ptr_) ptr_->release();
  }
  Ref &operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  const T *get() const { return ptr_; }
  const T *operator->() const {
    assert(ptr_ && "dereferencing a null IR handle");
    return ptr_;
  }
  const T &operator*() const { return *operator->(); }
  explicit operator bool() const { return ptr_ != nullptr; }

  template <class U> bool isa() const { return ptr_ && ptr_->template isa<U>(); }
  template <class U> const U *as() const { return ptr_ ? ptr_->template as<U>() : nullptr; }

  // Gives up ownership without releasing (for converting moves).
  const T *release() {
    const T *p = ptr_;
    ptr_ = nullptr;
    return p;
  }

  // Identity comparison (same object). Use structuralEqual() for value comparison.
  template <class U> bool operator==(const Ref<U> &o) const { return (const Node *)ptr_ == (const Node *)o.get(); }
  template <class U> bool operator!=(const Ref<U> &o) const { return !(*this == o); }
  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return ptr_ != nullptr; }

private:
  const T *ptr_ = nullptr;
};

// Builds a node: `make<For>(args...)` forwards to For's constructor.
template <class T, class... Args> Ref<T> make(Args &&...args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

// A mutable, unshared copy of `node` to edit before wrapping it in a Ref.
template <class T> T *copyNode(const T &node) { return new T(node); }

// Checked downcast of a handle; asserts when the kind does not match.
template <class T, class U> Ref<T> cast(const Ref<U> &ref) {
  assert((!ref || ref->template isa<T>()) && "IR cast to the wrong node kind");
  return Ref<T>(static_cast<const T *>(ref.get()));
}
// Downcast of a handle; null when the kind does not match.
template <class T, class U> Ref<T> dynCast(const Ref<U> &ref) {
  return ref.template isa<T>() ? Ref<T>(static_cast<const T *>(ref.get())) : Ref<T>();
}

using NodeRef = Ref<Node>;

}  // namespace vtac::ir

// Hash by identity, so Var/Buffer handles key unordered maps directly.
namespace std {
template <class T> struct hash<vtac::ir::Ref<T>> {
  size_t operator()(const vtac::ir::Ref<T> &r) const { return hash<const void *>()(r.get()); }
};
}  // namespace std
