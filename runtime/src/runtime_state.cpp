#include "runtime_state.h"

#include <mutex>
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

std::mutex configMutex;
ActiveConfig* configSlot() {
  static ActiveConfig* active = [] {
    auto fromEnvironment = Config::fromEnvironment();
    if (fromEnvironment) return new ActiveConfig{*fromEnvironment, 1};
    reportError("VTA_CONFIG: " + llvm::toString(fromEnvironment.takeError()) +
                "; using the default configuration");
    return new ActiveConfig{Config::tvmDefault(), 1};
  }();
  return active;
}

}  // namespace

ActiveConfig activeConfig() {
  std::lock_guard<std::mutex> lock(configMutex);
  return *configSlot();
}

llvm::Error setActiveConfig(const char* pathOrJSON) {
  auto config = pathOrJSON ? Config::fromPathOrJSON(pathOrJSON) : Config::tvmDefault();
  if (!config) return config.takeError();
  std::lock_guard<std::mutex> lock(configMutex);
  ActiveConfig* active = configSlot();
  active->config = *config;
  ++active->generation;
  return llvm::Error::success();
}

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
