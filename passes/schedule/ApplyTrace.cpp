// Binding a step's arguments to its primitive's signature, applying it, recording it.
#include "vtac/passes/schedule/ApplyTrace.h"

#include "Primitive.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using ir::TraceValue;

namespace {

const char *kindName(TraceValue::Kind kind) {
  switch (kind) {
  case TraceValue::Kind::None: return "None";
  case TraceValue::Kind::Bool: return "a bool";
  case TraceValue::Kind::Int: return "an integer";
  case TraceValue::Kind::Float: return "a float";
  case TraceValue::Kind::String: return "a string";
  case TraceValue::Kind::Name: return "a name";
  case TraceValue::Kind::List: return "a list";
  case TraceValue::Kind::Dict: return "a dictionary";
  case TraceValue::Kind::Lambda: return "a lambda";
  case TraceValue::Kind::Param: return "a lambda parameter";
  case TraceValue::Kind::Operation: return "an index expression";
  }
  return "a value";
}

// The step's arguments by parameter name, defaults filled in.
llvm::Expected<std::map<std::string, TraceValue>> bindArguments(const PrimitiveSpec &spec, const ir::TraceStep &step) {
  std::map<std::string, TraceValue> values;
  size_t nextPositional = 0;
  for (const ir::TraceArgument &argument : step.arguments) {
    const ParamSpec *param = nullptr;
    if (argument.keyword.empty()) {
      if (nextPositional >= spec.params.size())
        return ir::diagnosticError(argument.value.loc, "too many arguments for sch." + std::string(spec.name) +
                                                           " (it takes " + std::to_string(spec.params.size()) + ")");
      param = &spec.params[nextPositional];
      if (param->variadic) {
        values.try_emplace(param->name, TraceValue::ofList({}, argument.value.loc));
        values[param->name].items.push_back(argument.value);
        continue;
      }
      ++nextPositional;
    } else {
      for (const ParamSpec &candidate : spec.params)
        if (argument.keyword == candidate.name && !candidate.variadic) param = &candidate;
      if (!param)
        return ir::diagnosticError(argument.value.loc, "sch." + std::string(spec.name) +
                                                           " has no parameter '" + argument.keyword + "'");
    }
    if (!values.emplace(param->name, argument.value).second)
      return ir::diagnosticError(argument.value.loc, "argument '" + std::string(param->name) + "' given twice");
  }
  for (const ParamSpec &param : spec.params) {
    if (values.count(param.name)) continue;
    if (param.variadic) {
      values.emplace(param.name, TraceValue::ofList({}, step.loc));
    } else if (param.defaultValue) {
      values.emplace(param.name, *param.defaultValue);
    } else {
      return ir::diagnosticError(step.loc, "sch." + std::string(spec.name) + " needs the argument '" +
                                               std::string(param.name) + "'");
    }
  }
  return values;
}

// Why `rv`, named `name` in the trace, is not the loop a step needs.
std::string notALoop(const std::string &name, const RV &rv) {
  if (const auto *mark = std::get_if<LocationMarkRV>(&rv))
    return ir::describeTraceName(name) + " is the " +
           (mark->kind == LocationMarkRV::Kind::Root ? "root" : "inline") +
           " location sampled by sample_compute_location, not a loop (only compute_at and reverse_compute_at take it)";
  return ir::describeTraceName(name) + " is not a loop";
}

// The argument as the trace prints it: names of RVs replaced by their trace names.
TraceValue canonical(const TraceValue &value, const std::map<std::string, size_t> &names, Schedule &sch) {
  TraceValue copy = value;
  if (copy.kind == TraceValue::Kind::Name) {
    const Schedule::Binding &binding = sch.bindings()[names.at(copy.text)];
    if (std::holds_alternative<NoneRV>(binding.rv)) return TraceValue::none(value.loc);
    copy.text = binding.traceName;
  }
  for (TraceValue &item : copy.items) item = canonical(item, names, sch);
  return copy;
}

}  // namespace

ir::SourceLoc StepArgs::at(const char *param) const {
  ir::SourceLoc loc = values_.at(param).loc;
  return loc.isKnown() ? loc : step_.loc;
}

llvm::Error StepArgs::typeError(const char *param, const char *expected) const {
  return ir::diagnosticError(at(param), "argument '" + std::string(param) + "' of sch." + step_.primitive +
                                            " must be " + expected + ", not " + kindName(value(param).kind));
}

