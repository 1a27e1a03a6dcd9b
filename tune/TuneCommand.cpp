#include "vtac/tune/TuneCommand.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/ScopeExit.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>

#include "vta/config.h"
#include "vtac/backend/SimulatedRun.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/driver/Prepare.h"
#include "vtac/frontend/Commands.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/ProgressLine.h"
#include "vtac/tune/ForkedJobs.h"
#include "vtac/tune/TrialPlanner.h"

namespace vtac::tune {

namespace {

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

// What one trial came to, as text too: with -j it comes back from another process.
struct TrialOutcome {
  enum Kind { Measured, Refused, Failed } kind = Failed;
  Cost cost;         // Measured
  std::string text;  // Measured: warnings; Refused: the lowering's diagnostic; Failed: the error

  std::string serialize() const {
    static const char *kinds[] = {"measured", "refused", "failed"};
    return std::string(kinds[kind]) + " " + std::to_string(cost.cycles) + " " + std::to_string(cost.dramBytes) + "\n" +
           text;
  }
  static TrialOutcome parse(const std::string &serialized) {
    TrialOutcome outcome;
    std::istringstream in(serialized);
    std::string kind;
    in >> kind >> outcome.cost.cycles >> outcome.cost.dramBytes;
    outcome.kind = kind == "measured" ? Measured : kind == "refused" ? Refused : Failed;
    size_t newline = serialized.find('\n');
    if (newline != std::string::npos) outcome.text = serialized.substr(newline + 1);
    if (kind != "measured" && kind != "refused" && kind != "failed") outcome.text = "a malformed trial result\n";
    return outcome;
  }
};

// Measures the trials of one function's space and returns the best choice's index.
class SpaceSearch {
public:
  SpaceSearch(const TuneOptions &options, Objective objective, JobSlots &slots, const frontend::ParsedModule &parsed,
              std::ostream &out, std::ostream &errors)
      : options_(options), objective_(objective), slots_(slots), parsed_(parsed), out_(out), errors_(errors),
        progress_(errors, support::ProgressLine::styleForStderr(options.progress)) {}

