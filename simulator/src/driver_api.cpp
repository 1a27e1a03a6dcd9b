// The C entry points of libvta_sim: the driver API of vta/driver.h and the simulator API of
// vta/sim.h. Errors never abort: they are logged, recorded (VTASimLastError) and returned;
// exceptions (std::bad_alloc) stop at the boundary the same way (vta/api_boundary.h).
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <spdlog/fmt/fmt.h>

#include "device.h"
#include "device_memory.h"
#include "sim_state.h"
#include "vta/api_boundary.h"
#include "vta/driver.h"
#include "vta/sim.h"

#define VTA_SIM_API extern "C" __attribute__((visibility("default")))

namespace vta::sim {
namespace {

std::mutex devicesMutex;
std::set<Device*>& liveDevices() {
  static auto* devices = new std::set<Device*>();
  return *devices;
}

// The GEMM kernel requested by name; the kernel itself is chosen per device shape.
std::mutex kernelMutex;
std::string& requestedKernel() {
  static auto* name = [] {
    const char* fromEnvironment = std::getenv("VTA_SIM_GEMM_KERNEL");
    return new std::string(fromEnvironment && *fromEnvironment ? fromEnvironment : "auto");
  }();
  return *name;
}

const GemmKernel& kernelFor(const Config& config) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  const GemmShape shape{config.batch, config.blockIn, config.blockOut};
  if (const GemmKernel* kernel = selectGemmKernel(requestedKernel().c_str(), shape)) return *kernel;
  reportError("VTA_SIM_GEMM_KERNEL: '" + requestedKernel() +
              "' is unknown or not supported by this CPU; using the fastest available");
  requestedKernel() = "auto";
  return *selectGemmKernel("auto", shape);
}

}  // namespace
}  // namespace vta::sim

using namespace vta::sim;
using vta::atApiBoundary;

VTA_SIM_API VTADeviceHandle VTADeviceAlloc() {
  return atApiBoundary("VTADeviceAlloc", reportError, VTADeviceHandle(nullptr), []() -> VTADeviceHandle {
    const vta::Config config = activeConfig();
    auto layout = vta::isa::Layout::forConfig(config);
    if (!layout) {  // cannot happen: the configuration was validated when it was set
      reportError(llvm::toString(layout.takeError()));
      return nullptr;
    }
    auto device = std::make_unique<Device>(config, *layout);
    std::lock_guard<std::mutex> lock(devicesMutex);
    liveDevices().insert(device.get());
    return device.release();
  });
}

VTA_SIM_API void VTADeviceFree(VTADeviceHandle handle) {
  atApiBoundary("VTADeviceFree", reportError, [&] {
    auto* device = static_cast<Device*>(handle);
    {
      std::lock_guard<std::mutex> lock(devicesMutex);
      if (!liveDevices().erase(device)) {
        reportError(fmt::format("VTADeviceFree: {} is not a live device", handle));
        return;
      }
    }
    delete device;
  });
}

VTA_SIM_API int VTADeviceRun(VTADeviceHandle handle, vta_phy_addr_t insn_phy_addr,
                             uint32_t insn_count, uint32_t wait_cycles) {
  return atApiBoundary("VTADeviceRun", reportError, VTA_SIM_ERR_INTERNAL, [&] {
    auto* device = static_cast<Device*>(handle);
    {
      std::lock_guard<std::mutex> lock(devicesMutex);
      if (!liveDevices().count(device)) {
        reportError(fmt::format("VTADeviceRun: {} is not a live device", handle));
        return VTA_SIM_ERR_BAD_ARGUMENT;
      }
    }
    RunResult result =
        device->run(insn_phy_addr, insn_count, kernelFor(device->config()), threadStatistics());
    if (result.status != VTA_SIM_OK) reportError(result.message);
    return result.status;
  });
}

VTA_SIM_API void* VTAMemAlloc(size_t size, int cached) {
  return atApiBoundary("VTAMemAlloc", reportError, static_cast<void*>(nullptr), [&] {
    void* buffer = DeviceMemory::global().alloc(size);
    if (!buffer) reportError(fmt::format("VTAMemAlloc: cannot allocate {} bytes of device memory", size));
    return buffer;
  });
}