llvm::Expected<RV> StepArgs::resolve(const TraceValue &name) {
  auto it = names_.find(name.text);
  if (it == names_.end()) return ir::diagnosticError(name.loc, "undefined name '" + name.text + "'");
  return sch_.bindings()[it->second].rv;
}

llvm::Expected<BlockRV> StepArgs::blockNamed(ir::TraceValue &value) {
  // TVM's Python API turns a block name into a get_block step of its own.
  llvm::Expected<std::string> func = sch_.defaultFunction(value.loc);
  if (!func) return func.takeError();
  BlockRV rv{*func, value.text};
  if (llvm::Expected<StmtPath> path = sch_.findBlock(rv, value.loc); !path) return path.takeError();
  Schedule::Binding binding = sch_.bindNew(rv);
  ir::TraceStep getBlock;
  getBlock.primitive = "get_block";
  getBlock.arguments = {{"name", TraceValue::ofString(value.text)}, {"func_name", TraceValue::ofString(*func)}};
  getBlock.results = {binding.traceName};
  sch_.recordStep(std::move(getBlock));
  // Keyed so that no name of the schedule text can clash with it.
  std::string key = "%" + binding.traceName;
  names_[key] = sch_.bindings().size() - 1;
  value = TraceValue::ofName(key, value.loc);
  return rv;
}

llvm::Expected<BlockRV> StepArgs::block(const char *param) {
  TraceValue &v = values_.at(param);
  if (v.kind == TraceValue::Kind::String) {
    v.loc = at(param);
    return blockNamed(v);
  }
  if (v.kind != TraceValue::Kind::Name) return typeError(param, "a block");
  llvm::Expected<RV> rv = resolve(v);
  if (!rv) return rv.takeError();
  if (const auto *block = std::get_if<BlockRV>(&*rv)) return *block;
  return ir::diagnosticError(at(param), ir::describeTraceName(v.text) + " is not a block");
}

llvm::Expected<LoopRV> StepArgs::loop(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind != TraceValue::Kind::Name) return typeError(param, "a loop");
  llvm::Expected<RV> rv = resolve(v);
  if (!rv) return rv.takeError();
  if (const auto *loop = std::get_if<LoopRV>(&*rv)) return *loop;
  return ir::diagnosticError(at(param), notALoop(v.text, *rv));
}

llvm::Expected<ComputeLocation> StepArgs::computeLocation(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind != TraceValue::Kind::Name) return typeError(param, "a loop");
  llvm::Expected<RV> rv = resolve(v);
  if (!rv) return rv.takeError();
  if (const auto *loop = std::get_if<LoopRV>(&*rv)) return *loop;
  if (const auto *mark = std::get_if<LocationMarkRV>(&*rv)) return *mark;
  return ir::diagnosticError(at(param), ir::describeTraceName(v.text) + " is not a loop");
}

llvm::Expected<RV> StepArgs::blockOrLoop(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind == TraceValue::Kind::String) {
    llvm::Expected<BlockRV> rv = block(param);
    if (!rv) return rv.takeError();
    return RV(*rv);
  }
  if (v.kind != TraceValue::Kind::Name) return typeError(param, "a block or a loop");
  llvm::Expected<RV> rv = resolve(v);
  if (rv && std::holds_alternative<int64_t>(*rv))
    return ir::diagnosticError(at(param), ir::describeTraceName(v.text) + " is neither a block nor a loop");
  if (rv && std::holds_alternative<LocationMarkRV>(*rv)) return ir::diagnosticError(at(param), notALoop(v.text, *rv));
  return rv;
}

llvm::Expected<std::vector<Located<LoopRV>>> StepArgs::loops(const char *param) {
  std::vector<Located<LoopRV>> result;
  for (const TraceValue &item : value(param).items) {
    if (item.kind != TraceValue::Kind::Name)
      return ir::diagnosticError(item.loc, "sch." + step_.primitive + " takes loops, not " + kindName(item.kind));
    llvm::Expected<RV> rv = resolve(item);
    if (!rv) return rv.takeError();
    const auto *loop = std::get_if<LoopRV>(&*rv);
    if (!loop) return ir::diagnosticError(item.loc, notALoop(item.text, *rv));
    result.push_back({*loop, item.loc});
  }
  return result;
}

