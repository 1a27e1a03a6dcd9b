# Checks a graph's per-call VTA statistics: `check_call_stats.py STATS.txt STATS.json`, the output
# of `vtac run --stats` and its --stats-json. In both, each counter's total (the simulator's own
# running count) must equal the sum of what the calls added, and the JSON must say what the
# table says. Prints one summary line; exits 1 at the first disagreement.
import json
import sys


def table(path):
    """The table's counter names, its rows (index, callee, counters) and its total row."""
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("VTA simulator statistics per call"))
    names = lines[start + 1].split()[2:]
    calls, total = [], None
    for line in lines[start + 2:]:
        cells = line.split()
        if cells[0] == "total":
            total = dict(zip(names, map(int, cells[1:])))
            break
        calls.append((int(cells[0]), cells[1], dict(zip(names, map(int, cells[2:])))))
    return names, calls, total


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


names, calls, total = table(sys.argv[1])
stats = json.load(open(sys.argv[2]))
for name in names:
    if sum(counters[name] for _, _, counters in calls) != total[name]:
        fail("table: %s: the calls add up to %d, the total is %d" % (name, sum(c[name] for _, _, c in calls), total[name]))
    if sum(call["vta"][name] for call in stats["calls"]) != stats["vta"][name]:
        fail("json: %s: the calls do not add up to the total" % name)
    if stats["vta"][name] != total[name]:
        fail("json: %s: total %d, the table says %d" % (name, stats["vta"][name], total[name]))
for (index, callee, counters), call in zip(calls, stats["calls"]):
    if (index, callee) != (call["index"], call["callee"]) or any(counters[n] != call["vta"][n] for n in names):
        fail("json: call %d (%s) differs from the table" % (index, callee))
if len(calls) != len(stats["calls"]):
    fail("json: %d calls, the table has %d" % (len(stats["calls"]), len(calls)))
print("%d calls: each of %d counters totals the sum of the calls; the JSON agrees" % (len(calls), len(names)))
