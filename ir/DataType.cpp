// Spelling of data types as TVMScript writes them.
#include "vtac/ir/DataType.h"

namespace vtac::ir {

std::string DataType::str() const {
  if (isVoid()) return "void";
  std::string out;
  switch (code_) {
  case Code::Int: out = "int" + std::to_string(bits_); break;
  case Code::UInt: out = "uint" + std::to_string(bits_); break;
  case Code::Float: out = "float" + std::to_string(bits_); break;
  case Code::Bool: out = "bool"; break;
  case Code::Handle: return "handle";
  }
  if (lanes_ != 1) out += "x" + std::to_string(lanes_);
  return out;
}

std::optional<DataType> DataType::parse(llvm::StringRef text) {
  if (text == "void") return voidTy();
  if (text == "handle") return handle();
  int lanes = 1;
  size_t x = text.find('x');
  if (x != llvm::StringRef::npos) {
    if (text.substr(x + 1).getAsInteger(10, lanes) || lanes < 2 || lanes > 65535) return std::nullopt;
    text = text.substr(0, x);
  }
  if (text == "bool") return boolTy(lanes);
  Code code;
  llvm::StringRef bitsText;
  if (text.starts_with("uint")) {
    code = Code::UInt;
    bitsText = text.drop_front(4);
  } else if (text.starts_with("int")) {
    code = Code::Int;
    bitsText = text.drop_front(3);
  } else if (text.starts_with("float")) {
    code = Code::Float;
    bitsText = text.drop_front(5);
  } else {
    return std::nullopt;
  }
  unsigned bits = 0;
  if (bitsText.getAsInteger(10, bits)) return std::nullopt;
  bool valid = code == Code::Float ? (bits == 16 || bits == 32 || bits == 64)
                                   : (bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64);
  if (!valid) return std::nullopt;
  return DataType(code, uint8_t(bits), uint16_t(lanes));
}

}  // namespace vtac::ir
