"""Compares the timing model's cycles of two runs of the same work: fails unless the first
(--stats-json file) took fewer cycles than the second and both did the same GEMM and ALU work.

Usage: fewer_cycles.py FASTER.json SLOWER.json
"""
import json
import sys


def main():
    faster, slower = (json.load(open(path)) for path in sys.argv[1:3])
    for counter in ("gemm_counter", "alu_counter", "out_store_nbytes"):
        if faster[counter] != slower[counter]:
            sys.exit(f"not the same work: {counter} {faster[counter]} and {slower[counter]}")
    if not 0 < faster["cycles"] < slower["cycles"]:
        sys.exit(f"not fewer cycles: {faster['cycles']} against {slower['cycles']}")
    print(f"fewer cycles: {faster['cycles']} < {slower['cycles']}")


main()
