// Replacing variables by expressions (TVM's tir::Substitute), copy-on-write: subtrees that
// mention none of the variables come back unchanged (same node).
#pragma once

#include <unordered_map>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

using VarMap = std::unordered_map<const Var *, Expr>;

Expr substitute(const Expr &expr, const VarMap &replacements);
Stmt substitute(const Stmt &stmt, const VarMap &replacements);

// Every subexpression of `expr` structurally equal to `target` replaced by `replacement`.
Expr replaceSubexpression(const Expr &expr, const Expr &target, const Expr &replacement);

}  // namespace vtac::ir
