// The print and check commands as the driver runs them: exit statuses, the
// output file written atomically and only on success.
#include "vtac/driver/CheckCommand.h"
#include "vtac/driver/PrintCommand.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace vtac::driver;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("vtac-frontend-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string &name, const std::string &text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

const char *kGood = "@T.prim_func\n"
                    "def f(A: T.Buffer((4,), \"float32\")):\n"
                    "    for i in range(4):\n"
                    "        A[i] = A[i] * 2.0\n";
const char *kBad = "@T.prim_func\n"
                   "def f(A: T.Buffer((4,), \"float32\")):\n"
                   "    A[0] = missing\n";

} // namespace

TEST_CASE("check is silent on success and reports errors otherwise", "[frontend][command]") {
  TempDir dir;
  std::ostringstream errors;
  CHECK(runCheck({dir.write("good.tvm", kGood)}, errors));
  CHECK(errors.str().empty());
  std::string bad = dir.write("bad.tvm", kBad);
  CHECK_FALSE(runCheck({bad}, errors));
  CHECK_THAT(errors.str(), Catch::StartsWith(bad + ":3:12: error: undefined name 'missing'"));
  std::ostringstream missing;
  CHECK_FALSE(runCheck({(dir.path / "absent.tvm").string()}, missing));
  CHECK_THAT(missing.str(), Catch::EndsWith("absent.tvm: error: cannot read file: No such file or directory\n"));
}

TEST_CASE("print writes canonical text that prints back identically", "[frontend][command]") {
  TempDir dir;
  std::ostringstream first, errors;
  REQUIRE(runPrint({dir.write("good.tvm", kGood)}, "", first, errors));
  CHECK_THAT(first.str(), Catch::Contains("A[i] = A[i] * T.float32(2.0)"));
  std::ostringstream second;
  REQUIRE(runPrint({dir.write("printed.tvm", first.str())}, "", second, errors));
  CHECK(second.str() == first.str());
}

TEST_CASE("print -o replaces the output only when every input is correct", "[frontend][command]") {
  TempDir dir;
  std::string output = dir.write("out.tvm", "previous contents\n");
  std::ostringstream out, errors;
  CHECK_FALSE(runPrint({dir.write("good.tvm", kGood), dir.write("bad.tvm", kBad)}, output, out, errors));
  std::ifstream unchanged(output);
  CHECK(std::string(std::istreambuf_iterator<char>(unchanged), {}) == "previous contents\n");

  REQUIRE(runPrint({(dir.path / "good.tvm").string()}, output, out, errors));
  std::ifstream written(output);
  CHECK_THAT(std::string(std::istreambuf_iterator<char>(written), {}), Catch::Contains("@T.prim_func"));
  CHECK(out.str().empty());
  size_t files = std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{});
  CHECK(files == 3);  // good.tvm, bad.tvm, out.tvm: no temporary left behind
}
