// The process-wide registry of source files behind SourceLoc::file, and diagnostic formatting.
#include "vtac/ir/SourceLoc.h"

#include <deque>
#include <mutex>

#include <llvm/ADT/SmallVector.h>

namespace vtac::ir {
namespace {

struct SourceFile {
  std::string name;
  std::string text;
  std::vector<uint32_t> lineStarts;  // offset of each line's first character
};

struct Registry {
  std::mutex mutex;
  std::deque<SourceFile> files;  // id i+1 is files[i]; a deque keeps references stable
};

Registry &registry() {
  static Registry instance;
  return instance;
}

const SourceFile *lookup(uint32_t file) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (file == 0 || file > r.files.size()) return nullptr;
  return &r.files[file - 1];
}

}  // namespace

uint32_t registerSourceFile(llvm::StringRef name, std::string text) {
  SourceFile file{name.str(), std::move(text), {0}};
  for (uint32_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n') file.lineStarts.push_back(i + 1);
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.files.push_back(std::move(file));
  return uint32_t(r.files.size());
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
  }
  return "error";
}

std::string formatDiagnostic(const SourceLoc &loc, Severity severity, llvm::StringRef message) {
  std::string out;
  if (loc.isKnown()) {
    out += sourceFileName(loc.file) + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.column) + ": ";
  }
  out += severityName(severity);
  out += ": ";
  out += message.str();
  out += "\n";
  if (!loc.isKnown()) return out;
  std::string line = sourceLine(loc.file, loc.line);
  if (line.empty()) return out;
  out += line + "\n";
  // Tabs in the prefix are kept so the caret lines up under the same column in a terminal.
  for (uint32_t i = 1; i < loc.column && i - 1 < line.size(); ++i) out += line[i - 1] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

}  // namespace vtac::ir
