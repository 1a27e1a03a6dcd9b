#include "vtac/backend/Npy.h"

#include <cstring>
#include <optional>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/MemoryBuffer.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/support/AtomicFile.h"

namespace vtac::backend {

using ir::DataType;

namespace {

constexpr llvm::StringLiteral kMagic("\x93NUMPY");

llvm::Error npyError(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (name + ": " + message).str());
}

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// This parser accepts exactly the literals NumPy writes (strings, True/False, tuples of
// non-negative integers) and reports the first thing it does not understand.
class HeaderParser {
public:
  explicit HeaderParser(llvm::StringRef text) : text_(text) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortranOrder;
    std::optional<std::vector<int64_t>> shape;
  };

  llvm::Expected<Fields> parse() {
    Fields fields;
    skipSpace();
    if (!consume('{')) return fail("expected '{' at the start of the header dict");
    while (true) {
      skipSpace();
      if (pos_ == text_.size()) return fail("unterminated header dict");
      if (consume('}')) break;
      auto key = parseString();
      if (!key) return key.takeError();
      skipSpace();
      if (!consume(':')) return fail("expected ':' after key '" + *key + "'");
      skipSpace();
      if (*key == "descr") {
        auto value = parseString();
        if (!value) return value.takeError();
        fields.descr = *value;
      } else if (*key == "fortran_order") {
        if (text_.substr(pos_).starts_with("True")) {
          fields.fortranOrder = true;
          pos_ += 4;
        } else if (text_.substr(pos_).starts_with("False")) {
          fields.fortranOrder = false;
          pos_ += 5;
        } else {
          return fail("expected True or False for 'fortran_order'");
        }
      } else if (*key == "shape") {
        auto value = parseShape();
        if (!value) return value.takeError();
        fields.shape = std::move(*value);
      } else {
        return fail("unexpected key '" + *key + "' in the header dict");
      }
      skipSpace();
      if (consume(',')) continue;
      skipSpace();
      if (consume('}')) break;
      return fail("expected ',' or '}' in the header dict");
    }
    skipSpace();
    if (pos_ != text_.size()) return fail("unexpected text after the header dict");
    if (!fields.descr) return fail("the header dict has no 'descr'");
    if (!fields.fortranOrder) return fail("the header dict has no 'fortran_order'");
    if (!fields.shape) return fail("the header dict has no 'shape'");
    return fields;
  }

private:
  llvm::Error fail(const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   ("corrupt header: " + message + " (header offset " +
                                    llvm::Twine(pos_) + ")")
                                       .str());
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  llvm::Expected<std::string> parseString() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return fail("expected a quoted string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == llvm::StringRef::npos) return fail("unterminated string");
    std::string value = text_.slice(pos_, end).str();
    pos_ = end + 1;
    return value;
  }

  llvm::Expected<std::vector<int64_t>> parseShape() {
    if (!consume('(')) return fail("expected a tuple for 'shape'");
    std::vector<int64_t> shape;
    while (true) {
      skipSpace();
      if (pos_ == text_.size()) return fail("unterminated tuple for 'shape'");
      if (consume(')')) return shape;
      size_t start = pos_;
      while (pos_ < text_.size() && llvm::isDigit(text_[pos_])) ++pos_;
      // NumPy 1.x on Windows wrote "3L"; accept the suffix.
      llvm::StringRef digits = text_.slice(start, pos_);
      if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
      int64_t extent;
      if (digits.empty() || digits.getAsInteger(10, extent))
        return fail("expected a non-negative integer in 'shape'");
      shape.push_back(extent);
      skipSpace();
      if (consume(',')) continue;
      skipSpace();
      if (consume(')')) return shape;
      return fail("expected ',' or ')' in 'shape'");
    }
  }

  llvm::StringRef text_;
  size_t pos_ = 0;
};

std::optional<DataType> dtypeFromDescr(llvm::StringRef descr) {
  if (descr.size() < 3) return std::nullopt;
  char order = descr[0];
  char kind = descr[1];
  int bytes;
  // No supported type is wider than 8 bytes; larger counts would overflow `bytes * 8`.
  if (descr.drop_front(2).getAsInteger(10, bytes) || bytes < 1 || bytes > 8) return std::nullopt;
  // '=' is native order, little-endian on every host vtac supports.
  bool littleOrNoOrder = order == '<' || order == '|' || order == '=';
  if (!littleOrNoOrder && !(order == '>' && bytes == 1)) return std::nullopt;
  std::optional<DataType> dtype;
  switch (kind) {
  case 'b': if (bytes == 1) dtype = DataType::boolTy(); break;
  case 'i': dtype = DataType::intTy(bytes * 8); break;
  case 'u': dtype = DataType::uintTy(bytes * 8); break;
  case 'f': dtype = DataType::floatTy(bytes * 8); break;
  default: break;
  }
  if (dtype && !isSupportedTensorType(*dtype)) return std::nullopt;
  return dtype;
}

}  // namespace

