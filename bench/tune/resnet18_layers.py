#!/usr/bin/python3
"""`vtac tune` on the ten ResNet-18 conv2d layers of TVM's VTA benchmark (issue 28's goal).

Per layer (samples/models/conv_C2..C11.tvm): `vtac tune --trials TRIALS --seed 0`, its CPU
seconds (user + sys of the vtac process), and the modelled cycles and DRAM bytes (every load
and store) of the rule's own schedule (`--auto-schedule`'s), of the tuned one, and of TVM's
tuned tiles: the tophub entries for these workloads (tlc-pack/tophub, tophub/vta_v0.10.log,
"Resnet-18 - pynq_1x16_i8w8a32_15_15_18_17"), measured by `vtac tune --choices` on the same
simulator. The floor is everything read once (the rule's estimate). Prints a Markdown table.

Then the timing model against the one published measurement of these layers on a PYNQ board:
the best GFLOPS of each conv2d task in the sample output of TVM's AutoTVM tutorial for VTA
(apache/tvm vta/tutorials/autotvm/tune_relay_vta.py, "Sample Output": tuned on 6 Pynq boards),
beside the modelled GOPS (2 * MACs of the layer, from the workload tune records, over the
modelled cycles at the config's clock) of TVM's tiles and of the tuned schedule.

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
# The tutorial's "Current/Best" GFLOPS per task, by the layer its shape is (task 1: 1x1 stride 2
# from 16 to 32 channel blocks at 14x14 = C10, ...).
PUBLISHED_GFLOPS = {10: 23.24, 7: 27.69, 4: 22.97, 2: 31.26, 5: 15.15, 3: 22.74, 8: 15.27, 6: 2.18, 11: 3.99, 9: 6.32}
CLOCK_MHZ = 100  # the default config's timing clock (runtime/include/vta/config.h)
WORKLOAD = re.compile(r"ic (\d+) \d+x\d+ oc (\d+) (\d+)x(\d+) kernel (\d+)x(\d+)")
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
    modelled = {}
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
        database = os.path.join(out, "C%d.jsonl" % layer)
        tuned_out, seconds = tune(vtac, [path, "--trials", trials, "--seed", "0", "--tuning-db", database, "-o",
                                         os.path.join(out, "best.py")])
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
        ic, oc, height, width, kh, kw = map(int, WORKLOAD.search(open(database).read()).groups())
        macs = ic * 16 * oc * 16 * height * width * kh * kw
        modelled[layer] = (macs, tvm_cycles, cycles)
    print()
    print("| layer | GOP | published GFLOPS (PYNQ, AutoTVM) | modelled GOPS, TVM's tiles | modelled GOPS, tuned "
          "| modelled / published (TVM's tiles) |")
    print("|---|---|---|---|---|---|")
    for layer, (macs, tvm_cycles, cycles) in sorted(modelled.items()):
        gops = lambda c: 2 * macs / (c / (CLOCK_MHZ * 1e6)) / 1e9
        print("| C%d | %.3f | %.2f | %.2f | %.2f | %.2fx |" % (layer, 2 * macs / 1e9, PUBLISHED_GFLOPS[layer],
                                                           gops(tvm_cycles), gops(cycles),
                                                           gops(tvm_cycles) / PUBLISHED_GFLOPS[layer]))


if __name__ == "__main__":
    main()
