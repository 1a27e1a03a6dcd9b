#include "vtac/driver/RunCommand.h"

#include "ExpectedOutputs.h"
#include "Preparing.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_os_ostream.h>
#include <vta/runtime.h>
#include <vta/sim.h>

#include "vtac/support/AtomicFile.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Interpreter.h"
#include "vtac/backend/LibraryExterns.h"
#include "vtac/backend/Npy.h"
#include "vtac/backend/PrimFuncEngine.h"
#include "vtac/backend/SimulatedRun.h"
#include "vtac/backend/StepLimiter.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/graph/BindParams.h"
#include "vtac/backend/VtaTimeline.h"
#include "vtac/driver/GraphRunCommand.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/graph/FunctionLibrary.h"
#include "vtac/ir/LoopSteps.h"
#include "vtac/jit/JitFunction.h"

namespace vtac::driver {

using namespace backend;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string joinNames(const std::vector<std::string> &names) { return llvm::join(names, ", "); }

// The prim_func to run: `entry`, else "main", else the only one.
llvm::Expected<std::pair<std::string, ir::PrimFuncRef>> selectFunction(const ir::IRModule &module,
                                                                      const std::string &entry,
                                                                      const std::string &file) {
  std::vector<std::string> names;
  for (const auto &function : module.functions())
    if (function.function.isa<ir::PrimFunc>()) names.push_back(function.name->name);
  auto pick = [&](const std::string &name) -> std::optional<ir::PrimFuncRef> {
    ir::FunctionRef function = module.lookup(name);
    if (!function || !function.isa<ir::PrimFunc>()) return std::nullopt;
    return ir::cast<ir::PrimFunc>(function);
  };
  if (!entry.empty()) {
    if (auto function = pick(entry)) return std::make_pair(entry, *function);
    return diagnosticError(file + ": no prim_func named '" + entry + "' (prim_funcs: " +
                           (names.empty() ? std::string("none") : joinNames(names)) + ")");
  }
  if (auto function = pick("main")) return std::make_pair(std::string("main"), *function);
  if (names.size() == 1) return std::make_pair(names[0], *pick(names[0]));
  if (names.empty()) return diagnosticError(file + ": no prim_func to run");
  return diagnosticError(file + ": several prim_funcs (" + joinNames(names) + "); choose one with --entry");
}

// The prim_func `entry` of `module` (read from `file`) compiled by `compiler`, after the
// functions of `libraries` it calls are registered for the interpreter.
llvm::Expected<std::unique_ptr<PrimFuncEngine>> compileEntry(const ir::IRModule &module, const std::string &entry,
                                                             const std::string &file,
                                                             const PrimFuncCompiler &compiler,
                                                             ExternRegistry &registry,
                                                             llvm::ArrayRef<SharedLibrary> libraries) {
  if (llvm::Error error = registerLibraryExterns(module, libraries, registry)) return error;
  auto selected = selectFunction(module, entry, file);
  if (!selected) return selected.takeError();
  return compiler(selected->second, selected->first);
}

// The JIT's pipeline, after the schedule and --passes: prepare::codegenPipeline (tir-lower when
// blocks remain, then host-lower), each step dumped to `dumps` when given (--print-after-all).
// Its errors carry no pass name: they read as the interpreter's for the same program.
jit::Lowering jitLowering(llvm::raw_ostream *dumps) {
  return [dumps](ir::PrimFuncRef function, llvm::StringRef name) {
    passes::Instrumentation instrumentation;
    instrumentation.namePassInErrors = false;
    if (dumps) {
      instrumentation.printAfterAll = true;
      instrumentation.dumpStream = dumps;
    }
    return prepare::lowerForCodegen(function, name, std::move(instrumentation));
  };
}

// The compiler of `--engine` for a run of `options`; the JIT's pipeline prints its steps to
// `dumps` under --print-after-all.
PrimFuncCompiler engineCompiler(const RunOptions &options, const ExternRegistry &registry, llvm::raw_ostream &dumps) {
  if (options.engine == "interp") return interpreterCompiler(registry);
  return jit::jitCompiler(jitLowering(options.printAfterAll ? &dumps : nullptr),
                          options.limits.maxSteps || options.limits.timeoutSeconds > 0 || options.progress);
}

// A Relax entry runs as a graph (GraphRunCommand.h); the prim_func-only flags do not apply to it.
int runGraph(const frontend::ParsedModule &parsed, const RunOptions &options, std::ostream &out,
             std::ostream &errors, llvm::raw_ostream &dumps) {
  const char *unsupported = !options.referenceFile.empty() ? "--reference"
                            : !options.traceVtaPath.empty()  ? "--trace-vta"
                            : !options.timelinePath.empty()  ? "--timeline"
                            : options.limits.maxSteps        ? "--max-steps"
                            : options.limits.timeoutSeconds > 0 ? "--timeout"
                                                             : nullptr;
  if (unsupported) {
    errors << renderError(diagnosticError(std::string(unsupported) + " is not supported for a Relax entry"));
    return 1;
  }
  GraphRunOptions graphOptions;
  graphOptions.file = options.file;
  graphOptions.entry = options.entry;
  graphOptions.arguments = options.arguments;
  graphOptions.outputs = options.outputs;
  graphOptions.expectations = options.expectations;
  graphOptions.tolerance = options.tolerance;
  graphOptions.paramsFile = options.paramsFile;
  graphOptions.libraries = options.libraries;
  graphOptions.stats = options.stats;
  graphOptions.statsJsonPath = options.statsJsonPath;
  graphOptions.timing = options.timing;
  if (options.engine == "jit") {
    // Each prim_func in its own ORC session: two compile at once (the machine we measure on
    // has two cores), one when their pipelines are printed, so that dumps do not interleave.
    graphOptions.compiler = jit::jitCompiler(jitLowering(options.printAfterAll ? &dumps : nullptr));
    graphOptions.compileThreads =
        options.printAfterAll ? 1u : std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
  }
  return runGraphCommand(parsed.module, graphOptions, out, errors);
}

// Every output path is checked before anything runs, so a bad one costs no work and leaves
// nothing behind.
llvm::Error checkOutputs(const FunctionSignature &function, const RunOptions &options) {
  auto checkName = [&](const char *flag, const std::string &name, const std::string &path) -> llvm::Error {
    if (name.empty())
      return diagnosticError(std::string(flag) + " " + path + ": name the parameter (NAME=PATH; parameters: " +
                             parameterList(function) + ")");
    if (function.paramIndex(name) < 0)
      return diagnosticError(std::string(flag) + " " + name + "=" + path + ": '" + function.name() +
                             "' has no parameter '" + name + "' (parameters: " + parameterList(function) + ")");
    return llvm::Error::success();
  };
  for (const auto &[name, path] : options.outputs) {
    if (llvm::Error error = checkName("--output", name, path)) return error;
    if (llvm::Error error = support::checkOutputDirectory(path)) return error;
  }
  for (const auto &[name, path] : options.expectations)
    if (llvm::Error error = checkName("--expect", name, path)) return error;
  for (const std::string &path : {options.statsJsonPath, options.traceVtaPath, options.timelinePath})
    if (!path.empty())
      if (llvm::Error error = support::checkOutputDirectory(path)) return error;
  return llvm::Error::success();
}

void printStatsTable(llvm::StringRef json, const std::string &functionName, std::ostream &out) {
  auto parsed = llvm::json::parse(json);
  const llvm::json::Object *object = parsed ? parsed->getAsObject() : nullptr;
  if (!object) {
    llvm::consumeError(parsed.takeError());
    out << "VTA statistics unavailable\n";
    return;
  }
  // TVM's counters, the simulator's other counters by name, then the timing model's.
  std::vector<std::string> names(std::begin(kTvmCounters), std::end(kTvmCounters));
  const std::vector<std::string> timing(std::begin(kTimingCounters), std::end(kTimingCounters));
  std::vector<std::string> extra;
  for (const auto &entry : *object)
    if (!llvm::is_contained(names, entry.first.str()) && !llvm::is_contained(timing, entry.first.str()))
      extra.push_back(entry.first.str());
  llvm::sort(extra);
  names.insert(names.end(), extra.begin(), extra.end());
  names.insert(names.end(), timing.begin(), timing.end());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "VTA simulator statistics of '" << functionName << "':\n";
  for (const std::string &name : names) {
    std::optional<int64_t> value = object->getInteger(name);
    if (!value) continue;
    os << "  " << llvm::left_justify(name, 22) << " " << *value << "\n";
  }
  out << os.str();
}

// Applies --max-steps (as a limit on executed VTA instructions too) and --timeout to the VTA
// simulator while it lives.
struct VtaRunLimitsScope {
  explicit VtaRunLimitsScope(const RunLimits &limits) {
    VTASimSetRunLimits(limits.maxSteps, limits.timeoutSeconds);
  }
  ~VtaRunLimitsScope() { VTASimSetRunLimits(0, 0); }
};

// Collects the simulator's instruction trace (--trace-vta) into `lines` while it lives.
class VtaTraceScope {
public:
  explicit VtaTraceScope(std::string *lines) {
    if (lines) VTASimSetTrace(&append, lines);
  }
  ~VtaTraceScope() { VTASimSetTrace(nullptr, nullptr); }
  VtaTraceScope(const VtaTraceScope &) = delete;
  VtaTraceScope &operator=(const VtaTraceScope &) = delete;

private:
  static void append(const char *line, void *lines) { *static_cast<std::string *>(lines) += std::string(line) + "\n"; }
};

// Compares every parameter after both runs; true when all match.
bool compareWithReference(const FunctionSignature &function, llvm::ArrayRef<Tensor> results,
                          llvm::ArrayRef<Tensor> expected, FloatTolerance tolerance, std::ostream &out) {
  bool allEqual = true;
  for (size_t i = 0; i < results.size(); ++i)
    allEqual &= reportComparison(function.params()[i].name, expected[i], results[i], "the reference", tolerance, out);
  return allEqual;
}

// --vta-config, else a set VTA_CONFIG: either must be usable, since a run on the default
// configuration instead of the one asked for would be a silently wrong answer.
llvm::Error selectVtaConfig(const RunOptions &options) {
  const std::string &vtaConfig = options.recipe.vtaConfig;
  if (!vtaConfig.empty()) return backend::selectVtaConfig(vtaConfig, "--vta-config " + vtaConfig);
  const char *environment = std::getenv("VTA_CONFIG");
  if (environment && *environment)
    return backend::selectVtaConfig(environment, "VTA_CONFIG");
  return llvm::Error::success();
}

}  // namespace

