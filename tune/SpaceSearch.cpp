#include "vtac/tune/SpaceSearch.h"

#include <algorithm>
#include <sstream>

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/ScopeExit.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>

#include "vtac/backend/SimulatedRun.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/prepare/Prepare.h"
#include "vtac/support/ProgressLine.h"

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

}  // namespace

class SpaceSearch::Searcher {
public:
  Searcher(const SearchOptions &options, Objective objective, JobSlots &slots, const frontend::ParsedModule &parsed,
              std::ostream &out, std::ostream &errors)
      : options_(options), objective_(objective), slots_(slots), parsed_(parsed), out_(out), errors_(errors),
        progress_(errors, support::ProgressLine::styleForStderr(options.progress)) {}

  std::optional<std::pair<size_t, Cost>> search(const passes::autoschedule::FunctionSpace &space) {
    const std::string &name = space.function;
    auto endWorkers = llvm::make_scope_exit([&] { workers_.reset(); });  // they measure this space
    // Each trial lowers this function alone.
    prepare::Recipe recipe;
    recipe.passes = "vta-lower";
    recipe.function = name;
    recipe.vtaConfig = options_.vtaConfig;
    // (The command has checked the VTA configuration, the one part of this recipe that may fail.)
    llvm::Expected<prepare::Preparer> preparer = prepare::Preparer::create(recipe);
    if (!preparer) return fail(preparer.takeError());
    preparer_.emplace(std::move(*preparer));
    ir::PrimFuncRef unscheduled = ir::cast<ir::PrimFunc>(parsed_.module.lookup(name));
    // The JIT's CPU code: the interpreter would take minutes on a ResNet layer, and the JIT is
    // checked against it (fuzz/engines.py).
    llvm::Expected<std::vector<backend::Tensor>> inputs = backend::randomArguments(unscheduled, name, options_.seed);
    if (!inputs) return fail(inputs.takeError());
    inputs_ = std::move(*inputs);
    llvm::Expected<backend::SimulatedRun> reference =
        backend::runSimulated(unscheduled, name, inputs_, /*interpret=*/false);
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
    std::ostringstream remarks;
    llvm::Error refusal = preparer_->prepare(candidate, remarks);
    outcome.text = remarks.str();
    if (refusal) {
      outcome.text += ir::renderError(std::move(refusal));
      outcome.kind = TrialOutcome::Refused;
      return outcome;
    }
    ir::PrimFuncRef lowered = ir::cast<ir::PrimFunc>(candidate.module.lookup(name));
    llvm::Expected<backend::SimulatedRun> run = backend::runSimulated(lowered, name, inputs_, /*interpret=*/false);
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

  const SearchOptions &options_;
  Objective objective_;
  JobSlots &slots_;
  const frontend::ParsedModule &parsed_;
  std::optional<prepare::Preparer> preparer_;  // of the function being searched
  std::unique_ptr<WorkerPool> workers_;       // with -j: forked while searching that function
  std::vector<backend::Tensor> inputs_;       // every trial's arguments, as the reference's start
  std::ostream &out_, &errors_;
  support::ProgressLine progress_;
  std::string log_;
};


SpaceSearch::SpaceSearch(const SearchOptions &options, Objective objective, JobSlots &slots,
                         const frontend::ParsedModule &parsed, std::ostream &out, std::ostream &errors)
    : searcher_(std::make_unique<Searcher>(options, objective, slots, parsed, out, errors)) {}

SpaceSearch::~SpaceSearch() = default;

std::optional<std::pair<size_t, Cost>> SpaceSearch::search(const passes::autoschedule::FunctionSpace &space) {
  return searcher_->search(space);
}

const std::string &SpaceSearch::logText() const { return searcher_->logText(); }

}  // namespace vtac::tune
