// annotate(block_or_loop, ann_key, ann_val): sets an annotation of a block (T.block_attr) or a
// loop (annotations=); ints, floats, strings, bools, lists and dicts of them, or a sampled value.
#include "Annotation.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using ir::TraceValue;

namespace {

llvm::Expected<ir::AttrValue> toAttrValue(StepArgs &args, const TraceValue &value) {
  switch (value.kind) {
  case TraceValue::Kind::None: return ir::AttrValue();
  case TraceValue::Kind::Bool: return ir::AttrValue(value.boolValue);
  case TraceValue::Kind::Int: return ir::AttrValue(value.intValue);
  case TraceValue::Kind::Float: return ir::AttrValue(value.floatValue);
  case TraceValue::Kind::String: return ir::AttrValue(value.text);
  case TraceValue::Kind::Name: {
    llvm::Expected<RV> rv = args.resolve(value);
    if (!rv) return rv.takeError();
    if (const auto *sampled = std::get_if<int64_t>(&*rv)) return ir::AttrValue(*sampled);
    return ir::diagnosticError(value.loc, "an annotation value cannot be a block or a loop");
  }
  case TraceValue::Kind::List: {
    ir::AttrValue::Array items;
    for (const TraceValue &item : value.items) {
      llvm::Expected<ir::AttrValue> converted = toAttrValue(args, item);
      if (!converted) return converted.takeError();
      items.push_back(std::move(*converted));
    }
    return ir::AttrValue(std::move(items));
  }
  case TraceValue::Kind::Dict: {
    ir::AttrMap map;
    for (size_t i = 0; i + 1 < value.items.size(); i += 2) {
      llvm::Expected<ir::AttrValue> converted = toAttrValue(args, value.items[i + 1]);
      if (!converted) return converted.takeError();
      map.set(value.items[i].text, std::move(*converted));
    }
    return ir::AttrValue(std::move(map));
  }
  case TraceValue::Kind::Lambda:
  case TraceValue::Kind::Param:
  case TraceValue::Kind::Operation: break;
  }
  return ir::diagnosticError(value.loc, "an annotation value cannot be an index map (lambda)");
}

}  // namespace

llvm::Expected<std::vector<RV>> applyAnnotate(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> key = args.string("ann_key");
  if (!key) return key.takeError();
  llvm::Expected<ir::AttrValue> value = toAttrValue(args, args.value("ann_val"));
  if (!value) return value.takeError();
  return editAnnotations(sch, args, "block_or_loop", [&](ir::AttrMap &annotations, const std::string &) {
    annotations.set(*key, *value);
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
