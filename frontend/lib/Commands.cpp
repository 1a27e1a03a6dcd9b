#include "vtac/frontend/Commands.h"

#include "vtac/ir/Printer.h"
#include "vtac/ir/Verifier.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace vtac::frontend {

namespace {

class Stopwatch {
public:
  double milliseconds() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Writes `text` to `path` through a temporary file in the same directory and a
// rename, so that readers (and make) never see a half-written output.
bool writeFileAtomically(const std::string &path, const std::string &text, std::ostream &errors) {
  std::string temporary = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    errors << path << ": error: cannot create output file: " << std::strerror(errno) << "\n";
    return false;
  }
  const char *data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      errors << path << ": error: cannot write output file: " << std::strerror(errno) << "\n";
      ::close(fd);
      ::unlink(temporary.c_str());
      return false;
    }
    data += written;
    left -= size_t(written);
  }
  // mkstemp creates the file 0600; an output should get the usual permissions.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::close(fd) != 0 || std::rename(temporary.c_str(), path.c_str()) != 0) {
    errors << path << ": error: cannot write output file: " << std::strerror(errno) << "\n";
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

} // namespace

std::optional<ParsedModule> loadModule(const std::string &path, std::ostream &errors) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text, reason;
  if (!readSourceFile(path, text, reason)) {
    errors << name << ": error: cannot read file: " << reason << "\n";
    return std::nullopt;
  }
  Stopwatch parseTime;
  SourceFile file(name, std::move(text));
  DiagnosticEngine diagnostics;
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  spdlog::debug("{}: parsed in {:.1f} ms", name, parseTime.milliseconds());
  if (parsed) {
    Stopwatch verifyTime;
    for (const auto &entry : parsed->module.functions())
      if (auto *func = entry.function.as<ir::PrimFunc>())
        for (const ir::VerifierDiagnostic &problem : ir::verifyDiagnostics(*func))
          diagnostics.error(problem.loc, problem.message);
    spdlog::debug("{}: verified in {:.1f} ms", name, verifyTime.milliseconds());
  }
  errors << diagnostics.render();
  if (diagnostics.hasErrors())
    return std::nullopt;
  return parsed;
}

std::string printParsedModule(const ParsedModule &parsed) {
  const auto &functions = parsed.module.functions();
  if (parsed.className.empty() && functions.size() == 1)
    if (auto *func = functions[0].function.as<ir::PrimFunc>())
      return ir::printPrimFunc(*func, functions[0].name->name);
  return ir::printModule(parsed.module);
}

bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors) {
  bool ok = true;
  for (const std::string &input : inputs)
    ok &= loadModule(input, errors).has_value();
  return ok;
}

bool runPrint(const std::vector<std::string> &inputs, const std::string &outputPath,
              std::ostream &out, std::ostream &errors, const ModuleRewrite &rewrite) {
  bool ok = true;
  std::string text;
  for (const std::string &input : inputs) {
    std::optional<ParsedModule> parsed = loadModule(input, errors);
    if (!parsed || (rewrite && !rewrite(*parsed, errors))) {
      ok = false;
      continue;
    }
    Stopwatch printTime;
    text += printParsedModule(*parsed);
    spdlog::debug("{}: printed in {:.1f} ms", input, printTime.milliseconds());
  }
  if (!ok)
    return false;
  if (outputPath.empty() || outputPath == "-") {
    out << text;
    return bool(out.flush());
  }
  return writeFileAtomically(outputPath, text, errors);
}

} // namespace vtac::frontend
