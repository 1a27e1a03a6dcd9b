// sample_categorical(candidates, probs, decision=None): one of the integer candidates, as a
// sampled value (ExprRV) later steps can use (a split factor, an annotation value). With
// `decision=k` it is candidates[k], replayed exactly; without, k is drawn from the schedule's
// seeded random source with the given probabilities. The recorded step holds the decision.
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<int64_t> sampleCategorical(Schedule &sch, const Located<std::vector<int64_t>> &candidates,
                                          const Located<std::vector<Located<double>>> &probs,
                                          Located<std::optional<int64_t>> &decision) {
  if (candidates.value.empty())
    return diagnosticError(candidates.at, "sample_categorical: candidates must be a non-empty list of integers");
  size_t count = candidates.value.size();
  if (probs.value.size() != count)
    return diagnosticError(probs.at, "sample_categorical: probs must be a list of " + std::to_string(count) +
                                         " numbers, one per candidate");
  std::vector<double> weights;
  for (const Located<double> &weight : probs.value) {
    if (weight.value < 0) return diagnosticError(weight.at, "sample_categorical: probs must be non-negative numbers");
    weights.push_back(weight.value);
  }

  if (!decision.value) {
    std::discrete_distribution<int64_t> distribution(weights.begin(), weights.end());
    decision.value = distribution(sch.random());
  } else if (*decision.value < 0 || *decision.value >= int64_t(count)) {
    return diagnosticError(decision.at, "sample_categorical: decision " + std::to_string(*decision.value) +
                                            " is not an index of the " + std::to_string(count) + " candidates");
  }
  return candidates.value[size_t(*decision.value)];
}

}  // namespace vtac::passes::schedule
