// Internal to vtac_ir: integer expressions as sum(coeff * atom) + constant, the representation
// behind simplify() and block region inference. Atoms are the maximal sub-expressions that are
// not +, - or multiplication by a literal; equal atoms (structurally) are merged.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::ir::detail {

struct LinearTerm {
  Expr atom;
  int64_t coeff;
};

struct LinearForm {
  std::vector<LinearTerm> terms;  // in order of first appearance; coefficients may be 0
  int64_t constant = 0;

  void addTerm(const Expr &atom, int64_t coeff);
  void add(const LinearForm &other, int64_t scale);
  bool isConstant() const;
  // The coefficient of `atom` (0 when absent).
  int64_t coeffOf(const Expr &atom) const;
};

// Linear form of an integer scalar expression (nullopt for other dtypes). Atoms are simplified.
std::optional<LinearForm> toLinearForm(const Expr &e);
// The canonical expression of a form: terms in order (`a * 4 + b - c`), then the constant.
Expr fromLinearForm(const LinearForm &form, DataType dtype);

}  // namespace vtac::ir::detail