  // The best trial's choice and cost, or nullopt after the error.
  std::optional<std::pair<size_t, Cost>> search(const passes::autoschedule::FunctionSpace &space) {
    const std::string &name = space.function;
    auto endWorkers = llvm::make_scope_exit([&] { workers_.reset(); });  // they measure this space
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
    for (size_t choice : options_.choices)
      if (choice >= space.choices.size())
        return fail(ir::diagnosticError(space.loc, "tune: --choices " + std::to_string(choice) + ": '" + name +
                                                       "' has " + std::to_string(space.choices.size()) +
                                                       " schedules (0 to " + std::to_string(space.choices.size() - 1) +
                                                       "; --space lists them)"));
    TrialPlanner planner(space, size_t(options_.trials), options_.seed, objective_);
    auto nextBatch = [&](const std::vector<size_t> &trials, const std::vector<std::optional<Cost>> &costs) {
      if (options_.choices.empty()) return planner.nextBatch(trials, costs);
      return trials.empty() ? options_.choices : std::vector<size_t>{};
    };
    std::vector<size_t> trials;              // the choices measured, in order
    std::vector<std::optional<Cost>> costs;  // per trial; nullopt: refused
    std::optional<Cost> own;                 // the rule's choice
    size_t refused = 0;
    std::string firstRefusal;
    size_t planned = options_.choices.empty() ? std::min(size_t(options_.trials), space.choices.size())
                                              : options_.choices.size();
    for (std::vector<size_t> batch = nextBatch(trials, costs); !batch.empty(); batch = nextBatch(trials, costs)) {
      std::vector<TrialOutcome> outcomes = measureAll(name, space, batch, *reference);
      for (size_t b = 0; b < batch.size(); ++b) {
        size_t t = trials.size();
        const passes::autoschedule::ScheduleChoice &choice = space.choices[batch[b]];
        const TrialOutcome &outcome = outcomes[b];
        trials.push_back(batch[b]);
        costs.push_back(outcome.kind == TrialOutcome::Measured ? std::optional(outcome.cost) : std::nullopt);
        log(name, batch[b], choice, outcome);
        if (outcome.kind == TrialOutcome::Failed) {
          errors_ << outcome.text << "vtac tune: note: '" << name << "' trial " << t + 1 << " was " << choice.remark
                  << "\n";
          return std::nullopt;
        }
        if (outcome.kind == TrialOutcome::Refused && !refused++)
          firstRefusal = outcome.text + "(trial " + std::to_string(t + 1) + ": " + choice.remark + ")\n";
        if (outcome.kind == TrialOutcome::Measured) errors_ << outcome.text;
        if (costs.back() && trials[t] == 0) own = costs.back();
      }
      if (trials.size() > refused)  // one measured at least
        progress_.update("vtac tune: '" + name + "': trial " + std::to_string(trials.size()) + "/" +
                             std::to_string(planned) + support::ProgressLine::percent(trials.size(), planned) +
                             ", best " + std::to_string(costs[rankTrials(costs, objective_).front()]->cycles) +
                             " cycles",
                         trials.size() == planned);
    }
    progress_.finish();
    if (refused)
      errors_ << "vtac tune: warning: vta-lower refused " << refused << " of the " << trials.size() << " trials of '"
              << name << "'; the first:\n" << firstRefusal;
    if (refused == trials.size())
      return fail(ir::diagnosticError(space.loc, "tune: vta-lower refused every trial of '" + name + "'"));
    size_t best = rankTrials(costs, objective_).front();
    out_ << "'" << name << "': " << trials.size() - refused << " of " << space.choices.size() << " schedules measured"
         << (refused ? " (" + std::to_string(refused) + " more refused by vta-lower)" : "") << "\n";
    out_ << "  the rule's own: " << (own                                  ? describe(*own)
                                      : llvm::is_contained(trials, 0) ? "refused by vta-lower"
                                                                      : "not measured") << " (" << space.choices[0].remark
         << ")\n"
         << "  best:           " << describe(*costs[best]) << " (" << space.choices[trials[best]].remark << ")\n";
    return std::pair(trials[best], *costs[best]);
  }

  // One JSON line per trial (--log): the function, the choice's index and remark, and its cost
  // or the first line of vta-lower's refusal.
  const std::string &logText() const { return log_; }

private:
  void log(const std::string &function, size_t index, const passes::autoschedule::ScheduleChoice &choice,
           const TrialOutcome &outcome) {
    llvm::json::Object line{{"function", function}, {"choice", int64_t(index)}, {"remark", choice.remark}};
    if (outcome.kind == TrialOutcome::Measured) {
      line["cycles"] = int64_t(outcome.cost.cycles);
      line["dram_bytes"] = int64_t(outcome.cost.dramBytes);
    } else {
      line["refused"] = llvm::StringRef(outcome.text).split('\n').first;
    }
    log_ += llvm::formatv("{0}", llvm::json::Value(std::move(line))).str() + "\n";
  }

  std::nullopt_t fail(llvm::Error error) {
    errors_ << ir::renderError(std::move(error));
    return std::nullopt;
  }

  // The batch's outcomes in order: here one after the other, or with -j in forked processes.
  std::vector<TrialOutcome> measureAll(const std::string &name, const passes::autoschedule::FunctionSpace &space,
                                       const std::vector<size_t> &batch, const backend::SimulatedRun &reference) {
    std::vector<TrialOutcome> outcomes;
    if (slots_.maxJobs() == 1) {
      for (size_t choice : batch) outcomes.push_back(measure(name, space.choices[choice], reference));
      return outcomes;
    }
    if (!workers_)
      workers_ = std::make_unique<WorkerPool>(
          slots_, [&](size_t choice) { return measure(name, space.choices[choice], reference).serialize(); });
    std::vector<JobResult> results = workers_->run(batch);
    for (const JobResult &result : results) {
      if (result.text) {
        outcomes.push_back(TrialOutcome::parse(*result.text));
        continue;
      }
      TrialOutcome died;
      died.text = ir::renderError(ir::diagnosticError(
          space.loc, "tune: the process measuring a trial of '" + name + "' " + result.why + ": a bug in vtac, please report it"));
      outcomes.push_back(std::move(died));
    }
    return outcomes;
  }

