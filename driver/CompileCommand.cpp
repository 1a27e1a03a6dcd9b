#include "vtac/driver/CompileCommand.h"

#include "Preparing.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_os_ostream.h>

#include "vtac/codegen/CEmitter.h"
#include "vtac/codegen/CNames.h"
#include "vtac/codegen/HeaderEmitter.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/codegen/RelaxHostLowering.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/Command.h"
#include "vtac/support/OutputDirectory.h"
#include "vtac/support/ProgressLine.h"

namespace vtac::driver {

using codegen::EmitKind;

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

// A make rule: the output depends on the input and on the files that change what it compiles to.
std::string depfileText(const CompileOptions &options, const std::string &input, const std::string &output) {
  std::vector<std::string> prerequisites = {input};
  const prepare::Recipe &recipe = options.recipe;
  for (const std::string &path : {recipe.schedule, recipe.intrinsics})
    if (!path.empty()) prerequisites.push_back(path);
  if (!recipe.vtaConfig.empty() && recipe.vtaConfig.front() != '{') prerequisites.push_back(recipe.vtaConfig);
  std::string text = makePath(output) + ":";
  for (const std::string &path : prerequisites) text += " " + makePath(path);
  text += "\n";
  for (const std::string &path : prerequisites) text += "\n" + makePath(path) + ":\n";
  return text;
}

struct Job {
  std::string input;
  std::string output;
  std::string depfile;  // empty: none
  std::string contents;
  std::string diagnostics;
  std::vector<std::string> functions;  // the names of the input's functions, once parsed
  bool ok = false;
};

// Every `--symbol FUNC=NAME` names a function of some input: a misspelt FUNC would otherwise be
// ignored and the function keep its default symbol.
llvm::Error checkSymbolsNameFunctions(const std::vector<std::string> &symbols, const std::vector<Job> &jobs) {
  std::set<std::string> known;
  for (const Job &job : jobs) known.insert(job.functions.begin(), job.functions.end());
  for (const std::string &entry : symbols) {
    size_t equals = entry.find('=');
    if (equals == std::string::npos) continue;
    std::string function = entry.substr(0, equals);
    if (!known.count(function))
      return ir::diagnosticError("--symbol " + entry + ": no function '" + function + "' in the input" +
                                 (jobs.size() > 1 ? "s" : "") + " (functions: " + llvm::join(known, ", ") + ")");
  }
  return llvm::Error::success();
}

class Compiler {
public:
  Compiler(const CompileOptions &options, EmitKind kind) : options_(options), kind_(kind) {}

  void run(Job &job) {
    std::ostringstream errors;
    job.ok = compile(job, errors);
    job.diagnostics = errors.str();
  }

private:
  // The symbol --symbol gives function `name`, if any.
  std::optional<std::string> givenSymbol(const std::string &name, bool onlyFunction) const {
    for (const std::string &entry : options_.symbols) {
      size_t equals = entry.find('=');
      if (equals == std::string::npos && (name == "main" || onlyFunction)) return entry;
      if (equals != std::string::npos && entry.substr(0, equals) == name) return entry.substr(equals + 1);
    }
    return std::nullopt;
  }

  // The symbol of function `func`, called `name`, of `input` (whose functions are called
  // `functionNames`): --symbol's, else the input's stem for `main`, else its name. A function whose entry is bound already (host-lower's output)
  // keeps the name its entry checks report.
  llvm::Expected<std::string> symbolOf(const std::string &input, const std::string &name, const ir::Node &func,
                                       const std::set<std::string> &functionNames) const {
    bool onlyFunction = functionNames.size() == 1;
    std::optional<std::string> given = givenSymbol(name, onlyFunction);
    auto *prim = func.as<ir::PrimFunc>();
    const ir::AttrValue *bound = prim && ir::isEntryBound(*prim) ? prim->attrs.find("global_symbol") : nullptr;
    if (bound && bound->isString()) {
      if (given && *given != bound->asString())
        return ir::diagnosticError(func.loc(), "function '" + name + "' was bound as '" + bound->asString() +
                                                   "' (bind-entry-parameters), which its entry checks report: it "
                                                   "cannot be compiled as '" + *given + "'");
      return bound->asString();
    }
    if (given) return *given;
    std::string symbol = name == "main" ? identifier(stem(input)) : name;
    // A reserved name would make C output that does not compile, or an object that replaces a C
    // library function. Nothing outside the module calls a private function (legalize-ops makes
    // them), so it is renamed; a public one is the user's to name.
    auto *function = func.as<ir::Function>();
    if (function && function->isPrivate)
      for (int suffix = 1; !codegen::isCFunctionName(symbol) || functionNames.count(symbol); ++suffix)
        symbol = name + "_" + std::to_string(suffix);
    if (!codegen::isCFunctionName(symbol))
      return ir::diagnosticError(func.loc(), "function '" + name + "' would be named '" + symbol +
                                                 "', which C reserves; give it a symbol with --symbol " +
                                                 (name == "main" ? "" : name + "=") + "NAME");
    return symbol;
  }

