#!/usr/bin/python3
"""`vtac tune` on the ten ResNet-18 conv2d layers of TVM's VTA benchmark (issue 28's goal).

Per layer (samples/models/conv_C2..C11.tvm): `vtac tune --trials TRIALS --seed 0`, its CPU
seconds (user + sys of the vtac process), and the modelled cycles and DRAM bytes (every load
and store) of the rule's own schedule (`--auto-schedule`'s), of the tuned one, and of TVM's
tuned tiles: the tophub entries for these workloads (tlc-pack/tophub, tophub/vta_v0.10.log,
"Resnet-18 - pynq_1x16_i8w8a32_15_15_18_17"), measured by `vtac tune --choices` on the same
simulator. The floor is everything read once (the rule's estimate). Prints a Markdown table.

usage: resnet18_layers.py VTAC SAMPLES_DIR [TRIALS]"""
import os
import re
import resource
import subprocess
import sys
import tempfile

# TVM's tuned tiles: (oc blocks, rows, columns, ic blocks, virtual threads), from tophub's
# tile_co, tile_h, tile_w, tile_ci (inner factors) and oc_nthread / h_nthread.
TOPHUB = {2: (2, 8, 56, 1, "oc"), 3: (4, 7, 28, 1, "oc"), 4: (4, 7, 28, 1, "rows"), 5: (2, 14, 28, 1, "rows"),
          6: (4, 14, 14, 1, "oc"), 7: (8, 7, 14, 1, "oc"), 8: (4, 14, 14, 1, "oc"), 9: (16, 7, 7, 1, "oc"),
          10: (16, 7, 7, 1, "oc"), 11: (16, 7, 7, 1, "oc")}
THREADS = {"oc": ", 2 virtual threads on oc blocks", "rows": ", 2 virtual threads on rows", None: ""}
MEASURED = re.compile(r"^  (the rule's own|best): +(\d+) cycles, (\d+) DRAM bytes \((.*)\)$", re.M)


def tune(vtac, args):
    """(stdout, CPU seconds) of one `vtac tune` run; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([vtac, "tune"] + args, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0 or "refused" in run.stderr:
        sys.exit("vtac tune %s failed:\n%s" % (" ".join(args), run.stderr))
    return run.stdout, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    vtac, samples = sys.argv[1], sys.argv[2]
    trials = sys.argv[3] if len(sys.argv) > 3 else "64"
    out = tempfile.mkdtemp(prefix="tune-bench-")
    print("| layer | trials | CPU s | rule's own: cycles / bytes | tuned: cycles / bytes | TVM tuned: cycles / bytes "
          "| floor bytes | tuned vs TVM | tuned tiles |")
    print("|---|---|---|---|---|---|---|---|---|")
    for layer, (oc, rows, cols, ic, threads) in TOPHUB.items():
        path = os.path.join(samples, "models", "conv_C%d.tvm" % layer)
        space, _ = tune(vtac, [path, "--space"])
        tiles = "tiles oc %d x rows %d x cols %d x ic %d%s;" % (oc, rows, cols, ic, THREADS[threads])
        index = [m.group(1) for m in re.finditer(r"^main (\d+): (.*)$", space, re.M) if tiles in m.group(2)]
        if len(index) != 1:
            sys.exit("C%d: TVM's tiles (%s) are not once in the rule's space" % (layer, tiles))
        tvm_out, _ = tune(vtac, [path, "--choices", index[0], "-o", os.path.join(out, "tvm.py")])
        tvm = {m.group(1): m for m in MEASURED.finditer(tvm_out)}["best"]
        tuned_out, seconds = tune(vtac, [path, "--trials", trials, "--seed", "0", "-o", os.path.join(out, "best.py")])
        got = {m.group(1): m for m in MEASURED.finditer(tuned_out)}
        own, best = got["the rule's own"], got["best"]
        measured = re.search(r"(\d+) of \d+ schedules measured", tuned_out).group(1)
        floor = re.search(r"\(floor (\d+)\)", best.group(4)).group(1)
        cycles, moved = int(best.group(2)), int(best.group(3))
        tvm_cycles, tvm_bytes = int(tvm.group(2)), int(tvm.group(3))
        verdict = "%.2fx cycles, %.2fx bytes" % (cycles / tvm_cycles, moved / tvm_bytes)
        print("| C%d | %s | %.1f | %s / %s | %d / %d | %d / %d | %s | %s | %s |" % (
            layer, measured, seconds, own.group(2), own.group(3), cycles, moved, tvm_cycles, tvm_bytes, floor, verdict,
            re.search(r"tiles (.*?);", best.group(4)).group(1)))


if __name__ == "__main__":
    main()
