#!/usr/bin/env python3
"""CPU time of unity batches against their files compiled one a run (docs/design.md, Tests).

usage: unity_batches.py UNITY_BUILD ONE_A_RUN_BUILD BATCH...

UNITY_BUILD is configured with -DVTAC_UNITY_BUILD=ON (the default), ONE_A_RUN_BUILD with
-DVTAC_UNITY_BUILD=OFF (configuring is enough, plus `ninja grammar/TVMScriptParser.h` for
frontend batches). Each BATCH is a unity source relative to UNITY_BUILD, e.g.
passes/schedule/CMakeFiles/vtac_schedule.dir/Unity/unity_3_cxx.cxx. Compiles with the builds'
own commands, ccache bypassed, and prints the CPU seconds (user + system) of each batch and of
its files compiled one a run, measured in the same run."""
import json
import os
import re
import resource
import shlex
import subprocess
import sys


def commands(build):
    return {e["file"]: e for e in json.load(open(os.path.join(build, "compile_commands.json")))}


def cpu_seconds(entry):
    args = shlex.split(entry["command"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    args[args.index("-o") + 1] = os.devnull
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compiling {entry['file']} failed:\n{done.stderr[:2000]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    unity_build, single_build = (os.path.abspath(a) for a in sys.argv[1:3])
    unity, single = commands(unity_build), commands(single_build)
    batches_total = files_total = 0.0
    for batch in sys.argv[3:]:
        path = os.path.join(unity_build, batch)
        files = re.findall(r'#include "([^"]+)"', open(path).read())
        batch_seconds = cpu_seconds(unity[path])
        files_seconds = sum(cpu_seconds(single[f]) for f in files)
        batches_total += batch_seconds
        files_total += files_seconds
        print(f"{batch}: {len(files)} files: one a run {files_seconds:.1f} s, one batch {batch_seconds:.1f} s "
              f"({batch_seconds / files_seconds:.2f})")
    print(f"total: one a run {files_total:.1f} s, batches {batches_total:.1f} s ({batches_total / files_total:.2f})")


if __name__ == "__main__":
    main()