std::string npyDescr(DataType dtype) {
  char kind = dtype.isBool() ? 'b' : dtype.isFloat() ? 'f' : dtype.isUInt() ? 'u' : 'i';
  char order = dtype.bytes() == 1 ? '|' : '<';
  return std::string{order, kind} + std::to_string(dtype.bytes());
}

llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name) {
  if (!bytes.starts_with(kMagic)) return npyError(name, "not a .npy file (bad magic string)");
  if (bytes.size() < 10) return npyError(name, "truncated .npy preamble");
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = llvm::support::endian::read16le(bytes.data() + 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return npyError(name, "truncated .npy preamble");
    headerLength = llvm::support::endian::read32le(bytes.data() + 8);
    headerStart = 12;
  } else {
    return npyError(name, "unsupported .npy format version " + llvm::Twine(major) + "." +
                              llvm::Twine(minor));
  }
  if (headerStart + headerLength > bytes.size())
    return npyError(name, "truncated header: it claims " + llvm::Twine(headerLength) +
                              " bytes, the file has " +
                              llvm::Twine(bytes.size() - headerStart));
  auto fields = HeaderParser(bytes.substr(headerStart, headerLength)).parse();
  if (!fields) return npyError(name, llvm::toString(fields.takeError()));
  if (*fields->fortranOrder)
    return npyError(name, "Fortran-order arrays are not supported (save with C order)");
  std::optional<DataType> dtype = dtypeFromDescr(*fields->descr);
  if (!dtype)
    return npyError(name, "unsupported dtype '" + *fields->descr +
                              "' (supported: little-endian bool, int8-64, uint8-64, float16-64)");
  // Before allocating: a tiny file must not make vtac allocate the shape its header
  // claims, so the data the file really holds is checked first.
  auto needed = checkedByteSize(*fields->shape, dtype->bytes());
  if (!needed) return npyError(name, errorMessage(needed.takeError()));
  llvm::StringRef data = bytes.drop_front(headerStart + headerLength);
  if (data.size() != uint64_t(*needed))
    return npyError(name, "data size mismatch: shape " + formatShape(*fields->shape) + " of " +
                              dtype->str() + " needs " + llvm::Twine(*needed) +
                              " bytes, the file has " + llvm::Twine(data.size()));
  Tensor tensor(*dtype, *fields->shape, llvm::arrayRefFromStringRef(data));
  if (dtype->isBool())
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      if (tensor.data()[i] > 1)
        return npyError(name, "bool element " + llvm::Twine(i) + " is neither 0 nor 1");
  return tensor;
}

llvm::Expected<Tensor> readNpy(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  return parseNpy((*buffer)->getBuffer(), path);
}

std::string encodeNpy(const Tensor &tensor) {
  std::string header = "{'descr': '" + npyDescr(tensor.dtype()) +
                       "', 'fortran_order': False, 'shape': " + formatShape(tensor.shape()) +
                       ", }";
  // NumPy pads with spaces so the data starts 64-byte aligned, and ends the header with '\n';
  // a header longer than version 1.0's 16-bit length (thousands of dimensions) takes
  // version 2.0 and a 32-bit length, as NumPy writes it.
  bool wide = header.size() + 1 + 63 > 0xffff;
  size_t preamble = kMagic.size() + 2 + (wide ? 4 : 2);
  size_t unpadded = preamble + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic);
  bytes += char(wide ? 2 : 1);
  bytes += char(0);
  for (size_t i = 0; i < (wide ? 4u : 2u); ++i)
    bytes += char((header.size() >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(reinterpret_cast<const char *>(tensor.data()), tensor.byteSize());
  return bytes;
}

llvm::Error writeNpy(llvm::StringRef path, const Tensor &tensor) {
  return support::writeFileAtomically(path, encodeNpy(tensor));
}

}  // namespace vtac::backend
