// Parsing of vta_config.json (LLVM's JSON parser) and the derived sizes of a configuration.
#include "vta/config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "vta/isa.h"

namespace vta {

namespace {

llvm::Error configError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "vta_config: " + message.str());
}

struct IntKey {
  const char* name;
  uint32_t Config::*member;
};

constexpr IntKey kIntKeys[] = {
    {"LOG_INP_WIDTH", &Config::logInpWidth},         {"LOG_WGT_WIDTH", &Config::logWgtWidth},
    {"LOG_ACC_WIDTH", &Config::logAccWidth},         {"LOG_BATCH", &Config::logBatch},
    {"LOG_BLOCK", &Config::logBlock},                {"LOG_UOP_BUFF_SIZE", &Config::logUopBuffSize},
    {"LOG_INP_BUFF_SIZE", &Config::logInpBuffSize},  {"LOG_WGT_BUFF_SIZE", &Config::logWgtBuffSize},
    {"LOG_ACC_BUFF_SIZE", &Config::logAccBuffSize},
};

struct TimingKey {
  const char* name;
  uint32_t TimingParameters::*member;
  uint32_t min;  // 0 only where no cost at all is meaningful (a latency)
};

constexpr TimingKey kTimingKeys[] = {
    {"clock_mhz", &TimingParameters::clockMhz, 1},
    {"mem_bus_bytes", &TimingParameters::memBusBytes, 1},
    {"max_burst_beats", &TimingParameters::maxBurstBeats, 1},
    {"dram_latency", &TimingParameters::dramLatency, 0},
    {"gemm_ii", &TimingParameters::gemmII, 1},
    {"gemm_pipeline_depth", &TimingParameters::gemmPipelineDepth, 0},
    {"alu_ii", &TimingParameters::aluII, 1},
    {"alu_pipeline_depth", &TimingParameters::aluPipelineDepth, 0},
    {"insn_queue_depth", &TimingParameters::insnQueueDepth, 1},
};
// Large enough for any design, small enough that no cost overflows 64 bits.
constexpr int64_t kMaxTimingValue = int64_t{1} << 20;

// The "timing" object: every key optional, an unknown one (a misspelt name would silently keep
// the default) an error.
llvm::Error parseTiming(const llvm::json::Value& value, TimingParameters& timing) {
  const llvm::json::Object* object = value.getAsObject();
  if (!object) return configError("timing must be a JSON object");
  for (const auto& [name, entry] : *object) {
    const TimingKey* key = std::find_if(std::begin(kTimingKeys), std::end(kTimingKeys),
                                        [&](const TimingKey& k) { return name == k.name; });
    if (key == std::end(kTimingKeys)) {
      std::string known;
      for (const TimingKey& k : kTimingKeys) known += std::string(known.empty() ? "" : ", ") + k.name;
      return configError("timing: unknown key '" + name.str() + "' (keys: " + known + ")");
    }
    auto integer = entry.getAsInteger();
    if (!integer || *integer < key->min || *integer > kMaxTimingValue)
      return configError(llvm::Twine("timing.") + key->name + " must be an integer in [" +
                         llvm::Twine(key->min) + ", " + llvm::Twine(kMaxTimingValue) + "]");
    timing.*key->member = static_cast<uint32_t>(*integer);
  }
  return llvm::Error::success();
}

// log2 of the depth of an SRAM of 2^logBytes bytes holding elements of 2^logElemBits bits.
llvm::Expected<uint32_t> logDepth(const char* what, uint32_t logBytes, uint32_t logElemBits) {
  if (logBytes + 3 < logElemBits)
    return configError(llvm::Twine(what) + " buffer is smaller than one element");
  return logBytes + 3 - logElemBits;
}

}  // namespace

Config Config::tvmDefault() {
  Config config;
  llvm::cantFail(config.derive());
  return config;
}

