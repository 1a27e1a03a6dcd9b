// C identifiers for IR variables: each variable of a function gets a valid, unique C name
// derived from its name hint (`data_1`, `cse_var_6`, `i2_outer`; a clash, a C keyword or a C library function's
// name gets a numeric suffix). Shared by the C emitter and the header emitter so that both name a
// function's parameters alike.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "vtac/ir/Expr.h"

namespace vtac::codegen {

class CNames {
public:
  // Names the emitter itself uses in every function, never given to a variable.
  explicit CNames(std::set<std::string> reserved = {});

  // The variable's name, chosen on first request.
  const std::string &operator()(const ir::Var &var);
  // A fresh name built from `hint`, not bound to any variable.
  std::string fresh(const std::string &hint);

private:
  std::set<std::string> used_;
  std::unordered_map<const ir::Var *, std::string> names_;
};

struct HostFunction;

// The names of one emitted function: its parameters are named first, in order (so the C file
// and the header agree), and the emitter's own locals are reserved.
CNames functionNames(const HostFunction &function);

// Whether `name` can name an emitted C function: an identifier (letters, digits and '_', not
// starting with a digit) that C does not reserve: no keyword, no `main`, no function of the
// C library headers the emitted code includes (`exp`, `sqrtf`, `malloc`, ...).
bool isCFunctionName(const std::string &name);

// The C type of a scalar dtype ("int32_t", "float", "void *"); empty for types C code cannot
// hold (vectors, float16).
std::string cType(ir::DataType dtype);

}  // namespace vtac::codegen
