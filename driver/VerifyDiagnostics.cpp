#include "vtac/driver/VerifyDiagnostics.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "vtac/frontend/SourceFile.h"
#include "vtac/support/BoundedRead.h"

namespace vtac::driver {

namespace {

struct Expectation {
  std::string file;
  int line;
  std::string severity, text;
  int commentLine;
  bool met = false;
};

struct Printed {
  std::string file;
  int line;
  std::string severity, message, whole;
  bool expected = false;
};

// The expectations written in `file` (none when it cannot be read: its diagnostics are then
// unexpected).
void readExpectations(const std::string &file, std::vector<Expectation> &expectations) {
  llvm::Expected<std::string> text = support::readWholeFile(file, frontend::kMaxSourceBytes, "program text");
  if (!text) {
    llvm::consumeError(text.takeError());
    return;
  }
  static const std::regex pattern(R"(expected-(error|warning|note|remark)(@([+-]\d+))?\s*\{\{(.*?)\}\})");
  std::istringstream lines(*text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number)
    for (std::sregex_iterator it(line.begin(), line.end(), pattern), end; it != end; ++it) {
      const std::smatch &m = *it;
      int offset = m[3].matched ? std::stoi(m[3].str()) : 0;
      expectations.push_back({file, number + offset, m[1].str(), m[4].str(), number});
    }
}

}  // namespace

bool verifyDiagnostics(const std::string &printed, const std::vector<std::string> &inputs, std::ostream &errors) {
  static const std::regex located(R"(^(.+?):(\d+):(\d+): (error|warning|note|remark): (.*)$)");
  static const std::regex unlocated(R"(^(?:vtac \w+: )?(error): (.*)$)");
  std::vector<Printed> diagnostics;
  std::set<std::string> files(inputs.begin(), inputs.end());
  std::istringstream lines(printed);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, located)) {
      diagnostics.push_back({m[1].str(), std::stoi(m[2].str()), m[4].str(), m[5].str(), line});
      files.insert(m[1].str());
    } else if (std::regex_match(line, m, unlocated)) {
      diagnostics.push_back({"", 0, m[1].str(), m[2].str(), line});
    }
  }
  std::vector<Expectation> expectations;
  for (const std::string &file : files) readExpectations(file, expectations);

  for (Expectation &expectation : expectations)
    for (Printed &diagnostic : diagnostics)
      if (!diagnostic.expected && diagnostic.file == expectation.file && diagnostic.line == expectation.line &&
          diagnostic.severity == expectation.severity && diagnostic.message.find(expectation.text) != std::string::npos) {
        diagnostic.expected = expectation.met = true;
        break;
      }
  bool ok = true;
  for (const Expectation &expectation : expectations)
    if (!expectation.met) {
      errors << expectation.file << ":" << expectation.commentLine << ": error: expected " << expectation.severity
             << " at line " << expectation.line << " was not produced: {{" << expectation.text << "}}\n";
      ok = false;
    }
  for (const Printed &diagnostic : diagnostics)
    if (!diagnostic.expected && (diagnostic.severity == "error" || diagnostic.severity == "warning")) {
      errors << "error: unexpected " << diagnostic.severity << ": " << diagnostic.whole << "\n";
      ok = false;
    }
  return ok;
}

}  // namespace vtac::driver
