// A schedule as data: TVM's trace (`print(sch.trace)`), one step per `sch.<primitive>(...)` call.
//
// The frontend reads a trace from text (a `def` taking `sch`), the schedule library applies it
// and records the steps it applied as a new Trace, which printTrace() writes back in TVM's exact
// text (`def apply_trace(sch: tir.Schedule) -> None:`, results `b0`, `l1`, keyword arguments,
// `l1, = ...` for a one-element result list). A step's arguments are literals (None, bools, ints,
// floats, strings, lists, string-keyed dicts, printed with sorted keys) or names of earlier results (random variables,
// "RVs"); nothing else of Python is needed. Every step and argument keeps its source location so
// that an illegal step is reported at the step.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/SourceLoc.h"

namespace vtac::ir {

struct TraceValue {
  // Lambda, Param and Operation spell an index map (`lambda i, j: (i // 16, j % 16)`):
  // Lambda's items are its parameters (Param) followed by a List of its results; a Param names a
  // parameter; an Operation applies `text` (+, -, *, //, %) to its two items. A result may also
  // be the String "AXIS_SEPARATOR" (TVM's IndexMap.AXIS_SEPARATOR, read in transform_layout).
  // A `starred` Param is the variadic `*indices` of `lambda *indices, k: [*indices, k // 4]`, as a
  // parameter and as a result that unpacks it; transform_layout expands it for the buffer.
  enum class Kind { None, Bool, Int, Float, String, Name, List, Dict, Lambda, Param, Operation };
  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string text;  // String, Name (a result of an earlier step), Param, Operation
  std::vector<TraceValue> items;  // List; Dict: keys (String) and values alternate
  bool isTuple = false;  // a List written `(a, b)`, printed so
  // A Param written `*name`; a Name written `*loops` in an argument list or a list: the results
  // it names, one argument or item each.
  bool starred = false;
  // A Name that takes part of the results an earlier step bound to one name (`loops[-1]`,
  // `loops[2:]`): resolved when the schedule is applied, as only then is it known how many
  // results (get_loops: loops) the step gave.
  struct Slice {
    std::optional<int64_t> start, stop;
    int64_t step = 1;
  };
  std::optional<int64_t> element;
  std::optional<Slice> slice;
  // An `element` taken by unpacking (`outer, inner = tile(b)`): the list holds this many results.
  std::optional<int64_t> unpackedCount;
  // An Int or Float written as a typed constant in an index map (`T.int8(0)`, `T.float32(0.5)`,
  // as TVM prints a pad value); empty for a Python literal.
  std::string dtype;
  SourceLoc loc;

  static TraceValue none(SourceLoc loc = {});
  static TraceValue ofBool(bool value, SourceLoc loc = {});
  static TraceValue ofInt(int64_t value, SourceLoc loc = {});
  static TraceValue ofFloat(double value, SourceLoc loc = {});
  static TraceValue ofString(std::string value, SourceLoc loc = {});
  static TraceValue ofName(std::string name, SourceLoc loc = {});
  static TraceValue ofList(std::vector<TraceValue> items, SourceLoc loc = {});
};

struct TraceArgument {
  std::string keyword;  // empty for a positional argument
  TraceValue value;
};

// `results = sch.primitive(arguments)`. `results` are the names the outputs are bound to ("_"
// discards one). When `resultIndex` is set the step was written `x = sch.get_loops(b)[k]`: only
// output k (Python indexing, negative from the end) is bound, to results[0]. One name bound to a
// step that gives a list (`loops = sch.get_loops(b)`) names the whole list; so does the
// `starredResult`-th name of `*outer, i, j = ...`, the outputs the other names leave.
struct TraceStep {
  std::string primitive;
  std::vector<TraceArgument> arguments;
  std::vector<std::string> results;
  bool resultsAreList = false;  // `a, b = ...` / `a, = ...` rather than `a = ...`
  std::optional<int64_t> resultIndex;
  SourceLoc loc;
  std::optional<size_t> starredResult;
};

struct Trace;

// How many results each list of results (`loops = sch.get_loops(b)`, by its name in the trace)
// holds, as applying the steps that bound them told.
using ResultCounts = std::map<std::string, int64_t>;

// Where the reader stopped before the end of a schedule: the Python there needs how many results
// the list `list` holds (a `for` over it, len() of it, unpacking a slice of it), which only
// applying the steps read so far tells. `readOn` runs the schedule again from its start, told
// those counts; it reads the same steps up to here and goes on, maybe to stop again further on.
struct TracePause {
  std::string list;
  SourceLoc loc;
  std::function<llvm::Expected<Trace>(const ResultCounts &counts)> readOn;
};

struct Trace {
  std::string name = "apply_trace";  // the def's name
  std::vector<TraceStep> steps;
  SourceLoc loc;
  std::optional<TracePause> pause;  // unset: the steps are the whole schedule
};

// TVM's text of a trace: `# from tvm import tir`, the def line, one step per line with two
// spaces of indentation (a def without steps gets `  pass`).
std::string printTrace(const Trace &trace);
// How a message names the RV `name`: `'b0'`, or `sch.get_block(...)` for the result of a call
// nested in an argument (which the reader names `%<n>:<call>`).
std::string describeTraceName(const std::string &name);

// The positions `slice` takes from a list of `count` items, as Python's slicing does.
std::vector<size_t> sliceIndices(const TraceValue::Slice &slice, int64_t count);

// One argument value as the trace prints it (`None`, `True`, `[None, 4]`, `"main"`, `{"k": 1}`).
std::string printTraceValue(const TraceValue &value);

}  // namespace vtac::ir
