#include <catch2/catch.hpp>

#include <string>

#include "vtac/func_registry.h"

namespace {

int addOne(const vtac_tensor *args, int32_t numArgs, void *resource) {
  *static_cast<int *>(resource) += 1;
  return numArgs == 2 ? 0 : -1;
}

int failing(const vtac_tensor *, int32_t, void *) {
  vtac_set_last_error("deliberate failure");
  return 7;
}

}  // namespace

TEST_CASE("registry: register, look up, call and remove a function", "[relax][registry]") {
  int counter = 0;
  REQUIRE(vtac_register_func("test.add_one", addOne, &counter, 0) == 0);
  vtac_packed_func fn = nullptr;
  void *resource = nullptr;
  REQUIRE(vtac_get_func("test.add_one", &fn, &resource) == 0);
  REQUIRE(fn == addOne);
  vtac_tensor args[2] = {};
  CHECK(fn(args, 2, resource) == 0);
  CHECK(counter == 1);
  CHECK(vtac_remove_func("test.add_one") == 0);
  CHECK(vtac_get_func("test.add_one", &fn, &resource) == -1);
  CHECK(vtac_remove_func("test.add_one") == -1);
}

TEST_CASE("registry: a name is registered once unless overridden", "[relax][registry]") {
  REQUIRE(vtac_register_func("test.twice", addOne, nullptr, 0) == 0);
  CHECK(vtac_register_func("test.twice", failing, nullptr, 0) == -1);
  CHECK(std::string(vtac_get_last_error()) == "function 'test.twice' is already registered");
  CHECK(vtac_register_func("test.twice", failing, nullptr, 1) == 0);
  vtac_packed_func fn = nullptr;
  REQUIRE(vtac_get_func("test.twice", &fn, nullptr) == 0);
  CHECK(fn == failing);
  CHECK(fn(nullptr, 0, nullptr) == 7);
  CHECK(std::string(vtac_get_last_error()) == "deliberate failure");
  vtac_remove_func("test.twice");
}

TEST_CASE("registry: names are listed in sorted order", "[relax][registry]") {
  int32_t before = vtac_num_funcs();
  vtac_register_func("test.zz", addOne, nullptr, 0);
  vtac_register_func("test.aa", addOne, nullptr, 0);
  CHECK(vtac_num_funcs() == before + 2);
  std::string previous;
  for (int32_t i = 0; i < vtac_num_funcs(); ++i) {
    std::string name = vtac_func_name(i);
    CHECK(previous < name);
    previous = name;
  }
  CHECK(vtac_func_name(vtac_num_funcs()) == nullptr);
  vtac_remove_func("test.zz");
  vtac_remove_func("test.aa");
}

TEST_CASE("registry: tensor sizes", "[relax][registry]") {
  int64_t shape[2] = {3, 5};
  vtac_tensor t{nullptr, {VTAC_DTYPE_FLOAT, 32, 1}, 2, shape};
  CHECK(vtac_tensor_num_elements(&t) == 15);
  CHECK(vtac_tensor_num_bytes(&t) == 60);
}
