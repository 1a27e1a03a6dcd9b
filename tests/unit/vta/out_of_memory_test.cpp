// Out of memory inside the VTA runtime, the simulator and the function registry: std::bad_alloc
// (or any exception) must not leave their C entry points (vta/api_boundary.h). This binary
// replaces the global operator new so that the N-th allocation throws — in the test and, through
// symbol interposition, in the shared libraries — and walks N over every allocation a small
// program makes.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "vta/driver.h"
#include "vtac/func_registry.h"
#include "vta_test_support.h"

namespace {

// Allocations left before the one that fails; negative: none fails.
std::atomic<long> allocationsBeforeFailure{-1};
std::atomic<bool> failureInjected{false};

void* allocate(std::size_t size) {
  if (allocationsBeforeFailure.load() >= 0 && allocationsBeforeFailure.fetch_sub(1) == 0) {
    failureInjected = true;
    throw std::bad_alloc();
  }
  if (void* memory = std::malloc(size ? size : 1)) return memory;
  throw std::bad_alloc();
}

// Runs `body` with the `n`-th allocation failing; true when that allocation happened.
template <typename Body>
bool withFailingAllocation(long n, Body&& body) {
  failureInjected = false;
  allocationsBeforeFailure = n;
  body();
  allocationsBeforeFailure = -1;
  return failureInjected;
}

bool contains(const std::string& text, const char* fragment) {
  return text.find(fragment) != std::string::npos;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }

using namespace vta::test;

TEST_CASE("VTADeviceAlloc out of memory returns NULL and records the error", "[vta][oom]") {
  VTASimSetConfig(nullptr);
  long n = 0;
  for (;; ++n) {
    VTASimClearError();
    VTADeviceHandle device = nullptr;
    bool failed = withFailingAllocation(n, [&] { REQUIRE_NOTHROW(device = VTADeviceAlloc()); });
    if (!failed) {
      REQUIRE(device != nullptr);
      VTADeviceFree(device);
      break;
    }
    CAPTURE(n);
    CHECK(device == nullptr);
    CHECK(std::string(VTASimLastError()) == "VTADeviceAlloc: out of memory");
  }
  CHECK(n > 0);  // the device's allocations were each made to fail once
}

TEST_CASE("a program whose every allocation fails in turn reports errors, then runs", "[vta][oom]") {
  ConfigGuard guard(R"({"TARGET": "sim"})");
  const vta::Config& c = guard.config();
  const uint32_t tiles = 8, lanes = c.batch * c.blockOut;
  std::vector<int32_t> values(tiles * lanes);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i % 100);
  DeviceBuffer input(values.size() * 4), output(tiles * c.outElemBytes);  // per tile
  input.upload(values);
  auto program = [&] {
    VTACommandHandle cmd = VTATLSCommandHandle();
    VTALoadBuffer2D(cmd, input.handle(), 0, tiles, 1, tiles, 0, 0, 0, 0, 0, kMemAcc);
    pushAlu({tiles, 0, 0, kAluAdd, 1, 3});
    VTADepPush(cmd, kComputeQueue, kStoreQueue);
    VTADepPop(cmd, kComputeQueue, kStoreQueue);
    VTAStoreBuffer2D(cmd, 0, kMemOut, output.handle(), 0, tiles, 1, tiles);
    VTASynchronize(cmd, 1u << 31);
  };
  long n = 0;
  for (;; ++n) {
    VTARuntimeShutdown();  // a fresh command queue, so its allocations are made again
    VTARuntimeClearError();
    VTASimClearError();
    bool failed = withFailingAllocation(n, [&] { REQUIRE_NOTHROW(program()); });
    if (!failed) break;
    CAPTURE(n);
    const std::string runtimeError = VTARuntimeLastError(), simError = VTASimLastError();
    CAPTURE(runtimeError, simError);
    CHECK((VTARuntimeErrorCount() > 0 || !simError.empty()));
    CHECK((contains(runtimeError, "out of memory") || contains(simError, "out of memory") ||
           VTARuntimeErrorCount() > 1));
  }
  CHECK(n > 10);
  // The libraries are still sound: the program runs and computes x + 3 (int8 output).
  VTARuntimeShutdown();
  VTARuntimeClearError();
  program();
  CHECK(VTARuntimeErrorCount() == 0);
  std::vector<int8_t> result = output.download<int8_t>();
  REQUIRE(result.size() == values.size());
  for (size_t i = 0; i < result.size(); ++i) CHECK(result[i] == static_cast<int8_t>(values[i] + 3));
}

TEST_CASE("the function registry's C API returns failure values when out of memory", "[vta][oom]") {
  const auto fn = [](const vtac_tensor*, int32_t, void*) { return 0; };
  long n = 0;
  for (;; ++n) {
    vtac_set_last_error("");
    int registered = 0;
    const bool failed = withFailingAllocation(n, [&] {
      registered = vtac_register_func("oom.test_function_with_a_name_longer_than_inline", fn,
                                      nullptr, /*override=*/1);
    });
    if (!failed) {
      REQUIRE(registered == 0);
      break;
    }
    CHECK(registered == -1);
    CHECK(contains(vtac_get_last_error(), "vtac_register_func: out of memory"));
  }
  CHECK(n > 0);  // the name's copy (and the map node) allocate
  // The lookup copies the name into a std::string too.
  const bool failed = withFailingAllocation(0, [] {
    vtac_packed_func found = nullptr;
    CHECK(vtac_get_func("oom.test_function_with_a_name_longer_than_inline", &found, nullptr) == -1);
  });
  CHECK(failed);
  CHECK(contains(vtac_get_last_error(), "vtac_get_func: out of memory"));
  vtac_packed_func found = nullptr;
  CHECK(vtac_get_func("oom.test_function_with_a_name_longer_than_inline", &found, nullptr) == 0);
  CHECK(found != nullptr);
  // Setting a long message needs memory; failing, it leaves a short one.
  CHECK(withFailingAllocation(0, [] {
    vtac_set_last_error("a message long enough to need memory of its own, so allocation fails");
  }));
  CHECK(contains(vtac_get_last_error(), "out of memory"));
  CHECK(vtac_remove_func("oom.test_function_with_a_name_longer_than_inline") == 0);
}
