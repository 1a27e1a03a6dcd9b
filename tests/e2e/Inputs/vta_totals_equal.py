"""Compares the `total` rows of two `vtac run --stats` outputs (the VTA simulator's counters summed
over a graph's calls): prints "VTA totals equal: name value ..." or every counter that differs, and
exits 1 then."""
import sys


def totals(path):
    lines = open(path).read().splitlines()
    header = next(line for line in lines if line.strip().startswith("call ") and "cycles" in line).split()
    # the last `total` row: the counters' (the graph statistics have a "total tensor bytes" line)
    row = [line for line in lines if line.strip().startswith("total ")][-1].split()
    # the header names `call` and `callee`, the total row has neither: counters align from the right
    names = header[2:]
    return dict(zip(names, (int(v) for v in row[1:])))


a, b = totals(sys.argv[1]), totals(sys.argv[2])
if a == b:
    print("VTA totals equal: " + " ".join("%s %d" % item for item in a.items()))
    sys.exit(0)
for name in sorted(set(a) | set(b)):
    if a.get(name) != b.get(name):
        print("%s: %s vs %s" % (name, a.get(name), b.get(name)))
sys.exit(1)
