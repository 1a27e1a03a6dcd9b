#include "vtac/tune/TuneCommand.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <llvm/Support/JSON.h>

#include "vta/config.h"
#include "vtac/backend/SimulatedRun.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/driver/Prepare.h"
#include "vtac/frontend/Commands.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"
#include "vtac/support/AtomicFile.h"

namespace vtac::tune {

namespace {

// What a trial costs on the simulator.
struct Cost {
  uint64_t cycles = 0;
  uint64_t dramBytes = 0;  // every load and store of the run
};

// The best of the measured trials: the fewest DRAM bytes among those within 1% of the fewest
// cycles (the timing model's resolution: many tilings differ by a few hundred cycles in a
// million, and twice the bytes), then the fewest cycles, then the earliest trial.
size_t bestTrial(const std::vector<std::optional<Cost>> &costs) {
  uint64_t fewest = UINT64_MAX;
  for (const std::optional<Cost> &cost : costs)
    if (cost) fewest = std::min(fewest, cost->cycles);
  std::optional<size_t> best;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (!costs[i] || costs[i]->cycles > fewest + fewest / 100) continue;
    const Cost &a = *costs[i];
    if (!best || std::pair(a.dramBytes, a.cycles) < std::pair(costs[*best]->dramBytes, costs[*best]->cycles)) best = i;
  }
  return *best;
}

std::string describe(const Cost &cost) {
  return std::to_string(cost.cycles) + " cycles, " + std::to_string(cost.dramBytes) + " DRAM bytes";
}

llvm::Expected<Cost> costOf(const std::string &statsJson) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(statsJson);
  if (!parsed) return parsed.takeError();
  const llvm::json::Object *stats = parsed->getAsObject();
  auto counter = [&](llvm::StringRef name) -> std::optional<uint64_t> {
    std::optional<int64_t> value = stats ? stats->getInteger(name) : std::nullopt;
    return value ? std::optional<uint64_t>(uint64_t(*value)) : std::nullopt;
  };
  Cost cost;
  std::optional<uint64_t> cycles = counter("cycles");
  if (!cycles) return ir::diagnosticError("the simulator's statistics have no cycles: " + statsJson);
  cost.cycles = *cycles;
  for (const char *bytes : {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes", "out_store_nbytes"})
    cost.dramBytes += counter(bytes).value_or(0);
  return cost;
}

// The trials of a space of `size` choices: the rule's own (0), then `trials - 1` others drawn
// without replacement, in the order drawn.
std::vector<size_t> drawTrials(size_t size, int64_t trials, std::mt19937_64 &random) {
  std::vector<size_t> others(size > 0 ? size - 1 : 0);
  std::iota(others.begin(), others.end(), size_t{1});
  size_t count = std::min(others.size(), size_t(std::max<int64_t>(trials - 1, 0)));
  for (size_t i = 0; i < count; ++i) {
    std::uniform_int_distribution<size_t> pick(i, others.size() - 1);
    std::swap(others[i], others[pick(random)]);
  }
  others.resize(count);
  others.insert(others.begin(), 0);
  return others;
}

// Measures the trials of one function's space and returns the best choice's index.
class SpaceSearch {
public:
  SpaceSearch(const TuneOptions &options, const frontend::ParsedModule &parsed, std::ostream &out, std::ostream &errors)
      : options_(options), parsed_(parsed), out_(out), errors_(errors), progress_(isatty(STDERR_FILENO)) {}

  // The best trial's choice and cost, or nullopt after the error.
  std::optional<std::pair<size_t, Cost>> search(const passes::autoschedule::FunctionSpace &space,
                                                 std::mt19937_64 &random) {
    const std::string &name = space.function;
    // Each trial lowers this function alone.
    driver::Recipe recipe;
    recipe.passes = "vta-lower";
    recipe.function = name;
    recipe.vtaConfig = options_.vtaConfig;
    int status = support::kExitSuccess;
    preparer_ = driver::Preparer::create("vtac tune", recipe, {}, errors_, status);
    if (!preparer_) return std::nullopt;
    ir::PrimFuncRef unscheduled = ir::cast<ir::PrimFunc>(parsed_.module.lookup(name));
    // The JIT's CPU code: the interpreter would take minutes on a ResNet layer, and the JIT is
    // checked against it (fuzz/engines.py).
    llvm::Expected<backend::SimulatedRun> reference =
        backend::runOnRandomArguments(unscheduled, name, options_.seed, /*interpret=*/false);
    if (!reference) return fail(reference.takeError());
    std::vector<size_t> trials = options_.choices;
    if (trials.empty()) trials = drawTrials(space.choices.size(), options_.trials, random);
    for (size_t choice : trials)
      if (choice >= space.choices.size())
        return fail(ir::diagnosticError(space.loc, "tune: --choices " + std::to_string(choice) + ": '" + name +
                                                       "' has " + std::to_string(space.choices.size()) +
                                                       " schedules (0 to " + std::to_string(space.choices.size() - 1) +
                                                       "; --space lists them)"));
    std::vector<std::optional<Cost>> costs;  // per trial; nullopt: refused
    std::optional<Cost> own;                 // the rule's choice
    size_t refused = 0;
    std::string firstRefusal;
    for (size_t t = 0; t < trials.size(); ++t) {
      const passes::autoschedule::ScheduleChoice &choice = space.choices[trials[t]];
      std::string refusal;
      costs.push_back(measure(name, choice, *reference, refusal));
      if (!costs.back() && refusal.empty()) {
        errors_ << "vtac tune: note: '" << name << "' trial " << t + 1 << " was " << choice.remark << "\n";
        return std::nullopt;
      }
      if (!costs.back() && !refused++)
        firstRefusal = refusal + "(trial " + std::to_string(t + 1) + ": " + choice.remark + ")\n";
      if (costs.back() && trials[t] == 0) own = costs.back();
      if (progress_ && t + 1 > refused)  // one measured at least
        errors_ << "\r'" << name << "': trial " << t + 1 << "/" << trials.size() << ", best "
                << costs[bestTrial(costs)]->cycles << " cycles" << std::flush;
    }
    if (progress_) errors_ << "\r\033[K";
    if (refused)
      errors_ << "vtac tune: warning: vta-lower refused " << refused << " of the " << trials.size() << " trials of '"
              << name << "'; the first:\n" << firstRefusal;
    if (refused == trials.size())
      return fail(ir::diagnosticError(space.loc, "tune: vta-lower refused every trial of '" + name + "'"));
    size_t best = bestTrial(costs);
    out_ << "'" << name << "': " << trials.size() - refused << " of " << space.choices.size() << " schedules measured"
         << (refused ? " (" + std::to_string(refused) + " more refused by vta-lower)" : "") << "\n";
    out_ << "  the rule's own: " << (own                                  ? describe(*own)
                                      : llvm::is_contained(trials, 0) ? "refused by vta-lower"
                                                                      : "not measured") << " (" << space.choices[0].remark
         << ")\n"
         << "  best:           " << describe(*costs[best]) << " (" << space.choices[trials[best]].remark << ")\n";
    return std::pair(trials[best], *costs[best]);
  }

private:
  std::nullopt_t fail(llvm::Error error) {
    errors_ << ir::renderError(std::move(error));
    return std::nullopt;
  }

  // Schedules, lowers, compiles and runs one choice; its cost, or nullopt: with the diagnostic in
  // `refusal` when the schedule or vta-lower refuses it (a located error: a limit of the
  // lowering the rule does not model), else after the error (a failed or wrong run: a bug).
  std::optional<Cost> measure(const std::string &name, const passes::autoschedule::ScheduleChoice &choice,
                              const backend::SimulatedRun &reference, std::string &refusal) {
    frontend::ParsedModule candidate = parsed_;
    candidate.schedule = ir::Trace{};
    choice.write(*candidate.schedule);
    std::ostringstream diagnostics;
    bool prepared = preparer_->prepare(candidate, diagnostics);
    if (!prepared) {
      refusal = diagnostics.str();
      return std::nullopt;
    }
    errors_ << diagnostics.str();
    ir::PrimFuncRef lowered = ir::cast<ir::PrimFunc>(candidate.module.lookup(name));
    llvm::Expected<backend::SimulatedRun> run = backend::runOnRandomArguments(lowered, name, options_.seed, false);
    if (!run) return fail(run.takeError());
    for (size_t i = 0; i < run->arguments.size(); ++i) {
      backend::TensorComparison comparison = backend::compareTensors(reference.arguments[i], run->arguments[i], 1);
      if (comparison.equal() && comparison.incompatibility.empty()) continue;
      return fail(ir::diagnosticError(lowered->loc(), "tune: a schedule of '" + name +
                                                          "' computes a different result from the unscheduled "
                                                          "function (parameter " +
                                                          std::to_string(i) + "): a bug in vtac, please report it"));
    }
    llvm::Expected<Cost> cost = costOf(run->statsJson);
    if (!cost) return fail(cost.takeError());
    return *cost;
  }

  const TuneOptions &options_;
  const frontend::ParsedModule &parsed_;
  std::optional<driver::Preparer> preparer_;  // of the function being searched
  std::ostream &out_, &errors_;
  bool progress_;
};

}  // namespace

int tuneCommand(const TuneOptions &options, std::ostream &out, std::ostream &errors) {
  auto fail = [&](llvm::Error error) {
    errors << ir::renderError(std::move(error));
    return support::kExitInputError;
  };
  if (!options.printSpace)
    for (const std::string &path : {options.output, options.tuningDb})
      if (!path.empty())
        if (llvm::Error error = support::checkOutputDirectory(path)) return fail(std::move(error));
  passes::autoschedule::TuningDatabase database;
  if (!options.tuningDb.empty()) {
    llvm::Expected<passes::autoschedule::TuningDatabase> read =
        passes::autoschedule::TuningDatabase::read(options.tuningDb, /*missingIsEmpty=*/true);
    if (!read) return fail(read.takeError());
    database = std::move(*read);
  }
  if (!options.vtaConfig.empty())
    if (llvm::Error error = backend::selectVtaConfig(options.vtaConfig, "--vta-config " + options.vtaConfig))
      return fail(std::move(error));
  llvm::Expected<vta::Config> config =
      options.vtaConfig.empty() ? vta::Config::fromEnvironment() : vta::Config::fromPathOrJSON(options.vtaConfig);
  if (!config) return fail(ir::diagnosticError("vta config: " + llvm::toString(config.takeError())));
  std::optional<frontend::ParsedModule> parsed = frontend::loadModule(options.file, errors);
  if (!parsed) return support::kExitInputError;

  llvm::Expected<std::vector<passes::autoschedule::FunctionSpace>> spaces =
      passes::autoschedule::scheduleSpaces(parsed->module, *config);
  if (!spaces) return fail(spaces.takeError());
  if (!options.entry.empty())
    llvm::erase_if(*spaces, [&](const auto &space) { return space.function != options.entry; });
  if (spaces->empty()) {
    // Located at the first function, each function's reason a note (as --auto-schedule says it).
    ir::SourceLoc at = parsed->module.loc;
    for (const ir::IRModule::Entry &entry : parsed->module.functions())
      if (!at.isKnown()) at = entry.function->loc();
    errors << ir::formatDiagnostic(at, ir::Severity::Error,
                                   options.entry.empty()
                                       ? "tune: no prim_func a VTA auto-schedule rule recognises"
                                       : "tune: '" + options.entry + "' is no prim_func a VTA auto-schedule rule recognises");
    llvm::Expected<passes::autoschedule::AutoSchedule> remarks =
        passes::autoschedule::autoSchedule(parsed->module, {}, *config);
    if (!remarks) return fail(remarks.takeError());
    for (const passes::autoschedule::Remark &remark : remarks->remarks)
      if (remark.message.find("stays on the CPU") != std::string::npos)
        errors << ir::formatDiagnostic(remark.loc, ir::Severity::Note, remark.message);
    return support::kExitInputError;
  }

  if (options.printSpace) {
    for (const passes::autoschedule::FunctionSpace &space : *spaces)
      for (size_t i = 0; i < space.choices.size(); ++i) out << space.function << " " << i << ": " << space.choices[i].remark << "\n";
    return support::kExitSuccess;
  }
  std::mt19937_64 random(options.seed);
  SpaceSearch searcher(options, *parsed, out, errors);
  ir::Trace best;
  best.name = "schedule";
  for (const passes::autoschedule::FunctionSpace &space : *spaces) {
    std::optional<std::pair<size_t, Cost>> found = searcher.search(space, random);
    if (!found) return support::kExitInputError;
    const passes::autoschedule::ScheduleChoice &chosen = space.choices[found->first];
    chosen.write(best);
    database.put({space.workload, passes::autoschedule::vtaModelName(*config), chosen.remark, found->second.cycles,
                  found->second.dramBytes});
  }
  support::OutputSet files;
  if (llvm::Error error = files.stage(options.output, "# vtac tune " + options.file + " --trials " +
                                                          std::to_string(options.trials) + " --seed " +
                                                          std::to_string(options.seed) + "\n" + ir::printTrace(best)))
    return fail(std::move(error));
  if (!options.tuningDb.empty())
    if (llvm::Error error = files.stage(options.tuningDb, database.text())) return fail(std::move(error));
  if (llvm::Error error = files.commit()) return fail(std::move(error));
  return support::kExitSuccess;
}

void registerTuneCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "tune", "Search the automatic VTA schedules of each prim_func on the simulator's timing model\n"
              "and write the fastest as a schedule file (--schedule replays it). Each trial is\n"
              "checked against the unscheduled program; the best has the fewest DRAM bytes of\n"
              "those within 1% of the fewest cycles.");
  auto options = std::make_shared<TuneOptions>();
  command->add_option("FILE", options->file, "Input .tvm file")->required();
  auto *output = command->add_option("-o,--output", options->output, "The schedule file to write (a def taking sch)");
  auto *space = command->add_flag("--space", options->printSpace,
                                  "Print each function's schedules (index: what the rule says of it) and stop");
  output->excludes(space);
  command->add_option("--choices", options->choices,
                      "I,J,...: measure these schedules of the space (--space numbers them) instead of a draw")
      ->delimiter(',');
  command->add_option("--entry", options->entry, "Tune only this prim_func (default: every one a rule recognises)");
  command->add_option("--trials", options->trials,
                      "Schedules measured per function: the rule's own, then others drawn by --seed (default 64)")
      ->check(CLI::Validator(
          [](const std::string &text) {
            return text.find_first_not_of("0123456789") == std::string::npos && text.find_first_not_of('0') != std::string::npos
                       ? ""
                       : "expected a positive integer, got '" + text + "'";
          },
          "N"));
  command->add_option("--seed", options->seed, "Seed of the draw and of the random inputs (default 0)");
  command->add_option("--tuning-db", options->tuningDb,
                      "DB: add each tuned function's schedule to this tuning database (made if absent), which "
                      "--auto-schedule --tuning-db DB applies");
  command->add_option("--vta-config", options->vtaConfig,
                      "vta_config.json path or JSON text (default: VTA_CONFIG, else TVM's default)");
  command->callback([&action, options, output] {
    if (!options->printSpace && !output->count()) throw CLI::RequiredError("--output");
    action = [options] { return tuneCommand(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::tune