llvm::Expected<std::vector<BlockRV>> StepArgs::blockList(const char *param) {
  TraceValue &list = values_.at(param);
  if (list.kind != TraceValue::Kind::List) return typeError(param, "a list of blocks");
  std::vector<BlockRV> result;
  for (TraceValue &item : list.items) {
    if (item.kind == TraceValue::Kind::String) {
      llvm::Expected<BlockRV> named = blockNamed(item);
      if (!named) return named.takeError();
      result.push_back(*named);
      continue;
    }
    if (item.kind != TraceValue::Kind::Name)
      return ir::diagnosticError(item.loc, "sch." + step_.primitive + " takes blocks, not " + kindName(item.kind));
    llvm::Expected<RV> rv = resolve(item);
    if (!rv) return rv.takeError();
    const auto *block = std::get_if<BlockRV>(&*rv);
    if (!block) return ir::diagnosticError(item.loc, ir::describeTraceName(item.text) + " is not a block");
    if (llvm::Expected<StmtPath> path = sch_.findBlock(*block, item.loc); !path) return path.takeError();
    result.push_back(*block);
  }
  return result;
}

llvm::Expected<int64_t> StepArgs::integer(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind == TraceValue::Kind::Int) return v.intValue;
  if (v.kind == TraceValue::Kind::Name) {
    llvm::Expected<RV> rv = resolve(v);
    if (!rv) return rv.takeError();
    if (const auto *sampled = std::get_if<int64_t>(&*rv)) return *sampled;
  }
  return typeError(param, "an integer");
}

llvm::Expected<int64_t> StepArgs::bufferIndex(const char *param, const ir::Block &block, bool isWrite) {
  TraceValue &v = values_.at(param);
  if (v.kind != TraceValue::Kind::String) return integer(param);
  const std::vector<ir::BufferRegion> &regions = isWrite ? block.writes : block.reads;
  for (size_t i = 0; i < regions.size(); ++i)
    if (regions[i].buffer->name == v.text) {
      v = TraceValue::ofInt(int64_t(i), v.loc);
      return int64_t(i);
    }
  return ir::diagnosticError(v.loc, "the block '" + block.name + "' " + (isWrite ? "writes" : "reads") +
                                        " no buffer named '" + v.text + "'");
}

llvm::Expected<bool> StepArgs::boolean(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind == TraceValue::Kind::Bool) return v.boolValue;
  if (v.kind == TraceValue::Kind::Int && (v.intValue == 0 || v.intValue == 1)) return v.intValue == 1;
  return typeError(param, "True or False");
}

llvm::Expected<std::string> StepArgs::string(const char *param) {
  const TraceValue &v = value(param);
  if (v.kind == TraceValue::Kind::String) return v.text;
  return typeError(param, "a string");
}

namespace {

// The names the schedule binds: one result each, or (`loops = sch.get_loops(b)`, the starred name
// of `*outer, i = ...`) a list of results.
struct ResultNames {
  std::map<std::string, size_t> single;  // name -> index in sch.bindings()
  std::map<std::string, std::vector<size_t>> lists;