  // Schedules, lowers, compiles and runs one choice: its cost; refused when the schedule or
  // vta-lower refuses it (a located error: a limit of the lowering the rule does not model);
  // failed when the run fails or differs from the unscheduled program (a bug).
  TrialOutcome measure(const std::string &name, const passes::autoschedule::ScheduleChoice &choice,
                       const backend::SimulatedRun &reference) {
    TrialOutcome outcome;
    auto failed = [&](llvm::Error error) {
      outcome.kind = TrialOutcome::Failed;
      outcome.text += ir::renderError(std::move(error));
      return outcome;
    };
    frontend::ParsedModule candidate = parsed_;
    candidate.schedule = ir::Trace{};
    choice.write(*candidate.schedule);
    std::ostringstream diagnostics;
    bool prepared = preparer_->prepare(candidate, diagnostics);
    outcome.text = diagnostics.str();
    if (!prepared) {
      outcome.kind = TrialOutcome::Refused;
      return outcome;
    }
    ir::PrimFuncRef lowered = ir::cast<ir::PrimFunc>(candidate.module.lookup(name));
    llvm::Expected<backend::SimulatedRun> run = backend::runOnRandomArguments(lowered, name, options_.seed, false);
    if (!run) return failed(run.takeError());
    for (size_t i = 0; i < run->arguments.size(); ++i) {
      backend::TensorComparison comparison = backend::compareTensors(reference.arguments[i], run->arguments[i], 1);
      if (comparison.equal() && comparison.incompatibility.empty()) continue;
      return failed(ir::diagnosticError(lowered->loc(), "tune: a schedule of '" + name +
                                                            "' computes a different result from the unscheduled "
                                                            "function (parameter " +
                                                            std::to_string(i) + "): a bug in vtac, please report it"));
    }
    llvm::Expected<Cost> cost = costOf(run->statsJson);
    if (!cost) return failed(cost.takeError());
    outcome.kind = TrialOutcome::Measured;
    outcome.cost = *cost;
    return outcome;
  }

