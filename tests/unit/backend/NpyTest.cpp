// .npy reading and writing: every supported dtype round-trips, headers of versions 1-3 parse,
// and every kind of corrupt file is rejected with a message that says what is wrong.
#include <catch2/catch.hpp>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "TestSupport.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Npy.h"

using namespace vtac::backend;
using vtac::ir::DataType;

namespace {

std::string preamble(int major, const std::string &header) {
  std::string bytes = "\x93NUMPY";
  bytes += char(major);
  bytes += char(0);
  if (major == 1) {
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i) bytes += char((header.size() >> (8 * i)) & 0xff);
  }
  return bytes + header;
}

std::string parseError(const std::string &bytes) {
  auto tensor = parseNpy(bytes, "x.npy");
  REQUIRE(!tensor);
  return errorMessage(tensor.takeError());
}

}  // namespace

TEST_CASE("every supported dtype round-trips through .npy bytes", "[npy]") {
  for (const char *name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float16", "float32", "float64"}) {
    DataType dtype = *DataType::parse(name);
    Tensor original = test::randomTensor(dtype, {2, 3, 5}, name);
    auto decoded = parseNpy(encodeNpy(original), "x.npy");
    REQUIRE(bool(decoded));
    CHECK(decoded->dtype() == dtype);
    CHECK(decoded->shape() == original.shape());
    REQUIRE(decoded->byteSize() == original.byteSize());
    CHECK(std::equal(original.data(), original.data() + original.byteSize(), decoded->data()));
  }
}

TEST_CASE("written headers are NumPy's: descr, 64-byte aligned data", "[npy]") {
  Tensor tensor(DataType::float32(), {3, 4});
  std::string bytes = encodeNpy(tensor);
  size_t headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
  CHECK((10 + headerLength) % 64 == 0);
  CHECK(bytes.substr(10, headerLength).find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }") == 0);
  CHECK(bytes[10 + headerLength - 1] == '\n');
  CHECK(npyDescr(DataType::intTy(8)) == "|i1");
  CHECK(npyDescr(DataType::boolTy()) == "|b1");
}

TEST_CASE("version 2 and 3 headers, scalars and one-dimensional shapes parse", "[npy]") {
  std::string data(4 * 3, '\0');
  for (int major : {1, 2, 3}) {
    auto tensor = parseNpy(preamble(major, "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (3,)}\n") + data, "x.npy");
    REQUIRE(bool(tensor));
    CHECK(tensor->shape() == llvm::ArrayRef<int64_t>{3});
  }
  auto scalar = parseNpy(preamble(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }") + std::string(8, '\0'), "s.npy");
  REQUIRE(bool(scalar));
  CHECK(scalar->shape().empty());
  CHECK(scalar->numElements() == 1);
}

TEST_CASE("a header longer than 65535 bytes is written as version 2.0 and reads back", "[npy]") {
  std::vector<int64_t> shape(30000, 1);
  Tensor tensor(DataType::intTy(8), shape);
  std::string bytes = encodeNpy(tensor);
  CHECK(bytes[6] == 2);
  size_t headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8) | (size_t(uint8_t(bytes[10])) << 16);
  CHECK(headerLength > 0xffff);
  CHECK((12 + headerLength) % 64 == 0);
  auto decoded = parseNpy(bytes, "wide.npy");
  REQUIRE(bool(decoded));
  CHECK(decoded->shape() == llvm::ArrayRef<int64_t>(shape));
}

TEST_CASE("a header claiming more data than the file holds allocates nothing", "[npy]") {
  // 4 GiB claimed by a file of a few bytes: rejected before the tensor is allocated.
  std::string claim = preamble(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967295,), }");
  CHECK(parseError(claim + "abc") ==
        "x.npy: data size mismatch: shape (4294967295,) of uint8 needs 4294967295 bytes, the file has 3");
}

TEST_CASE("a shape with a zero extent after huge ones is empty, without overflow", "[npy]") {
  // Found by fuzz/NpyFuzzer.cpp under UBSan: the product of the extents before the zero
  // overflowed int64 while the tensor was being sized (a release build hid it: the wrapped
  // product times 0 is still 0).
  std::string empty = preamble(
      1, "{'descr': '<i2', 'fortran_order': False, 'shape': (30038, 9, 5, 9, 1, 900, 9037, 9, 2, 9, 99, 9, 0, 59), }");
  auto tensor = parseNpy(empty, "x.npy");
  REQUIRE(bool(tensor));
  CHECK(tensor->numElements() == 0);
  CHECK(tensor->byteSize() == 0);
}