  void bindOne(const std::string &name, size_t binding) {
    lists.erase(name);
    single[name] = binding;
  }
  void bindList(const std::string &name, std::vector<size_t> bindings) {
    single.erase(name);
    lists[name] = std::move(bindings);
  }
};

// What `value` stands for once the lists it takes part of are known: a name bound to a list is
// the list of its results, `loops[-1]` one of them, `loops[1:]` a list, `*loops` its results one
// by one (so several values); each result is named by a key of its own in `names.single`.
llvm::Expected<std::vector<TraceValue>> expandResultLists(const TraceValue &value, ResultNames &names, Schedule &sch) {
  if (value.kind == TraceValue::Kind::List || value.kind == TraceValue::Kind::Dict) {
    TraceValue expanded = value;
    expanded.items.clear();
    for (size_t i = 0; i < value.items.size(); ++i) {
      llvm::Expected<std::vector<TraceValue>> items = expandResultLists(value.items[i], names, sch);
      if (!items) return items.takeError();
      if (value.kind == TraceValue::Kind::Dict && items->size() != 1)
        return ir::diagnosticError(value.items[i].loc, "a dictionary holds no unpacked list");
      expanded.items.insert(expanded.items.end(), items->begin(), items->end());
    }
    return std::vector<TraceValue>{expanded};
  }
  bool selects = value.starred || value.element || value.slice;
  if (value.kind != TraceValue::Kind::Name || (!selects && !names.lists.count(value.text))) return std::vector<TraceValue>{value};
  auto list = names.lists.find(value.text);
  if (list == names.lists.end()) {
    if (!names.single.count(value.text)) return ir::diagnosticError(value.loc, "undefined name '" + value.text + "'");
    return ir::diagnosticError(value.loc, ir::describeTraceName(value.text) + " is one result, not a list");
  }
  const std::vector<size_t> &bindings = list->second;
  int64_t count = int64_t(bindings.size());
  std::vector<size_t> indices;
  if (value.unpackedCount && *value.unpackedCount != count)
    return ir::diagnosticError(value.loc, "cannot unpack the " + std::to_string(count) + " results of " +
                                              ir::describeTraceName(value.text) + " into " +
                                              std::to_string(*value.unpackedCount) + " names");
  if (value.element) {
    int64_t index = *value.element < 0 ? *value.element + count : *value.element;
    if (index < 0 || index >= count)
      return ir::diagnosticError(value.loc, "index " + std::to_string(*value.element) + " is out of range: " +
                                                ir::describeTraceName(value.text) + " holds " + std::to_string(count) +
                                                " results");
    indices.push_back(size_t(index));
  } else if (value.slice) {
    indices = ir::sliceIndices(*value.slice, count);
  } else {
    for (size_t i = 0; i < bindings.size(); ++i) indices.push_back(i);
  }
  std::vector<TraceValue> elements;
  for (size_t index : indices) {
    const Schedule::Binding &binding = sch.bindings()[bindings[index]];
    // Not a Python name, so it cannot clash; ir::describeTraceName shows it as `'loops'[2]`.
    std::string key = "%" + binding.traceName + ":" + ir::describeTraceName(value.text) + "[" + std::to_string(index) + "]";
    names.single[key] = bindings[index];
    elements.push_back(TraceValue::ofName(key, value.loc));
  }
  if (value.starred || value.element) return elements;
  return std::vector<TraceValue>{TraceValue::ofList(std::move(elements), value.loc)};
}

// The step with its arguments' lists of results expanded (`sch.fuse(*loops[-2:])`).
llvm::Expected<ir::TraceStep> withResultListsExpanded(const ir::TraceStep &step, ResultNames &names, Schedule &sch) {
  ir::TraceStep expanded = step;
  expanded.arguments.clear();
  for (const ir::TraceArgument &argument : step.arguments) {
    llvm::Expected<std::vector<TraceValue>> values = expandResultLists(argument.value, names, sch);
    if (!values) return values.takeError();
    if (!argument.keyword.empty() && values->size() != 1)
      return ir::diagnosticError(argument.value.loc, "a keyword argument takes one value, not an unpacked list");
    for (TraceValue &value : *values) expanded.arguments.push_back({argument.keyword, std::move(value)});
  }
  return expanded;
}

// Binds the step's names to its outputs, the bindings from `firstBinding` on.
llvm::Error bindResults(const ir::TraceStep &step, const PrimitiveSpec &spec, size_t firstBinding, size_t count,
                        ResultNames &names) {
  if (step.results.empty()) return llvm::Error::success();
  if (spec.results == PrimitiveSpec::Results::None)
    return ir::diagnosticError(step.loc, "sch." + step.primitive + " has no result to bind");
  bool isList = spec.results == PrimitiveSpec::Results::List;
  if (step.resultIndex) {
    int64_t index = *step.resultIndex < 0 ? *step.resultIndex + int64_t(count) : *step.resultIndex;
    if (index < 0 || index >= int64_t(count))
      return ir::diagnosticError(step.loc, "index " + std::to_string(*step.resultIndex) + " is out of range: sch." +
                                               step.primitive + " gave " + std::to_string(count) + " results");
    names.bindOne(step.results[0], firstBinding + size_t(index));
    return llvm::Error::success();
  }
  if (!isList && (step.resultsAreList || step.starredResult))
    return ir::diagnosticError(step.loc, "sch." + step.primitive + " gives one result, not a list");
  std::vector<size_t> outputs;
  for (size_t i = 0; i < count; ++i) outputs.push_back(firstBinding + i);
  if (isList && !step.resultsAreList) {
    names.bindList(step.results[0], std::move(outputs));
    return llvm::Error::success();
  }
  size_t named = step.results.size() - (step.starredResult ? 1 : 0);
  if (step.starredResult ? named > count : named != count)
    return ir::diagnosticError(step.loc, "sch." + step.primitive + " gives " + std::to_string(count) + " results, " +
                                             std::to_string(named) + " names bind them");
  size_t starredCount = count - named;
  for (size_t i = 0, output = 0; i < step.results.size(); ++i) {
    if (step.starredResult == i) {
      names.bindList(step.results[i], std::vector<size_t>(outputs.begin() + output, outputs.begin() + output + starredCount));
      output += starredCount;
      continue;
    }
    if (step.results[i] != "_") names.bindOne(step.results[i], outputs[output]);
    ++output;
  }
  return llvm::Error::success();
}

// Applies one step as the schedule wrote it and records it as TVM's trace shows it.
llvm::Error applyStep(Schedule &sch, const ir::TraceStep &written, ResultNames &names) {
  const PrimitiveSpec *spec = findPrimitive(written.primitive);
  if (!spec) return ir::diagnosticError(written.loc, "unknown schedule primitive 'sch." + written.primitive + "'");
  llvm::Expected<ir::TraceStep> step = withResultListsExpanded(written, names, sch);
  if (!step) return step.takeError();
  llvm::Expected<std::map<std::string, TraceValue>> values = bindArguments(*spec, *step);
  if (!values) return values.takeError();
  StepArgs args(sch, *step, std::move(*values), names.single);
  llvm::Expected<std::vector<RV>> results = spec->apply(sch, args);
  if (!results) return results.takeError();
  // The arguments as the trace prints them, before the results rebind any name.
  ir::TraceStep recorded;
  recorded.primitive = step->primitive;
  recorded.resultsAreList = spec->results == PrimitiveSpec::Results::List;
  for (const ParamSpec &param : spec->params) {
    TraceValue value = canonical(args.value(param.name), names.single, sch);
    if (param.variadic) {
      for (TraceValue &item : value.items) recorded.arguments.push_back({"", std::move(item)});
      continue;
    }
    if (param.omitWhenEmpty && value.kind == TraceValue::Kind::List && value.items.empty()) continue;
    recorded.arguments.push_back({param.positional ? "" : param.name, std::move(value)});
  }

  std::vector<std::string> outputs;
  for (RV &rv : *results) outputs.push_back(sch.bindNew(std::move(rv)).traceName);
  if (llvm::Error error = bindResults(*step, *spec, sch.bindings().size() - outputs.size(), outputs.size(), names))
    return error;

  recorded.results = outputs;
  sch.recordStep(std::move(recorded));
  for (ir::TraceStep &following : sch.takeFollowingSteps()) {
    for (ir::TraceArgument &argument : following.arguments) argument.value = canonical(argument.value, names.single, sch);
    sch.recordStep(std::move(following));
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Expected<ir::Trace> applyTrace(ir::IRModule &module, const ir::Trace &trace, const TensorIntrinTable &intrinsics,
                                     uint64_t seed) {
  Schedule sch(module, &intrinsics, seed);
  ResultNames names;
  ir::ResultCounts counts;
  const ir::Trace *read = &trace;
  std::optional<ir::Trace> readOn;
  for (size_t next = 0;;) {
    for (; next < read->steps.size(); ++next)
      if (llvm::Error error = applyStep(sch, read->steps[next], names)) return error;
    if (!read->pause) break;
    // The reader stopped where it needs the count of a list of results the steps so far bound:
    // it reads the schedule again, knowing it, and gives the same steps and then more.
    const ir::TracePause &pause = *read->pause;
    auto list = names.lists.find(pause.list);
    if (list == names.lists.end())
      return ir::diagnosticError(pause.loc, ir::describeTraceName(pause.list) + " is one result of a step, not a list");
    counts[pause.list] = int64_t(list->second.size());
    llvm::Expected<ir::Trace> more = pause.readOn(counts);
    if (!more) return more.takeError();
    readOn = std::move(*more);
    read = &*readOn;
  }
  module = sch.module();
  return sch.trace();
}

}  // namespace vtac::passes::schedule
