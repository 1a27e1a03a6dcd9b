#include "vtac/codegen/CompileCommand.h"

#include <atomic>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "vtac/codegen/CEmitter.h"
#include "vtac/codegen/HeaderEmitter.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/frontend/Commands.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/Command.h"

namespace vtac::codegen {

namespace {

struct EmitInfo {
  const char *name;
  EmitKind kind;
  const char *extension;
};

const EmitInfo kEmitKinds[] = {
    {"c", EmitKind::C, ".c"},           {"header", EmitKind::Header, ".h"}, {"llvm", EmitKind::LLVMIR, ".ll"},
    {"bc", EmitKind::Bitcode, ".bc"},   {"asm", EmitKind::Assembly, ".s"},  {"obj", EmitKind::Object, ".o"},
};

const EmitInfo &emitInfo(EmitKind kind) {
  for (const EmitInfo &info : kEmitKinds)
    if (info.kind == kind) return info;
  return kEmitKinds[5];
}

// What to emit: --emit, else the output file's extension, else an object.
EmitKind chooseEmitKind(const CompileOptions &options, bool outputIsDirectory) {
  for (const EmitInfo &info : kEmitKinds)
    if (options.emit == info.name) return info.kind;
  if (!outputIsDirectory) {
    llvm::StringRef extension = llvm::sys::path::extension(options.output);
    for (const EmitInfo &info : kEmitKinds)
      if (extension == info.extension) return info.kind;
  }
  return EmitKind::Object;
}

std::string stem(const std::string &input) { return llvm::sys::path::stem(input).str(); }

// A C identifier made of `text`'s letters, digits and underscores.
std::string identifier(const std::string &text) {
  std::string name;
  for (char c : text) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "_" + name;
  return name;
}

// Make's spelling of a path in a depfile.
std::string makePath(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

struct Job {
  std::string input;
  std::string output;
  std::string depfile;  // empty: none
  std::string contents;
  std::string diagnostics;
  bool ok = false;
};

class Compiler {
public:
  Compiler(const CompileOptions &options, EmitKind kind) : options_(options), kind_(kind) {}

  void run(Job &job) {
    std::ostringstream errors;
    job.ok = compile(job, errors);
    job.diagnostics = errors.str();
  }

private:
  // The symbol of function `name` of `input`.
  std::string symbolOf(const std::string &input, const std::string &name, bool onlyFunction) const {
    for (const std::string &entry : options_.symbols) {
      size_t equals = entry.find('=');
      if (equals == std::string::npos && (name == "main" || onlyFunction)) return entry;
      if (equals != std::string::npos && entry.substr(0, equals) == name) return entry.substr(equals + 1);
    }
    return name == "main" ? identifier(stem(input)) : name;
  }

  bool compile(Job &job, std::ostream &errors) {
    std::optional<frontend::ParsedModule> parsed = frontend::loadModule(job.input, errors);
    if (!parsed) return false;
    if (llvm::Error error = runPasses(parsed->module, errors)) {
      errors << ir::renderError(std::move(error));
      return false;
    }
    std::vector<HostFunction> functions;
    size_t primFuncs = 0;
    for (const auto &entry : parsed->module.functions()) primFuncs += entry.function.isa<ir::PrimFunc>();
    for (const auto &entry : parsed->module.functions())
      if (!entry.function.isa<ir::PrimFunc>()) {
        errors << ir::renderError(ir::diagnosticError(entry.function->loc(), "cannot compile Relax function '" +
                                                                                 entry.name->name +
                                                                                 "' (only prim_funcs compile so far)"));
        return false;
      }
    std::map<std::string, std::string> symbolOwners;
    for (const auto &entry : parsed->module.functions()) {
      const std::string &name = entry.name->name;
      auto *func = entry.function.as<ir::PrimFunc>();
      std::string symbol = symbolOf(job.input, name, primFuncs == 1);
      if (!symbolOwners.emplace(symbol, name).second) {
        errors << ir::renderError(ir::diagnosticError(
            func->loc(), "prim_funcs '" + symbolOwners[symbol] + "' and '" + name + "' would both be named '" + symbol + "'"));
        return false;
      }
      auto lowered = lowerForHost(*func, name, symbol);
      if (!lowered) {
        errors << ir::renderError(lowered.takeError());
        return false;
      }
      functions.push_back(std::move(*lowered));
    }
    if (functions.empty()) {
      errors << job.input << ": error: no prim_func to compile\n";
      return false;
    }
    auto contents = emit(job, functions);
    if (!contents) {
      errors << ir::renderError(contents.takeError());
      return false;
    }
    job.contents = std::move(*contents);
    return true;
  }

  // The --passes pipeline (one pass manager per input: inputs compile in parallel).
  llvm::Error runPasses(ir::IRModule &module, std::ostream &errors) const {
    if (options_.passes.empty()) return llvm::Error::success();
    auto pipeline = passes::parsePipeline(options_.passes, passes::PassRegistry::builtin());
    if (!pipeline) return pipeline.takeError();  // checked before the jobs started
    passes::PassManager manager(std::move(*pipeline));
    passes::PassContext context;
    context.remark = [&](ir::SourceLoc loc, const std::string &message) {
      errors << ir::formatDiagnostic(loc, ir::Severity::Warning, message);
    };
    return manager.run(module, context);
  }

  llvm::Expected<std::string> emit(const Job &job, const std::vector<HostFunction> &functions) const {
    std::string source = llvm::sys::path::filename(job.input).str();
    switch (kind_) {
    case EmitKind::C: return emitC(functions, source);
    case EmitKind::Header:
      return emitHeader(functions, source, "VTAC_" + llvm::StringRef(identifier(stem(job.output))).upper() + "_H_");
    default: {
      LLVMEmitOptions llvmOptions;
      llvmOptions.kind = kind_;
      llvmOptions.targetTriple = options_.targetTriple;
      llvmOptions.optLevel = options_.optLevel;
      return emitLLVM(functions, source, llvmOptions);
    }
    }
  }

  const CompileOptions &options_;
  EmitKind kind_;
};

bool isDirectory(const std::string &path) {
  return !path.empty() && (path.back() == '/' || llvm::sys::fs::is_directory(path));
}

}  // namespace

int compileCommand(const CompileOptions &options, std::ostream &errors) {
  if (!options.passes.empty()) {
    auto pipeline = passes::parsePipeline(options.passes, passes::PassRegistry::builtin());
    if (!pipeline) {
      errors << "vtac compile: error: " << llvm::toString(pipeline.takeError()) << "\n";
      return support::kExitUsageError;
    }
  }
  bool toDirectory = isDirectory(options.output);
  EmitKind kind = chooseEmitKind(options, toDirectory);
  std::vector<Job> jobs(options.inputs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job &job = jobs[i];
    job.input = options.inputs[i];
    if (toDirectory) {
      llvm::SmallString<256> path(options.output);
      llvm::sys::path::append(path, stem(job.input) + emitInfo(kind).extension);
      job.output = std::string(path);
    } else {
      job.output = options.output;
    }
    if (!options.depfilePath.empty()) {
      job.depfile = options.depfilePath;
    } else if (options.depfile) {
      llvm::SmallString<256> path(job.output);
      llvm::sys::path::replace_extension(path, ".d");
      job.depfile = std::string(path);
    }
  }
  for (const Job &job : jobs)
    for (const std::string &path : {job.output, job.depfile})
      if (!path.empty())
        if (llvm::Error error = support::checkOutputDirectory(path)) {
          errors << ir::renderError(std::move(error));
          return support::kExitInputError;
        }

  Compiler compiler(options, kind);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) compiler.run(jobs[i]);
  };
  size_t threads = std::min<size_t>(std::max(1, options.jobs), jobs.size());
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool) thread.join();

  bool ok = true;
  for (const Job &job : jobs) {
    errors << job.diagnostics;
    ok &= job.ok;
  }
  if (!ok) return support::kExitInputError;
  for (const Job &job : jobs) {
    llvm::Error error = support::writeFileAtomically(job.output, job.contents);
    if (!error && !job.depfile.empty())
      error = support::writeFileAtomically(job.depfile, makePath(job.output) + ": " + makePath(job.input) + "\n\n" +
                                                            makePath(job.input) + ":\n");
    if (error) {
      errors << ir::renderError(std::move(error));
      return support::kExitInputError;
    }
  }
  return support::kExitSuccess;
}

}  // namespace vtac::codegen
