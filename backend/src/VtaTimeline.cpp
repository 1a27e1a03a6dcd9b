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

std::string VtaTimelineScope::json() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\"instructions\": [";
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
