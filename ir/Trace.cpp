// Constructors of trace values and TVM's text form of a trace (TraceNode::AsPython).
#include "vtac/ir/Trace.h"

#include "vtac/ir/Expr.h"
#include "vtac/ir/Printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vtac::ir {

TraceValue TraceValue::none(SourceLoc loc) {
  TraceValue v;
  v.loc = loc;
  return v;
}

TraceValue TraceValue::ofBool(bool value, SourceLoc loc) {
  TraceValue v = none(loc);
  v.kind = Kind::Bool;
  v.boolValue = value;
  return v;
}

TraceValue TraceValue::ofInt(int64_t value, SourceLoc loc) {
  TraceValue v = none(loc);
  v.kind = Kind::Int;
  v.intValue = value;
  return v;
}

TraceValue TraceValue::ofFloat(double value, SourceLoc loc) {
  TraceValue v = none(loc);
  v.kind = Kind::Float;
  v.floatValue = value;
  return v;
}

TraceValue TraceValue::ofString(std::string value, SourceLoc loc) {
  TraceValue v = none(loc);
  v.kind = Kind::String;
  v.text = std::move(value);
  return v;
}

TraceValue TraceValue::ofName(std::string name, SourceLoc loc) {
  TraceValue v = ofString(std::move(name), loc);
  v.kind = Kind::Name;
  return v;
}

TraceValue TraceValue::ofList(std::vector<TraceValue> items, SourceLoc loc) {
  TraceValue v = none(loc);
  v.kind = Kind::List;
  v.items = std::move(items);
  return v;
}

namespace {

// Python's repr of a float: the shortest digits that read back to the same value.
std::string pythonFloat(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string describeTraceName(const std::string &name) {
  size_t colon = name.find(':');
  if (name.empty() || name[0] != '%' || colon == std::string::npos) return "'" + name + "'";
  return name.substr(colon + 1);
}

namespace {

int operationPrecedence(const TraceValue &value) {
  if (value.kind != TraceValue::Kind::Operation) return 3;
  return value.text == "+" || value.text == "-" ? 1 : 2;
}

// An index expression with Python's parentheses (left-associative operators).
std::string printIndexExpr(const TraceValue &value) {
  if (value.kind != TraceValue::Kind::Operation) return printTraceValue(value);
  int precedence = operationPrecedence(value);
  auto operand = [&](const TraceValue &item, bool right) {
    std::string text = printIndexExpr(item);
    int inner = operationPrecedence(item);
    return inner < precedence || (right && inner == precedence) ? "(" + text + ")" : text;
  };
  return operand(value.items[0], false) + " " + value.text + " " + operand(value.items[1], true);
}

}  // namespace

std::string printTraceValue(const TraceValue &value) {
  switch (value.kind) {
  case TraceValue::Kind::Param: return (value.starred ? "*" : "") + value.text;
  case TraceValue::Kind::Operation: return printIndexExpr(value);
  case TraceValue::Kind::Lambda: {
    // TVM's IndexMap text: every result followed by a comma.
    std::string out = "lambda ";
    for (size_t i = 0; i + 1 < value.items.size(); ++i) out += (i ? ", " : "") + printTraceValue(value.items[i]);
    out += ": (";
    const TraceValue &results = value.items.back();
    for (size_t i = 0; i < results.items.size(); ++i) out += (i ? " " : "") + printIndexExpr(results.items[i]) + ",";
    return out + ")";
  }
  case TraceValue::Kind::None: return "None";
  case TraceValue::Kind::Bool: return value.boolValue ? "True" : "False";
  case TraceValue::Kind::Int:
    if (!value.dtype.empty()) return printExpr(intImm(value.intValue, *DataType::parse(value.dtype)));
    return std::to_string(value.intValue);
  case TraceValue::Kind::Float:
    if (!value.dtype.empty()) return printExpr(floatImm(value.floatValue, *DataType::parse(value.dtype)));
    return pythonFloat(value.floatValue);
  case TraceValue::Kind::String: return quoted(value.text);
  case TraceValue::Kind::Name: {
    std::string out = (value.starred ? "*" : "") + value.text;
    if (value.element) out += "[" + std::to_string(*value.element) + "]";
    if (const std::optional<TraceValue::Slice> &slice = value.slice) {
      auto bound = [](std::optional<int64_t> end) { return end ? std::to_string(*end) : std::string(); };
      out += "[" + bound(slice->start) + ":" + bound(slice->stop) + (slice->step != 1 ? ":" + std::to_string(slice->step) : "") + "]";
    }
    return out;
  }
  case TraceValue::Kind::List: {
    std::string out = value.isTuple ? "(" : "[";
    for (size_t i = 0; i < value.items.size(); ++i)
      out += (i ? ", " : "") + printTraceValue(value.items[i]);
    if (value.isTuple && value.items.size() == 1) out += ",";
    return out + (value.isTuple ? ")" : "]");
  }
  case TraceValue::Kind::Dict: {
    // Keys sorted, as TVM prints a Map.
    std::vector<std::pair<std::string, std::string>> entries;
    for (size_t i = 0; i + 1 < value.items.size(); i += 2)
      entries.emplace_back(printTraceValue(value.items[i]), printTraceValue(value.items[i + 1]));
    std::sort(entries.begin(), entries.end());
    std::string out = "{";
    for (size_t i = 0; i < entries.size(); ++i) out += (i ? ", " : "") + entries[i].first + ": " + entries[i].second;
    return out + "}";
  }
  }
  return "None";
}

std::vector<size_t> sliceIndices(const TraceValue::Slice &slice, int64_t count) {
  auto clamp = [&](std::optional<int64_t> end, int64_t otherwise, int64_t low, int64_t high) {
    if (!end) return otherwise;
    int64_t index = *end < 0 ? *end + count : *end;
    return std::clamp(index, low, high);
  };
  std::vector<size_t> indices;
  if (slice.step > 0) {
    for (int64_t i = clamp(slice.start, 0, 0, count), stop = clamp(slice.stop, count, 0, count); i < stop; i += slice.step)
      indices.push_back(size_t(i));
  } else {
    for (int64_t i = clamp(slice.start, count - 1, -1, count - 1), stop = clamp(slice.stop, -1, -1, count - 1); i > stop;
         i += slice.step)
      indices.push_back(size_t(i));
  }
  return indices;
}

std::string printTrace(const Trace &trace) {
  std::string out = "# from tvm import tir\ndef " + trace.name + "(sch: tir.Schedule) -> None:\n";
  for (const TraceStep &step : trace.steps) {
    out += "  ";
    if (!step.results.empty()) {
      for (size_t i = 0; i < step.results.size(); ++i)
        out += (i ? ", " : "") + std::string(step.starredResult == i ? "*" : "") + step.results[i];
      if (step.resultsAreList && step.results.size() == 1) out += ",";
      out += " = ";
    }
    out += "sch." + step.primitive + "(";
    for (size_t i = 0; i < step.arguments.size(); ++i) {
      const TraceArgument &argument = step.arguments[i];
      out += i ? ", " : "";
      if (!argument.keyword.empty()) out += argument.keyword + "=";
      out += printTraceValue(argument.value);
    }
    out += ")";
    if (step.resultIndex) out += "[" + std::to_string(*step.resultIndex) + "]";
    out += "\n";
  }
  if (trace.steps.empty()) out += "  pass\n";
  return out;
}

}  // namespace vtac::ir
