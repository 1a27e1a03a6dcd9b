#include "vtac/codegen/CNames.h"

#include <algorithm>
#include <cctype>

#include "vtac/codegen/HostLowering.h"

namespace vtac::codegen {

namespace {

const char *const kCKeywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "_Bool", "_Complex", "_Imaginary", "main"};

// The functions the emitted C's headers declare (math.h, stdlib.h, string.h; math.h's float
// variants are these names with an 'f'). C reserves them: a function of ours named `exp` would
// not compile as C, and as an object it would replace libm's exp in the whole program.
const char *const kMathFunctions[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh",
    "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "frexp",
    "hypot", "ilogb", "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint",
    "lround", "modf", "nan", "nearbyint", "nextafter", "pow", "remainder", "remquo", "rint", "round", "scalbln",
    "scalbn", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc"};
const char *const kLibraryFunctions[] = {
    "abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc", "div", "exit", "free", "getenv",
    "labs", "ldiv", "malloc", "memchr", "memcmp", "memcpy", "memmove", "memset", "qsort", "rand", "realloc",
    "srand", "strcat", "strchr", "strcmp", "strcpy", "strlen", "strncmp", "strncpy", "strstr", "strtod",
    "strtol", "system"};

bool isReserved(const std::string &name) {
  auto among = [&](const auto &names, const std::string &candidate) {
    return std::find(std::begin(names), std::end(names), candidate) != std::end(names);
  };
  if (among(kCKeywords, name) || among(kLibraryFunctions, name) || among(kMathFunctions, name)) return true;
  return name.size() > 1 && name.back() == 'f' && among(kMathFunctions, name.substr(0, name.size() - 1));
}

std::string sanitize(const std::string &hint) {
  std::string name;
  for (char c : hint) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "v" + name;
  return name;
}

}  // namespace

bool isCFunctionName(const std::string &name) {
  return !name.empty() && sanitize(name) == name && !isReserved(name);
}

CNames::CNames(std::set<std::string> reserved) : used_(std::move(reserved)) {}

std::string CNames::fresh(const std::string &hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  for (int suffix = 1; used_.count(name) || isReserved(name); ++suffix) name = base + "_" + std::to_string(suffix);
  used_.insert(name);
  return name;
}

const std::string &CNames::operator()(const ir::Var &var) {
  auto found = names_.find(&var);
  if (found != names_.end()) return found->second;
  return names_.emplace(&var, fresh(var.name)).first->second;
}

CNames functionNames(const HostFunction &function) {
  CNames names({"closure", "closure_arg", "vtac_errors_at_entry", "vtac_fail", "vtac_status"});
  for (const HostParam &param : function.params) names(*param.var);
  return names;
}

std::string cType(ir::DataType dtype) {
  if (!dtype.isScalar()) return "";
  switch (dtype.code()) {
  case ir::DataType::Code::Int:
  case ir::DataType::Code::UInt: {
    if (dtype.bits() != 8 && dtype.bits() != 16 && dtype.bits() != 32 && dtype.bits() != 64) return "";
    return std::string(dtype.isUInt() ? "uint" : "int") + std::to_string(dtype.bits()) + "_t";
  }
  case ir::DataType::Code::Float:
    return dtype.bits() == 32 ? "float" : dtype.bits() == 64 ? "double" : "";
  case ir::DataType::Code::Bool: return "int8_t";
  case ir::DataType::Code::Handle: return "void *";
  }
  return "";
}

}  // namespace vtac::codegen
