#include "vtac/driver/GraphRunCommand.h"

#include "ExpectedOutputs.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <vta/sim.h>

#include "vtac/support/AtomicFile.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/LibraryExterns.h"
#include "vtac/backend/Npy.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/graph/FunctionLibrary.h"
#include "vtac/graph/GraphExecutor.h"

namespace vtac::driver {

using namespace graph;

namespace relax = ir::relax;

namespace {

std::string entryName(const std::string &entry) { return entry.empty() ? "main" : entry; }

// The arguments: --input files, then zero or random data shaped by the sizes the inputs fix.
llvm::Expected<NamedTensors> prepareInputs(const GraphExecutor &executor, const GraphRunOptions &options) {
  NamedTensors inputs;
  relax::ShapeBindings sizes;
  for (const auto &[name, value] : options.arguments.sizes) {
    bool known = false;
    for (const GraphParam &param : executor.params())
      for (const ir::Expr &dim : param.sinfo.shape ? *param.sinfo.shape : std::vector<ir::Expr>{})
        if (const auto *var = dim.as<ir::Var>(); var && var->name == name) {
          sizes[ir::cast<ir::Var>(dim)] = value;
          known = true;
        }
    if (!known)
      return backend::diagnosticError("--size " + name + "=" + std::to_string(value) +
                                      ": no parameter of the graph has a symbolic size '" + name + "'");
  }
  for (const auto &[name, path] : options.arguments.inputs) {
    auto param = std::find_if(executor.params().begin(), executor.params().end(),
                              [&name = name](const GraphParam &p) { return p.name == name; });
    if (param == executor.params().end())
      return backend::diagnosticError("--input " + name + "=" + path + ": the graph has no parameter '" +
                                      name + "'" + (options.paramsFile.empty() ? "" : " (or it was bound by --params)"));
    llvm::Expected<backend::Tensor> tensor = backend::readNpy(path);
    if (!tensor) return tensor.takeError();
    // Mismatches are reported by the executor with the annotation's location; here the sizes
    // only serve to shape the parameters nobody gave.
    relax::ShapeBindings attempt = sizes;
    if (!relax::unifyShape(param->sinfo, tensor->shape(), attempt)) sizes = std::move(attempt);
    inputs.emplace_back(name, std::move(*tensor));
  }
  for (const GraphParam &param : executor.params()) {
    if (std::any_of(inputs.begin(), inputs.end(), [&](const auto &in) { return in.first == param.name; }))
      continue;
    // With --params the caller said where the parameters come from: a gap is a mistake.
    if (!options.paramsFile.empty())
      return backend::diagnosticError(param.sinfo.loc, "parameter '" + param.name + "' is not in " +
                                                           options.paramsFile + " and has no --input");
    std::vector<int64_t> shape;
    for (const ir::Expr &dim : param.sinfo.shape ? *param.sinfo.shape : std::vector<ir::Expr>{}) {
      std::optional<int64_t> value = relax::evaluateDim(dim, sizes);
      if (!value)
        return backend::diagnosticError(
            param.sinfo.loc, "no data for parameter '" + param.name +
                                 "': its shape needs a symbolic size no input fixes; give the data "
                                 "with --input or --params, or the size with --size");
      shape.push_back(*value);
    }
    if (!param.sinfo.shape || param.sinfo.dtype.isVoid())
      return backend::diagnosticError(param.sinfo.loc, "no data for parameter '" + param.name +
                                                           "' and its annotation does not fix its shape");
    backend::Tensor tensor(param.sinfo.dtype, shape);
    if (options.arguments.randomInputs) backend::fillRandom(tensor, options.arguments.seed, param.name);
    inputs.emplace_back(param.name, std::move(tensor));
  }
  return inputs;
}

llvm::Error checkOutputs(const GraphExecutor &executor, const GraphRunOptions &options) {
  std::vector<std::string> names = executor.resultNames();
  auto checkName = [&](const char *flag, const std::string &name, const std::string &path) -> llvm::Error {
    if (name.empty() ? names.size() == 1 : std::find(names.begin(), names.end(), name) != names.end())
      return llvm::Error::success();
    std::string list;
    for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
    return backend::diagnosticError(std::string(flag) + " " + (name.empty() ? path : name + "=" + path) + ": " +
                                    (name.empty() ? "the graph has several results; name one"
                                                  : "the graph returns no '" + name + "'") +
                                    " (results: " + list + ")");
  };
  for (const auto &[name, path] : options.outputs) {
    if (llvm::Error error = checkName("--output", name, path)) return error;
    if (llvm::Error error = support::checkOutputDirectory(path)) return error;
  }
  for (const auto &[name, path] : options.expectations)
    if (llvm::Error error = checkName("--expect", name, path)) return error;
  if (!options.statsJsonPath.empty())
    if (llvm::Error error = support::checkOutputDirectory(options.statsJsonPath)) return error;
  return llvm::Error::success();
}

// Wall and process CPU seconds since construction (the CPU time counts every thread's).
class PhaseClock {
public:
  struct Times {
    double wall, cpu;
  };
  Times elapsed() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count(),
            backend::processCpuSeconds() - cpu_};
  }

private:
  std::chrono::steady_clock::time_point wall_ = std::chrono::steady_clock::now();
  double cpu_ = backend::processCpuSeconds();
};

