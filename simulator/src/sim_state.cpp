#include "sim_state.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace vta::sim {

void Statistics::addTiming(const ProgramTiming& timing) {
  cycles += timing.cycles;
  for (int module = 0; module < kNumTimingModules; ++module) {
    modules[module].busy += timing.modules[module].busy;
    modules[module].stalled += timing.modules[module].stalled;
  }
}

// TVM's counters first, in TVM's order, then vtac's own.
std::string Statistics::toJSON() const {
  std::string json = fmt::format(
      "{{\n \"inp_load_nbytes\": {},\n \"wgt_load_nbytes\": {},\n \"acc_load_nbytes\": {},\n"
      " \"uop_load_nbytes\": {},\n \"out_store_nbytes\": {},\n \"gemm_counter\": {},\n"
      " \"alu_counter\": {},\n \"insn_counter\": {},\n \"finish_counter\": {},\n"
      " \"cycles\": {}",
      inpLoadBytes, wgtLoadBytes, accLoadBytes, uopLoadBytes, outStoreBytes, gemmCounter,
      aluCounter, insnCounter, finishCounter, cycles);
  for (int module = 0; module < kNumTimingModules; ++module)
    json += fmt::format(",\n \"{0}_busy_cycles\": {1},\n \"{0}_stalled_cycles\": {2}",
                        timingModuleName(module), modules[module].busy, modules[module].stalled);
  return json + "\n}\n";
}

Trace& threadTrace() {
  thread_local Trace trace;
  return trace;
}

Timeline& threadTimeline() {
  thread_local Timeline timeline;
  return timeline;
}

RunLimits& threadRunLimits() {
  thread_local RunLimits limits;
  return limits;
}

Statistics& threadStatistics() {
  thread_local Statistics statistics;
  return statistics;
}

uint64_t& threadProgramValidations() {
  thread_local uint64_t validations = 0;
  return validations;
}

namespace {
std::string& threadLastError() {
  thread_local std::string error;
  return error;
}

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("vta_sim");
    return existing ? existing : spdlog::stderr_color_mt("vta_sim");
  }();
  return *instance;
}

ConfigSlot& configSlot() {
  // Never destroyed: devices may ask for it while the process exits.
  static ConfigSlot* slot = new ConfigSlot(reportError);
  return *slot;
}
}  // namespace

void reportError(const std::string& message) {
  logger().error("{}", message);
  threadLastError() = message;
}

const std::string& lastError() { return threadLastError(); }

void clearError() { threadLastError().clear(); }

// Devices copy the configuration when allocated, so replacing it later is safe.
Config activeConfig() { return configSlot().current().config; }

llvm::Error setActiveConfig(const char* pathOrJSON) { return configSlot().replace(pathOrJSON); }

}  // namespace vta::sim
