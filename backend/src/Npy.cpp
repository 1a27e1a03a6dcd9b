#include "vtac/backend/Npy.h"

#include <cstring>
#include <optional>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/BoundedRead.h"

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

namespace {

// Where a .npy file's parts lie, as its preamble and header say.
struct NpyLayout {
  size_t headerStart = 0;
  size_t headerLength = 0;
  size_t dataStart() const { return headerStart + headerLength; }
};

// The preamble: the magic string, the version and the header's length (10 or 12 bytes).
llvm::Expected<NpyLayout> parsePreamble(llvm::StringRef bytes, llvm::StringRef name) {
  if (!bytes.starts_with(kMagic)) return npyError(name, "not a .npy file (bad magic string)");
  if (bytes.size() < 10) return npyError(name, "truncated .npy preamble");
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  NpyLayout layout;
  if (major == 1) {
    layout.headerLength = llvm::support::endian::read16le(bytes.data() + 8);
    layout.headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return npyError(name, "truncated .npy preamble");
    layout.headerLength = llvm::support::endian::read32le(bytes.data() + 8);
    layout.headerStart = 12;
  } else {
    return npyError(name, "unsupported .npy format version " + llvm::Twine(major) + "." +
                              llvm::Twine(minor));
  }
  return layout;
}

struct NpyArray {
  DataType dtype;
  std::vector<int64_t> shape;
  int64_t dataBytes;
};

// The element type and shape the header (after `layout`'s preamble, all in `bytes`) declares.
llvm::Expected<NpyArray> parseHeader(llvm::StringRef bytes, const NpyLayout &layout, llvm::StringRef name) {
  if (layout.dataStart() > bytes.size())
    return npyError(name, "truncated header: it claims " + llvm::Twine(layout.headerLength) +
                              " bytes, the file has " + llvm::Twine(bytes.size() - layout.headerStart));
  auto fields = HeaderParser(bytes.substr(layout.headerStart, layout.headerLength)).parse();
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
  return NpyArray{*dtype, std::move(*fields->shape), *needed};
}

llvm::Error dataSizeMismatch(const NpyArray &array, const llvm::Twine &fileHas, llvm::StringRef name) {
  return npyError(name, "data size mismatch: shape " + formatShape(array.shape) + " of " + array.dtype.str() +
                            " needs " + llvm::Twine(array.dataBytes) + " bytes, the file has " + fileHas);
}

}  // namespace

llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name) {
  llvm::Expected<NpyLayout> layout = parsePreamble(bytes, name);
  if (!layout) return layout.takeError();
  llvm::Expected<NpyArray> array = parseHeader(bytes, *layout, name);
  if (!array) return array.takeError();
  llvm::StringRef data = bytes.drop_front(layout->dataStart());
  if (data.size() != uint64_t(array->dataBytes)) return dataSizeMismatch(*array, llvm::Twine(data.size()), name);
  Tensor tensor(array->dtype, array->shape, llvm::arrayRefFromStringRef(data));
  if (array->dtype.isBool())
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      if (tensor.data()[i] > 1)
        return npyError(name, "bool element " + llvm::Twine(i) + " is neither 0 nor 1");
  return tensor;
}

// Reads the preamble, then as much header as it claims (a header of more than kMaxHeaderBytes,
// a million dimensions, is refused), then as much data as the header's shape needs and one byte
// more: an endless input (/dev/zero, a pipe) costs no more than the tensor it would hold.
llvm::Expected<Tensor> readNpy(llvm::StringRef path) {
  constexpr size_t kMaxHeaderBytes = size_t(16) << 20;
  auto cannotRead = [&](llvm::Error error) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot read '%s': %s", path.str().c_str(),
                                   llvm::toString(std::move(error)).c_str());
  };
  llvm::Expected<support::InputFile> input = support::InputFile::open(path);
  if (!input) return cannotRead(input.takeError());
  std::string bytes;
  auto readAtMost = [&](size_t count) -> llvm::Error {
    llvm::Expected<size_t> read = input->appendAtMost(count, bytes);
    return read ? llvm::Error::success() : cannotRead(read.takeError());
  };
  if (llvm::Error error = readAtMost(12)) return error;
  llvm::Expected<NpyLayout> layout = parsePreamble(bytes, path);
  if (!layout) return layout.takeError();
  if (layout->headerLength > kMaxHeaderBytes)
    return npyError(path, "a header of " + llvm::Twine(layout->headerLength) + " bytes (more than " +
                              llvm::Twine(kMaxHeaderBytes >> 20) + " MiB)");
  if (layout->dataStart() > bytes.size())
    if (llvm::Error error = readAtMost(layout->dataStart() - bytes.size())) return error;
  llvm::Expected<NpyArray> array = parseHeader(bytes, *layout, path);
  if (!array) return array.takeError();
  size_t dataEnd = layout->dataStart() + size_t(array->dataBytes);
  if (bytes.size() <= dataEnd)
    if (llvm::Error error = readAtMost(dataEnd + 1 - bytes.size())) return error;
  if (bytes.size() > dataEnd) return dataSizeMismatch(*array, "more", path);
  return parseNpy(bytes, path);
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