  bool compile(Job &job, std::ostream &errors) {
    llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(job.input);
    if (!parsed) {
      errors << ir::renderError(parsed.takeError());
      return false;
    }
    for (const auto &entry : parsed->module.functions()) job.functions.push_back(entry.name->name);
    std::set<std::string> functionNames(job.functions.begin(), job.functions.end());
    llvm::raw_os_ostream dumps(errors);  // the job's own stream: inputs compile in parallel
    dumps.SetUnbuffered();
    if (!prepareInput(*parsed, errors, dumps)) return false;
    // Symbols first (a graph calls prim_funcs by them; bind-entry-parameters' checks name them);
    // prim_funcs, then graphs, so that every function a graph calls is defined before it.
    std::map<std::string, std::string> symbols, symbolOwners;
    for (const auto &entry : parsed->module.functions()) {
      const std::string &name = entry.name->name;
      llvm::Expected<std::string> named = symbolOf(job.input, name, *entry.function, functionNames);
      if (!named) {
        errors << ir::renderError(named.takeError());
        return false;
      }
      const std::string &symbol = *named;
      if (!symbolOwners.emplace(symbol, name).second) {
        errors << ir::renderError(ir::diagnosticError(entry.function->loc(), "functions '" + symbolOwners[symbol] + "' and '" +
                                                                                 name + "' would both be named '" + symbol + "'"));
        return false;
      }
      symbols[name] = symbol;
    }
    if (!lowerForEmitters(parsed->module, symbols, errors, dumps)) return false;
    std::vector<codegen::HostFunction> functions;
    for (bool graphs : {false, true})
      for (const auto &entry : parsed->module.functions()) {
        const std::string &name = entry.name->name;
        auto *func = entry.function.as<ir::PrimFunc>();
        const ir::RelaxFunction *graph = ir::asRelaxFunction(entry.function);
        if (graphs ? !graph : !func) continue;
        auto lowered = graph ? codegen::lowerRelaxForHost(*graph, name, symbols[name], symbols, functions)
                             : codegen::lowerForHost(*func, name, symbols[name]);
        if (!lowered) {
          errors << ir::renderError(lowered.takeError());
          return false;
        }
        functions.push_back(std::move(*lowered));
      }
    if (functions.empty()) {
      errors << job.input << ": error: no function to compile\n";
      return false;
    }
    // A private function a graph calls is the object's own, so that objects of two models may
    // each have their `add`; one nothing calls stays visible: being called from outside is the
    // only use it has.
    std::set<std::string> called;
    for (const codegen::HostFunction &function : functions)
      if (function.graph) called.merge(codegen::calledSymbols(function));
    for (codegen::HostFunction &function : functions)
      function.internal = parsed->module.lookup(function.name)->isPrivate && called.count(function.symbol);
    auto contents = emit(job, functions);
    if (!contents) {
      errors << ir::renderError(contents.takeError());
      return false;
    }
    job.contents = std::move(*contents);
    return true;
  }

  // --print-after-all to the job's `dumps`.
  passes::Instrumentation instrumentationFor(llvm::raw_ostream &dumps) const {
    passes::Instrumentation instrumentation;
    instrumentation.printAfterAll = options_.printAfterAll;
    instrumentation.dumpStream = &dumps;
    return instrumentation;
  }

  // The schedule and the --passes pipeline (one preparer per input: inputs compile in parallel).
  bool prepareInput(frontend::ParsedModule &parsed, std::ostream &errors, llvm::raw_ostream &dumps) const {
    return prepareModule("vtac compile", options_.recipe, parsed, errors, instrumentationFor(dumps)) ==
           support::kExitSuccess;
  }

  // Each prim_func through the pipeline every backend runs last (prepare::codegenPipeline:
  // tir-lower when blocks remain, as `vtac run` lowers them, then host-lower), in the module.
  bool lowerForEmitters(ir::IRModule &module, const std::map<std::string, std::string> &symbols, std::ostream &errors,
                        llvm::raw_ostream &dumps) const {
    std::vector<ir::IRModule::Entry> entries = module.functions();  // replacing one updates the module
    for (const auto &entry : entries) {
      auto *func = entry.function.as<ir::PrimFunc>();
      if (!func) continue;
      auto lowered = prepare::lowerForCodegen(ir::PrimFuncRef(func), entry.name->name, instrumentationFor(dumps),
                                              symbols.at(entry.name->name));
      if (!lowered) {
        errors << ir::renderError(lowered.takeError());
        return false;
      }
      module.add(entry.name->name, *lowered);
    }
    return true;
  }

