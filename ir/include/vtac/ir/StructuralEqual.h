// Structural equality and hashing (TVM's StructuralEqual / StructuralHash).
//
// Two trees are equal when they have the same shape and values, with variables and buffers
// matched by where they are bound rather than by identity: the loop variable of one For maps to
// the loop variable of the other, block iteration variables, let variables, allocations,
// declared/allocated/matched buffers and function parameters likewise (alpha-equivalence).
// Free variables (used but bound nowhere in the compared trees) must be the same object unless
// `mapFreeVars` is set, in which case they are mapped on first occurrence. Source locations,
// name hints and block names are ignored (TVM's BlockNode equality skips name_hint too). The hash agrees with equality (equal trees hash equal).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "vtac/ir/Function.h"

namespace vtac::ir {

bool structuralEqual(const Expr &a, const Expr &b, bool mapFreeVars = false);
bool structuralEqual(const Stmt &a, const Stmt &b, bool mapFreeVars = false);
// Parameters are bound by position, so functions parsed twice compare equal.
bool structuralEqual(const PrimFunc &a, const PrimFunc &b);
// The same function names (in any order), each pair structurally equal.
bool structuralEqual(const IRModule &a, const IRModule &b);

size_t structuralHash(const Expr &expr);
size_t structuralHash(const Stmt &stmt);
size_t structuralHash(const PrimFunc &func);

// When two trees differ: a short description of the first difference found (the node kinds or
// values, and the source location of the left-hand node), for test failure messages; "" when
// they are equal.
std::string firstStructuralDifference(const PrimFunc &a, const PrimFunc &b);

// The first difference of two functions, for showing it in both sources (`vtac diff`).
struct StructuralDifference {
  struct Side {
    // Whether the differing part is on this side; for a statement missing on this side, where
    // it would be: before or after the statement that ends `path`.
    enum class Presence { Present, MissingBefore, MissingAfter };
    // The node where the difference was found: a constant, a variable or buffer (at its use),
    // a statement; null for a missing part and for parts that are not nodes (attributes).
    NodeRef node;
    // The function, then the statements and expressions enclosing `node`, outermost first,
    // ending with `node` itself when it is a statement or an expression other than a variable
    // (a variable's or buffer's own location is where it is defined, not where it is used).
    // For a statement missing on this side, the path ends with its neighbour in the sequence.
    std::vector<NodeRef> path;
    Presence presence = Presence::Present;
  };
  std::string what;  // e.g. "integer values differ"
  Side lhs, rhs;
};
std::optional<StructuralDifference> findStructuralDifference(const PrimFunc &a, const PrimFunc &b);

}  // namespace vtac::ir
