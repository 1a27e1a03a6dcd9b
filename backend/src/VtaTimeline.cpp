#include "vtac/backend/VtaTimeline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace vtac::backend {

VtaTimelineScope::VtaTimelineScope(bool enabled) : enabled_(enabled) {
  if (enabled_) VTASimSetTimeline(&append, this);
}

VtaTimelineScope::~VtaTimelineScope() {
  if (enabled_) VTASimSetTimeline(nullptr, nullptr);
}

void VtaTimelineScope::append(const VTASimTimelineEntry *entry, void *scope) {
  static_cast<VtaTimelineScope *>(scope)->entries_.push_back(*entry);
}

namespace {
// The clock the active configuration's cycles count (its "timing" object), 0 if unknown.
int64_t clockMhz() {
  llvm::Expected<llvm::json::Value> config = llvm::json::parse(VTASimConfigJSON());
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  const llvm::json::Object *object = config->getAsObject();
  const llvm::json::Object *timing = object ? object->getObject("timing") : nullptr;
  return timing ? timing->getInteger("clock_mhz").value_or(0) : 0;
}
}  // namespace

std::string VtaTimelineScope::json() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\"clock_mhz\": " << clockMhz() << ", \"instructions\": [";
  for (size_t i = 0; i < entries_.size(); ++i) {
    const VTASimTimelineEntry &entry = entries_[i];
    os << (i ? ",\n " : "\n ")
       << llvm::json::Value(llvm::json::Object{{"index", static_cast<int64_t>(entry.index)},
                                               {"module", entry.module},
                                               {"opcode", entry.opcode},
                                               {"start", static_cast<int64_t>(entry.start_cycle)},
                                               {"end", static_cast<int64_t>(entry.end_cycle)}});
  }
  os << "\n]}\n";
  return os.str();
}

}  // namespace vtac::backend