llvm::Error Config::derive() {
  // The simulator's arithmetic is int8 x int8 -> int32 (as TVM's functional simulator, whose
  // 8-bit accumulator loads assume exactly these widths); shapes and buffer sizes are free.
  if (logInpWidth != 3 || logWgtWidth != 3 || logAccWidth != 5)
    return configError("only LOG_INP_WIDTH = LOG_WGT_WIDTH = 3 and LOG_ACC_WIDTH = 5 "
                       "(int8 inputs and weights, int32 accumulators) are supported");
  if (logBatch > 6 || logBlock > 8)
    return configError("LOG_BATCH must be <= 6 and LOG_BLOCK <= 8");
  if (logUopBuffSize > 24 || logInpBuffSize > 28 || logWgtBuffSize > 28 || logAccBuffSize > 28)
    return configError("buffer sizes above 2^28 bytes (2^24 for micro-ops) are not supported");
  inpWidth = 1u << logInpWidth;
  wgtWidth = 1u << logWgtWidth;
  accWidth = 1u << logAccWidth;
  outWidth = inpWidth;
  batch = 1u << logBatch;
  blockIn = blockOut = 1u << logBlock;
  inpElemBytes = batch * blockIn * inpWidth / 8;
  wgtElemBytes = blockOut * blockIn * wgtWidth / 8;
  accElemBytes = batch * blockOut * accWidth / 8;
  outElemBytes = batch * blockOut * outWidth / 8;
  auto inp = logDepth("input", logInpBuffSize, logBatch + logBlock + logInpWidth);
  auto wgt = logDepth("weight", logWgtBuffSize, 2 * logBlock + logWgtWidth);
  auto acc = logDepth("accumulator", logAccBuffSize, logBatch + logBlock + logAccWidth);
  auto uop = logDepth("micro-op", logUopBuffSize, 5);
  for (auto* depth : {&inp, &wgt, &acc, &uop})
    if (!*depth) return depth->takeError();
  logInpDepth = *inp;
  logWgtDepth = *wgt;
  logAccDepth = *acc;
  logUopDepth = *uop;
  inpDepth = 1u << logInpDepth;
  wgtDepth = 1u << logWgtDepth;
  accDepth = 1u << logAccDepth;
  uopDepth = 1u << logUopDepth;
  // The instruction and micro-op layouts must fit their 128 and 32 bits.
  if (auto layout = isa::Layout::forConfig(*this); !layout) return layout.takeError();
  return llvm::Error::success();
}

// vta_config.json is one flat object; LLVM's JSON parser recurses once per nesting level, so
// deeper text is refused before it is parsed.
static constexpr size_t kMaxJSONNesting = 64;

static bool nestedTooDeeply(llvm::StringRef text) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJSONNesting) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

llvm::Expected<Config> Config::fromJSON(llvm::StringRef text) {
  if (nestedTooDeeply(text))
    return configError("invalid JSON: nested too deeply (limit " + llvm::Twine(kMaxJSONNesting) + ")");
  auto parsed = llvm::json::parse(text);
  if (!parsed) return configError("invalid JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object* object = parsed->getAsObject();
  if (!object) return configError("expected a JSON object");
  // An unknown key (a misspelt name would silently keep the default) is an error; keys left out
  // keep TVM's defaults, so a partial object overrides them.
  std::vector<llvm::StringRef> known{"TARGET", "HW_VER", "timing"};
  for (const IntKey& key : kIntKeys) known.push_back(key.name);
  for (const auto& [name, value] : *object) {
    if (std::find(known.begin(), known.end(), name.str()) != known.end()) continue;
    llvm::StringRef closest;
    unsigned distance = 3;  // suggest only a near miss
    for (llvm::StringRef candidate : known)
      if (unsigned d = llvm::StringRef(name).edit_distance(candidate, true, distance); d < distance) {
        distance = d;
        closest = candidate;
      }
    std::string keys;
    for (llvm::StringRef k : known) keys += (keys.empty() ? "" : ", ") + k.str();
    return configError("unknown key '" + name.str() + "'" +
                       (closest.empty() ? std::string() : " (did you mean '" + closest.str() + "'?)") +
                       "; keys: " + keys);
  }
  Config config;
  if (auto target = object->getString("TARGET")) config.target = target->str();
  if (auto version = object->getString("HW_VER")) config.hwVersion = version->str();
  for (const IntKey& key : kIntKeys) {
    const llvm::json::Value* value = object->get(key.name);
    if (!value) continue;
    auto integer = value->getAsInteger();
    if (!integer || *integer < 0 || *integer > 64)
      return configError(llvm::Twine(key.name) + " must be an integer in [0, 64]");
    config.*key.member = static_cast<uint32_t>(*integer);
  }
  if (const llvm::json::Value* timing = object->get("timing"))
    if (llvm::Error error = parseTiming(*timing, config.timing)) return error;
  if (llvm::Error error = config.derive()) return error;
  return config;
}

// A configuration is a few hundred bytes of JSON: reading stops after kMaxConfigBytes, so that an
// endless file (/dev/zero, a pipe) is refused instead of read until memory runs out. (The
// runtime sits below vtac's support library and reads the file itself.)
static llvm::Expected<std::string> readConfigFile(llvm::StringRef path) {
  constexpr size_t kMaxConfigBytes = size_t(1) << 20;
  auto systemError = [](int code) { return llvm::errorCodeToError(std::error_code(code, std::generic_category())); };
  if (llvm::sys::fs::is_directory(path)) return systemError(EISDIR);
  std::ifstream in(path.str(), std::ios::binary);
  if (!in) return systemError(errno);
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (in.bad()) return systemError(errno);
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxConfigBytes)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "more than 1 MiB, which no configuration needs");
  return text;
}