  llvm::Expected<std::string> emit(const Job &job, const std::vector<codegen::HostFunction> &functions) const {
    std::string source = llvm::sys::path::filename(job.input).str();
    switch (kind_) {
    case EmitKind::C: return codegen::emitC(functions, source);
    case EmitKind::Header:
      return codegen::emitHeader(functions, source, "VTAC_" + llvm::StringRef(identifier(stem(job.output))).upper() + "_H_");
    default: {
      codegen::LLVMEmitOptions llvmOptions;
      llvmOptions.kind = kind_;
      llvmOptions.targetTriple = options_.targetTriple;
      llvmOptions.cpu = options_.cpu;
      llvmOptions.features = options_.features;
      llvmOptions.optLevel = options_.optLevel;
      return codegen::emitLLVM(functions, source, llvmOptions);
    }
    }
  }

  const CompileOptions &options_;
  EmitKind kind_;
};

}  // namespace

int compileCommand(const CompileOptions &options, std::ostream &errors) {
  // The pipeline and the VTA configuration are checked once, before any input is read.
  if (llvm::Expected<prepare::Preparer> checked = prepare::Preparer::create(options.recipe); !checked)
    return reportRecipeError("vtac compile", checked.takeError(), errors);
  std::optional<support::OutputDirectory> directory;
  if (support::namesDirectory(options.output)) {
    auto checked = support::OutputDirectory::check(options.output);
    if (!checked) {
      errors << ir::renderError(checked.takeError());
      return support::kExitInputError;
    }
    directory = std::move(*checked);
  }
  EmitKind kind = chooseEmitKind(options, directory.has_value());
  std::vector<std::string> outputs(options.inputs.size(), options.output);
  if (directory) {
    auto named = directory->outputsFor(options.inputs, emitInfo(kind).extension);
    if (!named) {
      errors << ir::renderError(named.takeError());
      return support::kExitUsageError;
    }
    outputs = std::move(*named);
  }
  std::vector<Job> jobs(options.inputs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job &job = jobs[i];
    job.input = options.inputs[i];
    job.output = outputs[i];
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
      if (!path.empty() && !(directory && directory->pendingHolds(path))) {
        llvm::Error error = support::checkOutputDirectory(path);
        if (!error) error = support::checkNotAnInput(path, options.inputs);
        if (error) {
          errors << ir::renderError(std::move(error));
          return support::kExitInputError;
        }
      }

  Compiler compiler(options, kind);
  std::atomic<size_t> next{0};
  support::ProgressLine progress(errors, jobs.size() > 1 ? support::ProgressLine::styleForStderr(options.progress)
                                                         : support::ProgressLine::Style::Off);
  std::mutex progressMutex;
  size_t compiled = 0;
  auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      compiler.run(jobs[i]);
      std::lock_guard<std::mutex> lock(progressMutex);
      ++compiled;
      progress.update("vtac compile: " + std::to_string(compiled) + "/" + std::to_string(jobs.size()) + " inputs" +
                          support::ProgressLine::percent(compiled, jobs.size()),
                      compiled == jobs.size());
    }
  };
  size_t threads = std::min<size_t>(std::max(1, options.jobs), jobs.size());
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool) thread.join();
  progress.finish();

  bool ok = true;
  for (const Job &job : jobs) {
    errors << job.diagnostics;
    ok &= job.ok;
  }
  if (!ok) return support::kExitInputError;
  if (llvm::Error error = checkSymbolsNameFunctions(options.symbols, jobs)) {
    errors << ir::renderError(std::move(error));
    return support::kExitInputError;
  }
  if (directory)
    if (llvm::Error error = directory->make()) {
      errors << ir::renderError(std::move(error));
      return support::kExitInputError;
    }
  for (const Job &job : jobs) {
    llvm::Error error = support::writeFileAtomically(job.output, job.contents);
    if (!error && !job.depfile.empty())
      error = support::writeFileAtomically(job.depfile, depfileText(options, job.input, job.output));
    if (error) {
      errors << ir::renderError(std::move(error));
      return support::kExitInputError;
    }
  }
  return support::kExitSuccess;
}

}  // namespace vtac::driver