int runCommand(const RunOptions &options, std::ostream &out, std::ostream &errors) {
  auto fail = [&](llvm::Error error) {
    errors << renderError(std::move(error));
    return 1;
  };
  if (llvm::Error error = selectVtaConfig(options)) return fail(std::move(error));

  VtaTiming timing;
  ExternRegistry registry;
  registerVtaExterns(registry, &timing);

  Clock::time_point parseStart = Clock::now();
  llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(options.file);
  if (!parsed) return fail(parsed.takeError());
  llvm::raw_os_ostream dumps(errors);
  dumps.SetUnbuffered();
  passes::Instrumentation instrumentation;
  instrumentation.printAfterAll = options.printAfterAll;
  instrumentation.dumpStream = &dumps;
  // A Relax entry's --params are bound before the passes, as TVM binds them before it optimizes:
  // the graph passes see the weights as constants (vta-graph-pack packs them once, here).
  bool graph = isGraphEntry(parsed->module, options.entry);
  if (graph && !options.paramsFile.empty()) {
    llvm::Expected<ir::IRModule> bound =
        graph::bindParamsFromFile(parsed->module, options.entry.empty() ? "main" : options.entry, options.paramsFile, errors);
    if (!bound) return fail(bound.takeError());
    parsed->module = std::move(*bound);
  }
  if (int status = prepareModule("vtac run", options.recipe, *parsed, errors, std::move(instrumentation))) return status;
  if (graph) return runGraph(*parsed, options, out, errors, dumps);
  if (!options.paramsFile.empty())
    return fail(diagnosticError("--params applies to a Relax entry; '" + options.file + "' runs a prim_func"));
  std::vector<SharedLibrary> libraries;
  for (const std::string &path : options.libraries) {
    llvm::Expected<SharedLibrary> library = graph::loadFunctionLibrary(path);
    if (!library) return fail(library.takeError());
    libraries.push_back(std::move(*library));
  }
  double parseSeconds = secondsSince(parseStart);
  // Compiled before the clock starts, so that the run times of the engines compare.
  Clock::time_point compileStart = Clock::now();
  RunLimits limits = options.limits;
  support::ProgressLine progress(errors, support::ProgressLine::styleForStderr(options.progress));
  if (progress.enabled()) {
    limits.progress = &progress;
    if (auto selected = selectFunction(parsed->module, options.entry, options.file))
      limits.totalSteps = ir::staticLoopSteps(selected->second->body).value_or(0);
    else
      llvm::consumeError(selected.takeError());  // compileEntry reports it
  }
  auto compiled = compileEntry(parsed->module, options.entry, options.file, engineCompiler(options, registry, dumps),
                               registry, libraries);
  if (!compiled) return fail(compiled.takeError());
  std::unique_ptr<PrimFuncEngine> engine = std::move(*compiled);
  double compileSeconds = secondsSince(compileStart);
  const FunctionSignature &function = engine->signature();
  if (llvm::Error error = checkOutputs(function, options)) return fail(std::move(error));
  auto arguments = prepareArguments(function, options.arguments);
  if (!arguments) return fail(arguments.takeError());
  auto expectedOutputs = readExpectedOutputs(options.expectations);
  if (!expectedOutputs) return fail(expectedOutputs.takeError());
  // A run that reads nothing the user gave, or shows nothing, is legal but rarely meant.
  if (!function.params().empty() && options.arguments.inputs.empty() && !options.arguments.randomInputs)
    errors << "vtac run: note: no --input or --random-inputs: every parameter of '" << function.name().str()
           << "' starts as zeros\n";
  std::vector<Tensor> referenceArguments;
  if (!options.referenceFile.empty()) referenceArguments = *arguments;

  VTARuntimeClearError();
  VTASimClearError();
  VTASimClearStats();
  std::string vtaTrace;
  VtaTraceScope traceScope(options.traceVtaPath.empty() ? nullptr : &vtaTrace);
  VtaTimelineScope timelineScope(!options.timelinePath.empty());
  VtaRunLimitsScope limitsScope(options.limits);
  Clock::time_point start = Clock::now();
  double cpuStart = threadCpuSeconds();
  if (llvm::Error error = engine->run(*arguments, limits)) return fail(std::move(error));
  if (llvm::Error error = finishVtaRun(function.function()->loc())) return fail(std::move(error));
  double runSeconds = secondsSince(start);
  double runCpuSeconds = threadCpuSeconds() - cpuStart;
  std::string statsJson = VTASimStatsJSON();

  bool matches = true;
  if (!options.referenceFile.empty()) {
    llvm::Expected<frontend::ParsedModule> referenceModule = frontend::loadModule(options.referenceFile);
    if (!referenceModule) return fail(referenceModule.takeError());
    PrimFuncCompiler referenceCompiler =
        options.referenceEngine == "jit" ? jit::jitCompiler(jitLowering(nullptr)) : interpreterCompiler(registry);
    auto reference = compileEntry(referenceModule->module, options.referenceEntry, options.referenceFile,
                                  referenceCompiler, registry, libraries);
    if (!reference) return fail(reference.takeError());
    const FunctionSignature &referenceFunction = (*reference)->signature();
    if (referenceFunction.params().size() != function.params().size())
      return fail(diagnosticError(options.referenceFile + ": '" + referenceFunction.name() + "' takes " +
                                  llvm::Twine(referenceFunction.params().size()) + " parameters, '" +
                                  function.name() + "' takes " + llvm::Twine(function.params().size())));
    if (llvm::Error error = (*reference)->run(referenceArguments, {}))
      return fail(diagnosticError("reference " + options.referenceFile + ": " + errorMessage(std::move(error))));
    matches = compareWithReference(function, *arguments, referenceArguments, options.tolerance, out);
  }
  for (const ExpectedOutput &expected : *expectedOutputs)
    matches &= reportComparison(expected.name, expected.tensor, (*arguments)[function.paramIndex(expected.name)],
                                expected.path, options.tolerance, out);

  // All outputs or none.
  support::OutputSet files;
  for (const auto &[name, path] : options.outputs)
    if (llvm::Error error = files.stage(path, encodeNpy((*arguments)[function.paramIndex(name)])))
      return fail(std::move(error));
  if (!options.statsJsonPath.empty())
    if (llvm::Error error = files.stage(options.statsJsonPath, statsJson + "\n")) return fail(std::move(error));
  if (!options.traceVtaPath.empty())
    if (llvm::Error error = files.stage(options.traceVtaPath, vtaTrace)) return fail(std::move(error));
  if (!options.timelinePath.empty())
    if (llvm::Error error = files.stage(options.timelinePath, timelineScope.json())) return fail(std::move(error));
  if (llvm::Error error = files.commit()) return fail(std::move(error));
  if (options.stats) printStatsTable(statsJson, function.name().str(), out);
  if (options.outputs.empty() && options.referenceFile.empty() && options.expectations.empty() && !options.stats && options.statsJsonPath.empty() &&
      options.traceVtaPath.empty() && options.timelinePath.empty() && !options.timing)
    errors << "vtac run: note: '" << function.name().str()
           << "' ran; nothing was written or compared (--output NAME=FILE.npy writes a parameter, "
              "--reference FILE compares with another program, --stats prints VTA's counters)\n";
  if (options.timing) {
    RunTimes times;
    times.parse = parseSeconds;
    times.compile = compileSeconds;
    times.run = runSeconds;
    times.runCpu = runCpuSeconds;
    times.synchronize = timing.synchronizeSeconds;
    times.synchronizeCpu = timing.synchronizeCpuSeconds;
    times.synchronizeCalls = timing.synchronizeCalls;
    errors << engine->timingLine(times);
  }
  return matches ? 0 : 1;
}

}  // namespace vtac::driver