llvm::Expected<Config> Config::fromPathOrJSON(llvm::StringRef pathOrJSON) {
  llvm::StringRef trimmed = pathOrJSON.ltrim();
  if (trimmed.starts_with("{")) return fromJSON(trimmed);
  auto text = readConfigFile(pathOrJSON);
  if (!text) return configError("cannot read '" + pathOrJSON + "': " + llvm::toString(text.takeError()));
  auto config = fromJSON(*text);
  if (!config)
    return configError(pathOrJSON + ": " + llvm::toString(config.takeError()));
  return config;
}

llvm::Expected<Config> Config::fromEnvironment() {
  const char* value = std::getenv("VTA_CONFIG");
  if (!value || !*value) return tvmDefault();
  return fromPathOrJSON(value);
}

ConfigSlot::Snapshot& ConfigSlot::loadedLocked() {
  if (!snapshot_) {
    llvm::Expected<Config> fromEnvironment = Config::fromEnvironment();
    if (fromEnvironment) {
      snapshot_ = Snapshot{*fromEnvironment, 1};
    } else {
      report_("VTA_CONFIG: " + llvm::toString(fromEnvironment.takeError()) +
              "; using the default configuration");
      snapshot_ = Snapshot{Config::tvmDefault(), 1};
    }
  }
  return *snapshot_;
}

ConfigSlot::Snapshot ConfigSlot::current() {
  std::lock_guard<std::mutex> lock(mutex_);
  return loadedLocked();
}

llvm::Error ConfigSlot::replace(const char* pathOrJSON) {
  llvm::Expected<Config> config =
      pathOrJSON ? Config::fromPathOrJSON(pathOrJSON) : Config::tvmDefault();
  if (!config) return config.takeError();
  std::lock_guard<std::mutex> lock(mutex_);
  Snapshot& snapshot = loadedLocked();
  snapshot.config = *config;
  ++snapshot.generation;
  return llvm::Error::success();
}

std::string Config::toJSON() const {
  llvm::json::Object object{{"TARGET", target}, {"HW_VER", hwVersion}};
  for (const IntKey& key : kIntKeys) object[key.name] = static_cast<int64_t>(this->*key.member);
  llvm::json::Object timingObject;
  for (const TimingKey& key : kTimingKeys)
    timingObject[key.name] = static_cast<int64_t>(timing.*key.member);
  object["timing"] = std::move(timingObject);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object)));
  return os.str();
}

std::string Config::name() const {
  return std::to_string(batch) + "x" + std::to_string(blockIn) + "_i" + std::to_string(inpWidth) +
         "w" + std::to_string(wgtWidth) + "a" + std::to_string(accWidth) + "_" +
         std::to_string(logUopBuffSize) + "_" + std::to_string(logInpBuffSize) + "_" +
         std::to_string(logWgtBuffSize) + "_" + std::to_string(logAccBuffSize);
}

uint32_t Config::dramElemBytes(uint32_t memoryType) const {
  switch (memoryType) {
    case isa::kMemUop: return uopElemBytes;
    case isa::kMemWgt: return wgtElemBytes;
    case isa::kMemInp: return inpElemBytes;
    case isa::kMemAcc: return accElemBytes;
    case isa::kMemOut: return outElemBytes;
    // Accumulator tiles stored in DRAM with input-width (8-bit) elements.
    case isa::kMemAcc8Bit: return accElemBytes * inpWidth / accWidth;
    default: return 0;
  }
}

}  // namespace vta