TEST_CASE("corrupt .npy files are rejected precisely", "[npy]") {
  std::string goodHeader = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  CHECK(parseError("hello world") == "x.npy: not a .npy file (bad magic string)");
  CHECK(parseError("\x93NUMPY\x01") == "x.npy: truncated .npy preamble");
  CHECK(parseError(preamble(4, goodHeader)) == "x.npy: unsupported .npy format version 4.0");
  CHECK(parseError(preamble(1, goodHeader).substr(0, 20)) ==
        "x.npy: truncated header: it claims " + std::to_string(goodHeader.size()) + " bytes, the file has 10");
  CHECK_THAT(parseError(preamble(1, "{'descr': '<i4', 'shape': (2,), }")),
             Catch::Contains("corrupt header: the header dict has no 'fortran_order'"));
  CHECK_THAT(parseError(preamble(1, "['descr']")), Catch::Contains("corrupt header: expected '{'"));
  CHECK_THAT(parseError(preamble(1, "{'descr': '<i4', 'fortran_order': maybe, 'shape': (2,)}")),
             Catch::Contains("expected True or False for 'fortran_order'"));
  CHECK_THAT(parseError(preamble(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, x)}")),
             Catch::Contains("expected a non-negative integer in 'shape'"));
  CHECK_THAT(parseError(preamble(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'extra': 1}")),
             Catch::Contains("unexpected key 'extra'"));
  CHECK_THAT(parseError(preamble(1, "{'descr': '<i4, 'fortran_order': False, 'shape': (2,)}")),
             Catch::Contains("corrupt header"));
  CHECK(parseError(preamble(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2,)}") + std::string(8, '\0')) ==
        "x.npy: Fortran-order arrays are not supported (save with C order)");
  CHECK_THAT(parseError(preamble(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,)}") + std::string(8, '\0')),
             Catch::Contains("unsupported dtype '>i4'"));
  CHECK_THAT(parseError(preamble(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}") + std::string(16, '\0')),
             Catch::Contains("unsupported dtype '<c8'"));
  // Found by fuzz/NpyFuzzer.cpp under UBSan: the width times 8 overflowed int.
  CHECK_THAT(parseError(preamble(1, "{'descr': '|i1509587718', 'fortran_order': False, 'shape': (2,)}")),
             Catch::Contains("unsupported dtype '|i1509587718'"));
  CHECK(parseError(preamble(1, goodHeader) + std::string(7, '\0')) ==
        "x.npy: data size mismatch: shape (2,) of int32 needs 8 bytes, the file has 7");
  CHECK(parseError(preamble(1, goodHeader) + std::string(9, '\0')) ==
        "x.npy: data size mismatch: shape (2,) of int32 needs 8 bytes, the file has 9");
  CHECK(parseError(preamble(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}") + std::string("\x01\x07")) ==
        "x.npy: bool element 1 is neither 0 nor 1");
}

TEST_CASE("files: a missing input and an output in a missing directory are errors, and leave nothing", "[npy]") {
  auto missing = readNpy("/nonexistent/input.npy");
  REQUIRE(!missing);
  CHECK(errorMessage(missing.takeError()) == "cannot read '/nonexistent/input.npy': No such file or directory");

  llvm::SmallString<128> directory;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("vtac-npy-test", directory));
  std::string inMissingDirectory = (directory + "/no/such/dir/out.npy").str();
  llvm::Error error = writeNpy(inMissingDirectory, Tensor(DataType::int32(), {2}));
  REQUIRE(bool(error));
  CHECK_THAT(errorMessage(std::move(error)), Catch::Contains("does not exist"));

  std::string path = (directory + "/out.npy").str();
  Tensor written = test::randomTensor(DataType::intTy(8), {4, 4}, "w");
  REQUIRE(renderError(writeNpy(path, written)) == "");
  auto read = readNpy(path);
  REQUIRE(bool(read));
  CHECK(std::equal(written.data(), written.data() + written.byteSize(), read->data()));
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end; it != end && !ec; it.increment(ec)) ++files;
  CHECK(files == 1);  // no temporary left behind
  llvm::sys::fs::remove_directories(directory);
}