using Counters = std::map<std::string, int64_t>;

// The simulator's counters of this thread (VTASimStatsJSON), by name.
Counters simulatorCounters() {
  Counters counters;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(VTASimStatsJSON());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return counters;
  }
  if (const llvm::json::Object *object = parsed->getAsObject())
    for (const auto &[name, value] : *object)
      if (std::optional<int64_t> number = value.getAsInteger()) counters[name.str()] = *number;
  return counters;
}

// What one call of the graph added to the simulator's counters.
struct CallCounters {
  size_t index;
  std::string callee;
  Counters added;
};

// The executor's after-call check: ends the call's VTA run (backend::finishVtaRun) and records
// what the call added to the counters, as the difference of the simulator's own running totals
// (so that the calls add up to the total by the simulator's count, not by construction).
class CallStatistics {
public:
  llvm::Error record(const GraphCall &call) {
    if (llvm::Error error = backend::finishVtaRun(call.loc)) return error;
    Counters now = simulatorCounters();
    Counters added;
    for (const auto &[name, value] : now) added[name] = value - (previous_.count(name) ? previous_.at(name) : 0);
    calls_.push_back({call.index, call.callee.str(), std::move(added)});
    previous_ = std::move(now);
    return llvm::Error::success();
  }
  const std::vector<CallCounters> &calls() const { return calls_; }

private:
  Counters previous_;
  std::vector<CallCounters> calls_;
};

llvm::json::Object countersJson(const Counters &counters) {
  llvm::json::Object object;
  for (const auto &[name, value] : counters) object[name] = value;
  return object;
}

std::string statsJson(const GraphStats &stats, const std::vector<CallCounters> &calls, const Counters &total) {
  llvm::json::Array perCall;
  for (const CallCounters &call : calls)
    perCall.push_back(llvm::json::Object{{"index", int64_t(call.index)}, {"callee", call.callee}, {"vta", countersJson(call.added)}});
  llvm::json::Object object{{"prim_func_calls", int64_t(stats.primFuncCalls)},
                            {"registered_calls", int64_t(stats.registeredCalls)},
                            {"peak_tensor_bytes", stats.peakTensorBytes},
                            {"total_tensor_bytes", stats.totalTensorBytes},
                            {"calls", std::move(perCall)},
                            {"vta", countersJson(total)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return os.str();
}

// Rows of cells as a table: the first column right-aligned, the second left-aligned (names),
// the others right-aligned (numbers), two spaces apart.
void printTable(const std::vector<std::vector<std::string>> &rows, std::ostream &out) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (i >= widths.size()) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  for (const auto &row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string pad(widths[i] - row[i].size(), ' ');
      line += "  " + (i == 1 ? row[i] + pad : pad + row[i]);
    }
    out << line.substr(0, line.find_last_not_of(' ') + 1) << "\n";
  }
}

// The counters of TVM's simulator, the instruction count and the cycles, per call and in total.
void printCallTable(const std::vector<CallCounters> &calls, const Counters &total, std::ostream &out) {
  std::vector<std::string> names(std::begin(backend::kTvmCounters), std::end(backend::kTvmCounters));
  names.push_back("insn_counter");
  names.push_back("cycles");  // the timing model's (docs/timing-model.md)
  auto row = [&](std::string first, std::string callee, const Counters &counters) {
    std::vector<std::string> cells{std::move(first), std::move(callee)};
    for (const std::string &name : names)
      cells.push_back(std::to_string(counters.count(name) ? counters.at(name) : 0));
    return cells;
  };
  std::vector<std::vector<std::string>> rows{{"call", "callee"}};
  rows[0].insert(rows[0].end(), names.begin(), names.end());
  for (const CallCounters &call : calls) rows.push_back(row(std::to_string(call.index), call.callee, call.added));
  rows.push_back(row("total", "", total));
  out << "VTA simulator statistics per call (bytes loaded and stored, GEMM and ALU operations, instructions, "
         "cycles):\n";
  printTable(rows, out);
}