  const TuneOptions &options_;
  Objective objective_;
  JobSlots &slots_;
  const frontend::ParsedModule &parsed_;
  std::optional<driver::Preparer> preparer_;  // of the function being searched
  std::unique_ptr<WorkerPool> workers_;       // with -j: forked while searching that function
  std::ostream &out_, &errors_;
  support::ProgressLine progress_;
  std::string log_;
};

}  // namespace

int tuneCommand(const TuneOptions &options, std::ostream &out, std::ostream &errors) {
  auto fail = [&](llvm::Error error) {
    errors << ir::renderError(std::move(error));
    return support::kExitInputError;
  };
  if (!options.printSpace)
    for (const std::string &path : {options.output, options.tuningDb, options.log})
      if (!path.empty())
        if (llvm::Error error = support::checkOutputDirectory(path)) return fail(std::move(error));
  if (!options.tuningDb.empty())  // a malformed database is an error before the search, not after
    if (llvm::Expected<passes::autoschedule::TuningDatabase> read =
            passes::autoschedule::TuningDatabase::read(options.tuningDb, /*missingIsEmpty=*/true);
        !read)
      return fail(read.takeError());
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
  Objective objective{options.objective == "cycles" ? 0 : config->timing.memBusBytes};
  JobSlots slots = JobSlots::fromMakeflags(options.jobs, std::getenv("MAKEFLAGS"), errors);
  SpaceSearch searcher(options, objective, slots, *parsed, out, errors);
  ir::Trace best;
  best.name = "schedule";
  std::vector<passes::autoschedule::TuningRecord> records;
  for (const passes::autoschedule::FunctionSpace &space : *spaces) {
    std::optional<std::pair<size_t, Cost>> found = searcher.search(space);
    if (!found) return support::kExitInputError;
    const passes::autoschedule::ScheduleChoice &chosen = space.choices[found->first];
    chosen.write(best);
    records.push_back({space.workload, passes::autoschedule::vtaModelName(*config), chosen.remark,
                       found->second.cycles, found->second.dramBytes});
  }
  // Tunes that run at once (make -j) add to one database: it is read again, the records added
  // and written back under a lock, so none is lost.
  std::optional<support::DirectoryLock> locked;
  passes::autoschedule::TuningDatabase database;
  if (!options.tuningDb.empty()) {
    llvm::Expected<support::DirectoryLock> lock = support::DirectoryLock::acquire(options.tuningDb);
    if (!lock) return fail(lock.takeError());
    locked.emplace(std::move(*lock));
    llvm::Expected<passes::autoschedule::TuningDatabase> read =
        passes::autoschedule::TuningDatabase::read(options.tuningDb, /*missingIsEmpty=*/true);
    if (!read) return fail(read.takeError());
    database = std::move(*read);
    for (passes::autoschedule::TuningRecord &record : records) database.put(std::move(record));
  }
  support::OutputSet files;
  if (llvm::Error error = files.stage(options.output, "# vtac tune " + options.file + " --trials " +
                                                          std::to_string(options.trials) + " --seed " +
                                                          std::to_string(options.seed) + "\n" + ir::printTrace(best)))
    return fail(std::move(error));
  if (!options.tuningDb.empty())
    if (llvm::Error error = files.stage(options.tuningDb, database.text())) return fail(std::move(error));
  if (!options.log.empty())
    if (llvm::Error error = files.stage(options.log, searcher.logText())) return fail(std::move(error));
  if (llvm::Error error = files.commit()) return fail(std::move(error));
  return support::kExitSuccess;
}

void registerTuneCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "tune", "Search the automatic VTA schedules of each prim_func on the simulator's timing model\n"
              "and write the best as a schedule file (--schedule replays it). Each trial is\n"
              "checked against the unscheduled program; the best has the least --objective.");
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
                      "Schedules measured per function: the rule's own, a quarter drawn by --seed, then the "
                      "neighbours of the best (default 64)")
      ->check(CLI::Validator(
          [](const std::string &text) {
            return text.find_first_not_of("0123456789") == std::string::npos && text.find_first_not_of('0') != std::string::npos
                       ? ""
                       : "expected a positive integer, got '" + text + "'";
          },
          "N"));
  command->add_option("-j,--jobs", options->jobs,
                      "N: measure up to N trials at once, each in a process of its own (default 1); under make "
                      "-j, only as many as make's jobserver grants (mark the recipe '+')")
      ->check(CLI::Range(1, 1024));
  command->add_option("--seed", options->seed, "Seed of the search and of the random inputs (default 0)");
  command->add_option("--objective", options->objective,
                      "What the best trial has the least of: cycles (default: the fewest modelled cycles; "
                      "among trials within 0.2% of them, the fewest DRAM bytes) or cycles+dram (the cycles plus "
                      "the cycles the DRAM bus is busy with the trial's loads and stores, at the VTA config's "
                      "mem_bus_bytes a cycle: trades a few percent of cycles for bytes)")
      ->check(CLI::IsMember({"cycles", "cycles+dram"}));
  command->add_option("--log", options->log,
                      "FILE: write every trial as a JSON line (function, choice, remark, cycles and dram_bytes, or "
                      "refused)");
  command->add_option("--tuning-db", options->tuningDb,
                      "DB: add each tuned function's schedule to this tuning database (made if absent), which "
                      "--auto-schedule --tuning-db DB applies");
  command->add_option("--vta-config", options->vtaConfig,
                      "vta_config.json path or JSON text (default: VTA_CONFIG, else TVM's default)");
  command->add_flag("--progress", options->progress, support::kProgressFlagHelp);
  command->callback([&action, options, output] {
    if (!options->printSpace && !output->count()) throw CLI::RequiredError("--output");
    action = [options] { return tuneCommand(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::tune