VTA_SIM_API void VTAMemFree(void* buf) {
  atApiBoundary("VTAMemFree", reportError, [&] {
    if (buf && !DeviceMemory::global().free(buf))
      reportError(fmt::format("VTAMemFree: {} is not a live device allocation (freed twice?)", buf));
  });
}

VTA_SIM_API vta_phy_addr_t VTAMemGetPhyAddr(void* buf) {
  return atApiBoundary("VTAMemGetPhyAddr", reportError, vta_phy_addr_t(0), [&] {
    auto phy = DeviceMemory::global().physicalAddress(buf);
    if (!phy) {
      reportError(fmt::format("VTAMemGetPhyAddr: {} is not inside a device allocation", buf));
      return vta_phy_addr_t(0);
    }
    return static_cast<vta_phy_addr_t>(*phy);
  });
}

VTA_SIM_API void VTAMemCopyFromHost(void* dst, const void* src, size_t size) {
  if (size) std::memcpy(dst, src, size);
}

VTA_SIM_API void VTAMemCopyToHost(void* dst, const void* src, size_t size) {
  if (size) std::memcpy(dst, src, size);
}

// The simulator's memory is the host's: nothing to flush or invalidate.
VTA_SIM_API void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size) {}

VTA_SIM_API void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size) {}

VTA_SIM_API const char* VTASimStatsJSON(void) {
  return atApiBoundary("VTASimStatsJSON", reportError, "", [] {
    thread_local std::string json;
    json = threadStatistics().toJSON();
    return json.c_str();
  });
}

VTA_SIM_API void VTASimSetTrace(void (*callback)(const char* line, void* context), void* context) {
  threadTrace() = Trace{callback, context};
}

VTA_SIM_API void VTASimSetTimeline(void (*callback)(const VTASimTimelineEntry* entry, void* context),
                                   void* context) {
  threadTimeline() = Timeline{callback, context};
}

VTA_SIM_API void VTASimSetRunLimits(uint64_t max_instructions, double timeout_seconds) {
  RunLimits limits;
  limits.maxInstructions = max_instructions;
  limits.timeoutSeconds = timeout_seconds > 0 ? timeout_seconds : 0;
  if (limits.timeoutSeconds > 0)
    limits.deadline = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(limits.timeoutSeconds));
  threadRunLimits() = limits;
}

VTA_SIM_API void VTASimClearStats(void) { threadStatistics() = Statistics{}; }

VTA_SIM_API uint64_t VTASimProgramValidations(void) { return threadProgramValidations(); }

VTA_SIM_API int VTASimSetConfig(const char* path_or_json) {
  return atApiBoundary("VTASimSetConfig", reportError, -1, [&] {
    if (llvm::Error error = setActiveConfig(path_or_json)) {
      reportError("VTASimSetConfig: " + llvm::toString(std::move(error)));
      return -1;
    }
    return 0;
  });
}

VTA_SIM_API const char* VTASimConfigJSON(void) {
  return atApiBoundary("VTASimConfigJSON", reportError, "", [] {
    thread_local std::string json;
    json = activeConfig().toJSON();
    return json.c_str();
  });
}

VTA_SIM_API const char* VTASimLastError(void) { return lastError().c_str(); }

VTA_SIM_API void VTASimClearError(void) { clearError(); }

VTA_SIM_API int VTASimSetGemmKernel(const char* name) {
  return atApiBoundary("VTASimSetGemmKernel", reportError, -1, [&] {
    const vta::Config config = activeConfig();
    if (!name || !selectGemmKernel(name, {config.batch, config.blockIn, config.blockOut})) {
      reportError(fmt::format("VTASimSetGemmKernel: '{}' is unknown or not supported by this CPU",
                              name ? name : "(null)"));
      return -1;
    }
    std::lock_guard<std::mutex> lock(kernelMutex);
    requestedKernel() = name;
    return 0;
  });
}

VTA_SIM_API const char* VTASimGemmKernel(void) {
  return atApiBoundary("VTASimGemmKernel", reportError, "", [] { return kernelFor(activeConfig()).name; });
}
