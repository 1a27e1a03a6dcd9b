# Counts the decisions of the sample_compute_location steps of a printed trace: prints each
# decision taken, in increasing order, and fails unless each was taken within `tolerance` of an
# equal share of the steps.
import collections
import re
import sys

trace, tolerance = open(sys.argv[1]).read(), float(sys.argv[2])
counts = collections.Counter(int(d) for d in re.findall(r"sample_compute_location\(block=b\d+, decision=(-?\d+)\)", trace))
total = sum(counts.values())
for decision in sorted(counts):
    print("decision", decision)
    share = counts[decision] / total
    if abs(share - 1 / len(counts)) > tolerance:
        sys.exit("decision %d taken %d times of %d: not uniform" % (decision, counts[decision], total))
