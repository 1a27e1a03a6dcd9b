"""Checks `vtac tune --log` against what tune printed: one line per trial, no choice measured
twice, and the printed best is the least objective of the logged trials (cycles+dram: cycles *
BUS_BYTES + bytes; cycles: the fewest bytes among the trials within 0.2% of the fewest cycles).

usage: best_of_log.py LOG TUNE_STDOUT OBJECTIVE TRIALS"""
import json
import re
import sys

BUS_BYTES = 8  # the default VTA config's mem_bus_bytes

log_path, out_path, objective, trials = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = [json.loads(line) for line in open(log_path)]
assert len(lines) == trials, "%d log lines, expected %d" % (len(lines), trials)
choices = [line["choice"] for line in lines]
assert len(set(choices)) == len(choices), "a choice measured twice: %s" % choices
assert choices[0] == 0, "the first trial is not the rule's own"
measured = [line for line in lines if "cycles" in line]
if objective == "cycles":
    fewest = min(line["cycles"] for line in measured)
    key = lambda line: ((0, line["dram_bytes"], line["cycles"]) if (line["cycles"] - fewest) * 500 <= fewest
                        else (1, line["cycles"], line["dram_bytes"]))
else:
    key = lambda line: (line["cycles"] * BUS_BYTES + line["dram_bytes"], line["cycles"])
least = min(key(line) for line in measured)
best = re.search(r"best: +(\d+) cycles, (\d+) DRAM bytes \((.*)\)$", open(out_path).read(), re.M)
printed = {"cycles": int(best.group(1)), "dram_bytes": int(best.group(2))}
assert key(printed) == least, "best %s is not the least %s of the log (%s)" % (printed, objective, least)
assert any(line["remark"] == best.group(3) and key(line) == least for line in measured)
print("best of %d trials: %d cycles, %d DRAM bytes" % (len(lines), printed["cycles"], printed["dram_bytes"]))
