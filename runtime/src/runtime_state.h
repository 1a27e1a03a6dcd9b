// Process- and thread-wide state of libvta_runtime: the active hardware configuration (with a
// generation number that invalidates micro-kernels recorded under an older one) and the error
// record behind VTARuntimeLastError.
#ifndef VTA_RUNTIME_RUNTIME_STATE_H_
#define VTA_RUNTIME_RUNTIME_STATE_H_

#include <cstdint>
#include <string>

#include "vta/config.h"

namespace vta::runtime {

ConfigSlot::Snapshot activeConfig();
llvm::Error setActiveConfig(const char* pathOrJSON);

// Logs through spdlog and records as the calling thread's last error.
void reportError(const std::string& message);
const std::string& lastError();
int errorCount();
void clearErrors();

// Prints debug dumps (VTA_DEBUG_DUMP_INSN / _UOP) through spdlog at info level.
void logInfo(const std::string& message);

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_RUNTIME_STATE_H_
