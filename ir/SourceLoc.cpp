// The process-wide registry of source files behind SourceLoc::file, and diagnostic formatting.
#include "vtac/ir/SourceLoc.h"

#include "vtac/ir/DisplayText.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <mutex>

#include <llvm/ADT/SmallVector.h>

namespace vtac::ir {
namespace {

struct SourceFile {
  std::string name;
  std::string text;
  std::vector<uint32_t> lineStarts;  // offset of each line's first character
  // An expansion entry (see expansionLoc) has no text of its own: it stands for `expandedIn`,
  // and diagnostics add `note` at `origin`.
  uint32_t expandedIn = 0;
  SourceLoc origin;
  std::string note;
};

struct Registry {
  std::mutex mutex;
  std::deque<SourceFile> files;  // id i+1 is files[i]; a deque keeps references stable
};

Registry &registry() {
  static Registry instance;
  return instance;
}

const SourceFile *lookupEntry(uint32_t file) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (file == 0 || file > r.files.size()) return nullptr;
  return &r.files[file - 1];
}

// The file with text behind an id: an expansion entry stands for the file it was expanded in.
const SourceFile *lookup(uint32_t file) {
  const SourceFile *entry = lookupEntry(file);
  while (entry && entry->expandedIn != 0) entry = lookupEntry(entry->expandedIn);
  return entry;
}

uint32_t addEntry(SourceFile file) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.files.push_back(std::move(file));
  return uint32_t(r.files.size());
}

}  // namespace

uint32_t registerSourceFile(llvm::StringRef name, std::string text) {
  SourceFile file;
  file.name = name.str();
  file.text = std::move(text);
  file.lineStarts = {0};
  for (uint32_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n') file.lineStarts.push_back(i + 1);
  return addEntry(std::move(file));
}

SourceLoc expansionLoc(const SourceLoc &at, const SourceLoc &origin, std::string note) {
  SourceFile entry;
  entry.expandedIn = at.file;
  entry.origin = origin;
  entry.note = std::move(note);
  return {addEntry(std::move(entry)), at.line, at.column};
}

std::string sourceFileName(uint32_t file) {
  const SourceFile *f = lookup(file);
  return f ? f->name : "<unknown>";
}

std::string sourceLine(uint32_t file, uint32_t line) {
  const SourceFile *f = lookup(file);
  if (!f || line == 0 || line > f->lineStarts.size()) return "";
  size_t begin = f->lineStarts[line - 1];
  size_t end = line < f->lineStarts.size() ? f->lineStarts[line] - 1 : f->text.size();
  if (end > begin && f->text[end - 1] == '\r') --end;
  return f->text.substr(begin, end - begin);
}

static const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  case Severity::Remark: return "remark";
  }
  return "error";
}

namespace {

// Longest message and widest source excerpt a diagnostic shows: a huge name or a line of
// megabytes must not flood the terminal.
constexpr size_t kMaxMessageLength = 1000;
constexpr size_t kMaxExcerptWidth = 160;

}  // namespace

std::string displayText(llvm::StringRef message) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    if (out.size() >= kMaxMessageLength) {
      out += "... (" + std::to_string(message.size() - i) + " more bytes)";
      break;
    }
    unsigned char c = static_cast<unsigned char>(message[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out;
}

namespace {

// One diagnostic line, with the source line and caret when known.
std::string formatOne(const SourceLoc &loc, Severity severity, llvm::StringRef message) {
  std::string out;
  if (loc.isKnown()) {
    out += displayText(sourceFileName(loc.file)) + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.column) + ": ";
  }
  out += severityName(severity);
  out += ": ";
  out += displayText(message);
  out += "\n";
  if (!loc.isKnown()) return out;
  std::string line = sourceLine(loc.file, loc.line);
  if (line.empty()) return out;
  // A long line shows the part around the column, marked with "..." where it is cut.
  size_t caret = std::min<size_t>(loc.column == 0 ? 0 : loc.column - 1, line.size());
  size_t start = 0;
  std::string lead;
  if (line.size() > kMaxExcerptWidth) {
    start = caret > kMaxExcerptWidth / 2 ? caret - kMaxExcerptWidth / 2 : 0;
    lead = start > 0 ? "..." : "";
    bool cutEnd = start + kMaxExcerptWidth < line.size();
    line = lead + line.substr(start, kMaxExcerptWidth) + (cutEnd ? "..." : "");
  }
  // Control bytes become '?', one column each, so the caret still lines up.
  for (char &c : line)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = '?';
  out += line + "\n";
  // Tabs in the prefix are kept so the caret lines up under the same column in a terminal.
  size_t column = lead.size() + (caret - start);
  for (size_t i = 0; i < column && i < line.size(); ++i) out += line[i] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

}  // namespace

std::string formatDiagnostic(const SourceLoc &loc, Severity severity, llvm::StringRef message) {
  std::string out = formatOne(loc, severity, message);
  // Each expansion the location is in adds a note where the code came from.
  for (const SourceFile *entry = lookupEntry(loc.file); entry && entry->expandedIn != 0;
       entry = lookupEntry(entry->origin.file))
    out += formatOne(entry->origin, Severity::Note, entry->note);
  return out;
}

}  // namespace vtac::ir
