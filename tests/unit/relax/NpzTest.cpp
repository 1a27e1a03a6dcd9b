#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include <llvm/Support/FileSystem.h>

#include "RelaxTestSupport.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/graph/Npz.h"

using namespace vtac;

namespace {

std::string temporaryPath(const char *stem) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createUniquePath(std::string("relax-") + stem + "-%%%%%%.npz", path, true);
  return path.str().str();
}

}  // namespace

TEST_CASE("npz: stored and deflated archives round-trip", "[relax][npz]") {
  graph::NamedTensors tensors = relax_test::mlpInputs(11);
  backend::Tensor counts(ir::DataType::int32(), {4});
  for (int i = 0; i < 4; ++i) counts.setInt(i, i * 1000 - 7);
  tensors.emplace_back("counts", counts);
  for (bool compress : {false, true}) {
    std::string path = temporaryPath(compress ? "deflated" : "stored");
    REQUIRE(!graph::writeNpz(path, tensors, compress));
    llvm::Expected<graph::NamedTensors> read = graph::readNpz(path);
    REQUIRE(bool(read));
    REQUIRE(read->size() == tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      CHECK((*read)[i].first == tensors[i].first);
      CHECK((*read)[i].second.shape() == tensors[i].second.shape());
      CHECK((*read)[i].second.dtype() == tensors[i].second.dtype());
      CHECK(relax_test::maxAbsDifference((*read)[i].second, tensors[i].second) == 0);
    }
    std::remove(path.c_str());
  }
}

TEST_CASE("npz: a corrupt or missing archive is an error naming the file", "[relax][npz]") {
  std::string path = temporaryPath("corrupt");
  {
    std::ofstream out(path, std::ios::binary);
    out << "PK\x03\x04 this is not really a zip archive";
  }
  llvm::Expected<graph::NamedTensors> corrupt = graph::readNpz(path);
  REQUIRE(!corrupt);
  std::string message = backend::renderError(corrupt.takeError());
  CHECK(message.find("cannot read '" + path + "' as an .npz archive") != std::string::npos);
  std::remove(path.c_str());

  llvm::Expected<graph::NamedTensors> missing = graph::readNpz("/nonexistent/params.npz");
  REQUIRE(!missing);
  CHECK(backend::renderError(missing.takeError()).find("/nonexistent/params.npz") != std::string::npos);
}

TEST_CASE("npz: a member that is not a .npy array is reported", "[relax][npz]") {
  std::string path = temporaryPath("badmember");
  graph::NamedTensors tensors = {{"w", relax_test::randomTensor({2, 2}, 3)}};
  REQUIRE(!graph::writeNpz(path, tensors));
  // Corrupt the .npy magic inside the stored (uncompressed) member.
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), {});
  size_t magic = bytes.find("\x93NUMPY");
  REQUIRE(magic != std::string::npos);
  file.seekp(std::streamoff(magic));
  file.write("XXXXXX", 6);
  file.close();
  llvm::Expected<graph::NamedTensors> read = graph::readNpz(path);
  REQUIRE(!read);
  std::string message = backend::renderError(read.takeError());
  // Either the .npy parser rejects the member's magic string or libzip's CRC check fails the
  // read; both name the archive and the member (a bare mention of the path proved nothing).
  CAPTURE(message);
  bool parserRejects = message == "error: " + path + ":w.npy: not a .npy file (bad magic string)\n";
  bool crcRejects = message.rfind("error: corrupt .npz archive '" + path + "': cannot read 'w.npy': ", 0) == 0;
  CHECK((parserRejects || crcRejects));
  std::remove(path.c_str());
}

TEST_CASE("npz: the expansion limits are checked before inflating", "[relax][npz]") {
  std::string path = temporaryPath("limits");
  // 2 x 4096 zero floats, deflated: each member compresses far more than 100:1.
  graph::NamedTensors zeros = {{"a", backend::Tensor(ir::DataType::float32(), {4096})},
                               {"b", backend::Tensor(ir::DataType::float32(), {4096})}};
  REQUIRE(!graph::writeNpz(path, zeros, /*compress=*/true));
  auto all = [](llvm::StringRef) { return true; };

  SECTION("members under the ratio's exemption may compress as well as they like") {
    llvm::Expected<graph::NpzContents> read = graph::readNpzMembers(path, all);
    REQUIRE(bool(read));
    CHECK(read->arrays.size() == 2);
  }
  SECTION("over the exemption, the ratio limit applies") {
    graph::NpzLimits limits;
    limits.ratioExemptBytes = 1024;
    llvm::Expected<graph::NpzContents> read = graph::readNpzMembers(path, all, limits);
    REQUIRE(!read);
    std::string message = backend::renderError(read.takeError());
    CAPTURE(message);
    CHECK(message.find("member 'a.npy' inflates ") != std::string::npos);
    CHECK(message.find(" bytes to 16512, more than 100 times (the limit for members over 1024 bytes; a zip bomb?)") !=
          std::string::npos);
  }
  SECTION("the total counts only the members read") {
    graph::NpzLimits limits;
    limits.maxTotalBytes = 20000;  // one member (16512 bytes) fits, two do not
    llvm::Expected<graph::NpzContents> both = graph::readNpzMembers(path, all, limits);
    REQUIRE(!both);
    CHECK(backend::renderError(both.takeError()) ==
          "error: corrupt .npz archive '" + path +
              "': the members read inflate to more than 20000 bytes (at 'b.npy'; a zip bomb?)\n");
    llvm::Expected<graph::NpzContents> one =
        graph::readNpzMembers(path, [](llvm::StringRef name) { return name == "b"; }, limits);
    REQUIRE(bool(one));
    REQUIRE(one->arrays.size() == 1);
    CHECK(one->arrays[0].first == "b");
    CHECK(one->unread == std::vector<std::string>{"a"});
  }
  std::remove(path.c_str());
}
