// sample_categorical(candidates, probs, decision=None): one of the integer candidates, as a
// sampled value (ExprRV) later steps can use (a split factor, an annotation value). With
// `decision=k` it is candidates[k], replayed exactly; without, k is drawn from the schedule's
// seeded random source with the given probabilities. The recorded step holds the decision.
#include "Primitive.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> applySampleCategorical(Schedule &sch, StepArgs &args) {
  const TraceValue &candidates = args.value("candidates"), &probs = args.value("probs");
  if (candidates.kind != TraceValue::Kind::List || candidates.items.empty())
    return diagnosticError(args.at("candidates"), "sample_categorical: candidates must be a non-empty list of integers");
  for (const TraceValue &item : candidates.items)
    if (item.kind != TraceValue::Kind::Int)
      return diagnosticError(item.loc.isKnown() ? item.loc : args.at("candidates"),
                             "sample_categorical: candidates must be integers");
  if (probs.kind != TraceValue::Kind::List || probs.items.size() != candidates.items.size())
    return diagnosticError(args.at("probs"), "sample_categorical: probs must be a list of " +
                                                 std::to_string(candidates.items.size()) + " numbers, one per candidate");
  std::vector<double> weights;
  for (const TraceValue &item : probs.items) {
    double weight = item.kind == TraceValue::Kind::Float ? item.floatValue : double(item.intValue);
    if ((item.kind != TraceValue::Kind::Float && item.kind != TraceValue::Kind::Int) || weight < 0)
      return diagnosticError(item.loc.isKnown() ? item.loc : args.at("probs"),
                             "sample_categorical: probs must be non-negative numbers");
    weights.push_back(weight);
  }

  int64_t decision;
  if (args.value("decision").kind == TraceValue::Kind::None) {
    std::discrete_distribution<int64_t> distribution(weights.begin(), weights.end());
    decision = distribution(sch.random());
  } else {
    llvm::Expected<int64_t> given = args.integer("decision");
    if (!given) return given.takeError();
    if (*given < 0 || *given >= int64_t(candidates.items.size()))
      return diagnosticError(args.at("decision"), "sample_categorical: decision " + std::to_string(*given) +
                                                      " is not an index of the " +
                                                      std::to_string(candidates.items.size()) + " candidates");
    decision = *given;
  }
  args.setValue("decision", TraceValue::ofInt(decision, args.value("decision").loc));
  return std::vector<RV>{candidates.items[size_t(decision)].intValue};
}

}  // namespace vtac::passes::schedule
