// VTA hardware configuration: the nine parameters of TVM's vta_config.json and every size
// derived from them (tile shapes, element bytes, SRAM depths, field widths).
//
// Shared by the runtime and the simulator as a static library compiled into each (so neither
// library depends on the other), and usable by the compiler. Nothing here hard-codes the
// default's 16s: a BATCH = 2 or BLOCK = 32 configuration changes every derived value.
#ifndef VTA_CONFIG_H_
#define VTA_CONFIG_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "llvm/Support/Error.h"

namespace vta {

// The parameters of the simulator's timing model (vta_config.json's "timing" object), in cycles
// of the accelerator clock and bytes. The defaults are the PYNQ design's; docs/timing-model.md
// says where each comes from.
struct TimingParameters {
  uint32_t clockMhz = 100;            // the clock the cycles count (for reports in time)
  uint32_t memBusBytes = 8;           // bytes a DMA moves per cycle (the AXI data width)
  uint32_t maxBurstBeats = 256;       // bus transfers per DMA request (AXI4 burst length)
  uint32_t dramLatency = 32;          // cycles from a DMA request to its first transfer
  uint32_t gemmII = 1;                // cycles between GEMM micro-op iterations
  uint32_t gemmPipelineDepth = 4;     // cycles from a GEMM's last issue to its last write
  uint32_t aluII = 2;                 // cycles between ALU micro-op iterations
  uint32_t aluPipelineDepth = 4;      // cycles from an ALU's last issue to its last write
  uint32_t insnQueueDepth = 512;      // instructions each module's command queue holds
};

struct Config {
  // The parameters as written in vta_config.json.
  std::string target = "sim";
  std::string hwVersion = "0.0.2";
  uint32_t logInpWidth = 3;
  uint32_t logWgtWidth = 3;
  uint32_t logAccWidth = 5;
  uint32_t logBatch = 0;
  uint32_t logBlock = 4;
  uint32_t logUopBuffSize = 15;
  uint32_t logInpBuffSize = 15;
  uint32_t logWgtBuffSize = 18;
  uint32_t logAccBuffSize = 17;

  // Derived values (filled by derive(); the output element has the input's width).
  uint32_t inpWidth = 0, wgtWidth = 0, accWidth = 0, outWidth = 0;  // bits per scalar
  uint32_t batch = 0, blockIn = 0, blockOut = 0;
  uint32_t inpElemBytes = 0, wgtElemBytes = 0, accElemBytes = 0, outElemBytes = 0;
  uint32_t uopElemBytes = 4, insnElemBytes = 16;
  uint32_t logInpDepth = 0, logWgtDepth = 0, logAccDepth = 0, logUopDepth = 0;
  uint32_t inpDepth = 0, wgtDepth = 0, accDepth = 0, uopDepth = 0;

  TimingParameters timing;

  // TVM's default configuration (vta_config.json, target "sim").
  static Config tvmDefault();

  // Parses vta_config.json text; missing keys keep the default; derived values are filled.
  static llvm::Expected<Config> fromJSON(llvm::StringRef text);

  // A path to a JSON file, or JSON text if it starts with '{'.
  static llvm::Expected<Config> fromPathOrJSON(llvm::StringRef pathOrJSON);

  // The VTA_CONFIG environment variable (path or JSON text) or, if unset, the default.
  static llvm::Expected<Config> fromEnvironment();

  // vta_config.json text of the nine parameters (+ TARGET, HW_VER) and the timing object.
  std::string toJSON() const;

  // Short tag such as "1x16_i8w8a32_15_15_18_17" (TVM's bitstream naming).
  std::string name() const;

  // Element bytes in DRAM of a memory type (VTA_MEM_ID_*), 0 for an unknown type.
  uint32_t dramElemBytes(uint32_t memoryType) const;

private:
  // Computes the derived values; fails for parameters this implementation cannot model.
  llvm::Error derive();
};

// The configuration one library works with: read from VTA_CONFIG when first asked for (an
// unusable VTA_CONFIG is passed to `report` and the default used instead), replaceable at run
// time. The runtime and the simulator each hold their own slot, so neither reads the other's
// state; the generation tells a holder of an older snapshot that it is stale.
class ConfigSlot {
public:
  struct Snapshot {
    Config config;
    uint64_t generation;  // 1 for the first configuration, +1 for every replacement
  };
  using ErrorReporter = void (*)(const std::string& message);

  explicit ConfigSlot(ErrorReporter report) : report_(report) {}

  Snapshot current();
  // A path or JSON text as Config::fromPathOrJSON takes it; nullptr restores the default.
  llvm::Error replace(const char* pathOrJSON);

private:
  Snapshot& loadedLocked();

  std::mutex mutex_;
  ErrorReporter report_;
  std::optional<Snapshot> snapshot_;
};

}  // namespace vta

#endif  // VTA_CONFIG_H_
