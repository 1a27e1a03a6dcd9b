#include "vtac/driver/TuneCommand.h"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <llvm/ADT/STLExtras.h>

#include "vta/config.h"
#include "vtac/backend/SimulatedRun.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/ProgressLine.h"
#include "vtac/tune/SpaceSearch.h"

namespace vtac::driver {

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
  const std::string &vtaConfig = options.search.vtaConfig;
  if (!vtaConfig.empty())
    if (llvm::Error error = backend::selectVtaConfig(vtaConfig, "--vta-config " + vtaConfig))
      return fail(std::move(error));
  llvm::Expected<vta::Config> config =
      vtaConfig.empty() ? vta::Config::fromEnvironment() : vta::Config::fromPathOrJSON(vtaConfig);
  if (!config) return fail(ir::diagnosticError("vta config: " + llvm::toString(config.takeError())));
  llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(options.file);
  if (!parsed) return fail(parsed.takeError());

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
  tune::Objective objective{options.objective == "cycles" ? 0 : config->timing.memBusBytes};
  tune::JobSlots slots = tune::JobSlots::fromMakeflags(options.jobs, std::getenv("MAKEFLAGS"), errors);
  tune::SpaceSearch searcher(options.search, objective, slots, *parsed, out, errors);
  ir::Trace best;
  best.name = "schedule";
  std::vector<passes::autoschedule::TuningRecord> records;
  for (const passes::autoschedule::FunctionSpace &space : *spaces) {
    std::optional<std::pair<size_t, tune::Cost>> found = searcher.search(space);
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
                                                          std::to_string(options.search.trials) + " --seed " +
                                                          std::to_string(options.search.seed) + "\n" + ir::printTrace(best)))
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
  command->add_option("--choices", options->search.choices,
                      "I,J,...: measure these schedules of the space (--space numbers them) instead of a draw")
      ->delimiter(',');
  command->add_option("--entry", options->entry, "Tune only this prim_func (default: every one a rule recognises)");
  command->add_option("--trials", options->search.trials,
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
  command->add_option("--seed", options->search.seed, "Seed of the search and of the random inputs (default 0)");
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
  command->add_option("--vta-config", options->search.vtaConfig,
                      "vta_config.json path or JSON text (default: VTA_CONFIG, else TVM's default)");
  command->add_flag("--progress", options->search.progress, support::kProgressFlagHelp);
  command->callback([&action, options, output] {
    if (!options->printSpace && !output->count()) throw CLI::RequiredError("--output");
    action = [options] { return tuneCommand(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