void printStats(const GraphStats &stats, const std::string &entry, const std::vector<CallCounters> &calls,
                const Counters &total, std::ostream &out) {
  out << "graph statistics of '" << entry << "':\n"
      << "  prim_func calls    " << stats.primFuncCalls << "\n"
      << "  registered calls   " << stats.registeredCalls << "\n"
      << "  peak tensor bytes  " << stats.peakTensorBytes << "\n"
      << "  total tensor bytes " << stats.totalTensorBytes << "\n";
  bool any = std::any_of(total.begin(), total.end(), [](const auto &counter) { return counter.second != 0; });
  if (any) printCallTable(calls, total, out);  // else no prim_func ran on the simulator
}

}  // namespace

bool isGraphEntry(const ir::IRModule &module, const std::string &entry) {
  return ir::asRelaxFunction(module.lookup(entryName(entry))) != nullptr;
}

llvm::Expected<NamedTensors> runGraph(const ir::IRModule &module, const std::string &entry,
                                      const backend::ArgumentSources &arguments) {
  backend::ExternRegistry externs;
  backend::registerVtaExterns(externs);
  llvm::Expected<GraphExecutor> executor = GraphExecutor::create(module, entryName(entry), externs);
  if (!executor) return executor.takeError();
  GraphRunOptions options;
  options.arguments = arguments;
  llvm::Expected<NamedTensors> inputs = prepareInputs(*executor, options);
  if (!inputs) return inputs.takeError();
  return executor->run(*inputs);
}

int runGraphCommand(const ir::IRModule &parsed, const GraphRunOptions &options, std::ostream &out,
                    std::ostream &errors) {
  auto fail = [&](llvm::Error error) {
    errors << backend::renderError(std::move(error));
    return 1;
  };
  std::vector<backend::SharedLibrary> libraries;
  for (const std::string &path : options.libraries) {
    llvm::Expected<backend::SharedLibrary> library = loadFunctionLibrary(path);
    if (!library) return fail(library.takeError());
    libraries.push_back(std::move(*library));
  }
  const ir::IRModule &module = parsed;

  backend::ExternRegistry externs;
  backend::registerVtaExterns(externs);
  if (llvm::Error error = backend::registerLibraryExterns(module, libraries, externs)) return fail(std::move(error));
  PhaseClock compileClock;
  llvm::Expected<GraphExecutor> executor =
      GraphExecutor::create(module, entryName(options.entry), externs, options.compiler, options.compileThreads);
  if (!executor) return fail(executor.takeError());
  PhaseClock::Times compileTimes = compileClock.elapsed();
  CallStatistics callStatistics;
  executor->setAfterCall([&](const GraphCall &call) { return callStatistics.record(call); });
  if (llvm::Error error = checkOutputs(*executor, options)) return fail(std::move(error));
  llvm::Expected<NamedTensors> inputs = prepareInputs(*executor, options);
  if (!inputs) return fail(inputs.takeError());
  auto expectedOutputs = readExpectedOutputs(options.expectations);
  if (!expectedOutputs) return fail(expectedOutputs.takeError());

  VTASimClearStats();
  PhaseClock runClock;
  llvm::Expected<NamedTensors> results = executor->run(*inputs);
  if (!results) return fail(results.takeError());
  PhaseClock::Times runTimes = runClock.elapsed();
  Counters total = simulatorCounters();

  // A checked result name ("": the only result) -> (its name, its tensor).
  auto result = [&](const std::string &name) -> const std::pair<std::string, backend::Tensor> & {
    if (name.empty()) return results->front();
    return *std::find_if(results->begin(), results->end(), [&](const auto &r) { return r.first == name; });
  };
  bool matches = true;
  for (const ExpectedOutput &expected : *expectedOutputs) {
    const auto &[name, tensor] = result(expected.name);
    matches &= reportComparison(name, expected.tensor, tensor, expected.path, options.tolerance, out);
  }
  // All outputs or none.
  support::OutputSet files;
  for (const auto &[name, path] : options.outputs)
    if (llvm::Error error = files.stage(path, backend::encodeNpy(result(name).second))) return fail(std::move(error));
  if (!options.statsJsonPath.empty())
    if (llvm::Error error = files.stage(options.statsJsonPath, statsJson(executor->stats(), callStatistics.calls(), total) + "\n"))
      return fail(std::move(error));
  if (llvm::Error error = files.commit()) return fail(std::move(error));
  if (options.stats) printStats(executor->stats(), entryName(options.entry), callStatistics.calls(), total, out);
  if (options.timing)
    errors << llvm::formatv("timing: compile {0:f4} s ({1:f4} s CPU, {2} prim_funcs, up to {3} threads), run {4:f4} s "
                            "({5:f4} s CPU, host code and simulation)\n",
                            compileTimes.wall, compileTimes.cpu, executor->compiledFunctions(),
                            std::max(1u, options.compileThreads), runTimes.wall, runTimes.cpu)
                  .str();
  return matches ? 0 : 1;
}

}  // namespace vtac::driver
