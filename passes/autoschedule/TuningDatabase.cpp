#include "vtac/passes/autoschedule/TuningDatabase.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/SourceLoc.h"

namespace vtac::passes::autoschedule {

namespace {

// A database is a few hundred bytes a workload: a larger file is not one.
constexpr uint64_t kMaxDatabaseBytes = 64 << 20;

llvm::Expected<TuningRecord> parseRecord(llvm::StringRef line, ir::SourceLoc at) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
  if (!value) return ir::diagnosticError(at, "tuning database: " + llvm::toString(value.takeError()));
  const llvm::json::Object *object = value->getAsObject();
  TuningRecord record;
  auto text = [&](llvm::StringRef key, std::string &into) {
    std::optional<llvm::StringRef> got = object ? object->getString(key) : std::nullopt;
    if (got) into = got->str();
    return got.has_value();
  };
  auto number = [&](llvm::StringRef key, uint64_t &into) {
    std::optional<int64_t> got = object ? object->getInteger(key) : std::nullopt;
    if (got && *got >= 0) into = uint64_t(*got);
    return got && *got >= 0;
  };
  if (!text("workload", record.workload) || !text("vta", record.vta) || !text("schedule", record.schedule) ||
      !number("cycles", record.cycles) || !number("dram_bytes", record.dramBytes))
    return ir::diagnosticError(at, "tuning database: a record is an object with the strings \"workload\", \"vta\" and "
                                   "\"schedule\" and the counts \"cycles\" and \"dram_bytes\"");
  return record;
}

}  // namespace

llvm::Expected<TuningDatabase> TuningDatabase::read(const std::string &path, bool missingIsEmpty) {
  TuningDatabase database;
  if (missingIsEmpty && !llvm::sys::fs::exists(path)) return database;
  if (!llvm::sys::fs::is_regular_file(path))
    return ir::diagnosticError("--tuning-db " + path + ": cannot read the tuning database: " +
                               (llvm::sys::fs::exists(path) ? "not a regular file" : "no such file"));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return ir::diagnosticError("--tuning-db " + path + ": cannot read the tuning database: " +
                                                 buffer.getError().message());
  if ((*buffer)->getBufferSize() > kMaxDatabaseBytes)
    return ir::diagnosticError("--tuning-db " + path + ": a tuning database of more than 64 MiB");
  std::string contents = (*buffer)->getBuffer().str();
  uint32_t file = ir::registerSourceFile(path, contents);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(contents).split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i].trim();
    if (line.empty()) continue;
    llvm::Expected<TuningRecord> record = parseRecord(line, ir::SourceLoc{file, uint32_t(i + 1), 1});
    if (!record) return record.takeError();
    database.put(std::move(*record));
  }
  return database;
}

const TuningRecord *TuningDatabase::find(const std::string &workload, const std::string &vta) const {
  for (const TuningRecord &record : records_)
    if (record.workload == workload && record.vta == vta) return &record;
  return nullptr;
}

void TuningDatabase::put(TuningRecord record) {
  for (TuningRecord &existing : records_)
    if (existing.workload == record.workload && existing.vta == record.vta) {
      existing = std::move(record);
      return;
    }
  records_.push_back(std::move(record));
}

std::string TuningDatabase::text() const {
  std::string out;
  for (const TuningRecord &record : records_) {
    llvm::json::Object object{{"workload", record.workload},
                              {"vta", record.vta},
                              {"schedule", record.schedule},
                              {"cycles", int64_t(record.cycles)},
                              {"dram_bytes", int64_t(record.dramBytes)}};
    std::string line;
    llvm::raw_string_ostream os(line);
    os << llvm::json::Value(std::move(object));
    out += os.str() + "\n";
  }
  return out;
}

std::string vtaModelName(const vta::Config &config) {
  return std::to_string(config.batch) + "x" + std::to_string(config.blockIn) + "_i" + std::to_string(config.inpWidth) +
         "w" + std::to_string(config.wgtWidth) + "a" + std::to_string(config.accWidth) + "_" +
         std::to_string(config.logUopBuffSize) + "_" + std::to_string(config.logInpBuffSize) + "_" +
         std::to_string(config.logWgtBuffSize) + "_" + std::to_string(config.logAccBuffSize);
}

}  // namespace vtac::passes::autoschedule
