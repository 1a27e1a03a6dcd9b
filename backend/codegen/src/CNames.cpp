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

std::string sanitize(const std::string &hint) {
  std::string name;
  for (char c : hint) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "v" + name;
  return name;
}

}  // namespace

bool isCFunctionName(const std::string &name) {
  return !name.empty() && sanitize(name) == name &&
         std::find(std::begin(kCKeywords), std::end(kCKeywords), name) == std::end(kCKeywords);
}

CNames::CNames(std::set<std::string> reserved) : used_(std::move(reserved)) {
  used_.insert(std::begin(kCKeywords), std::end(kCKeywords));
}

std::string CNames::fresh(const std::string &hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  for (int suffix = 1; used_.count(name); ++suffix) name = base + "_" + std::to_string(suffix);
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
