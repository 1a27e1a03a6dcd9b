#include "runtime_state.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace vta::runtime {

namespace {

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto existing = spdlog::get("vta_runtime");
    return existing ? existing : spdlog::stderr_color_mt("vta_runtime");
  }();
  return *instance;
}

struct ErrorRecord {
  std::string last;
  int count = 0;
};

ErrorRecord& threadErrors() {
  thread_local ErrorRecord record;
  return record;
}

ConfigSlot& configSlot() {
  // Never destroyed: devices and command queues may ask for it while the process exits.
  static ConfigSlot* slot = new ConfigSlot(reportError);
  return *slot;
}

}  // namespace

ConfigSlot::Snapshot activeConfig() { return configSlot().current(); }

llvm::Error setActiveConfig(const char* pathOrJSON) { return configSlot().replace(pathOrJSON); }

void reportError(const std::string& message) {
  logger().error("{}", message);
  ErrorRecord& record = threadErrors();
  record.last = message;
  ++record.count;
}

const std::string& lastError() { return threadErrors().last; }

int errorCount() { return threadErrors().count; }

void clearErrors() { threadErrors() = ErrorRecord{}; }

void logInfo(const std::string& message) { logger().info("{}", message); }

}  // namespace vta::runtime
