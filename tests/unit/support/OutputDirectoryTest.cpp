// support::OutputDirectory: `-o DIR/` names one output per input and is made only when asked.
#include <filesystem>

#include <catch2/catch.hpp>
#include <llvm/Support/Error.h>

#include "vtac/support/OutputDirectory.h"

using vtac::support::OutputDirectory;

namespace {

std::filesystem::path scratch(const char *name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("outputs in a directory are named after the inputs", "[support][outputdir]") {
  std::filesystem::path dir = scratch("vtac_outputdir_names");
  auto directory = OutputDirectory::check(dir.string() + "/made/");
  REQUIRE(bool(directory));
  auto outputs = directory->outputsFor({"a/conv.tvm", "dense.tvm", "-"}, ".o");
  REQUIRE(bool(outputs));
  CHECK(*outputs == std::vector<std::string>{dir.string() + "/made/conv.o", dir.string() + "/made/dense.o",
                                             dir.string() + "/made/stdin.o"});
  CHECK(directory->pendingHolds((*outputs)[0]));
  CHECK_FALSE(std::filesystem::exists(dir / "made"));  // made only by make()
  REQUIRE_FALSE(bool(directory->make()));
  CHECK(std::filesystem::is_directory(dir / "made"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("two inputs of one name are refused", "[support][outputdir]") {
  auto directory = OutputDirectory::check(std::filesystem::temp_directory_path().string());
  REQUIRE(bool(directory));
  CHECK_FALSE(directory->pendingHolds(std::filesystem::temp_directory_path().string() + "/x.o"));
  auto outputs = directory->outputsFor({"a/conv.tvm", "b/conv.tvm"}, ".o");
  REQUIRE_FALSE(bool(outputs));
  CHECK(llvm::toString(outputs.takeError()).find("'a/conv.tvm' and 'b/conv.tvm' would both write") == 0);
}

TEST_CASE("a path names a directory when it ends in '/' or is one", "[support][outputdir]") {
  CHECK(vtac::support::namesDirectory("not/yet/"));
  CHECK(vtac::support::namesDirectory(std::filesystem::temp_directory_path().string()));
  CHECK_FALSE(vtac::support::namesDirectory("out.o"));
  CHECK_FALSE(vtac::support::namesDirectory(""));
}
