#!/bin/sh
# Compile time of vta-lower on seed 001's conv2d, end to end from text to the lowered program
# (parse, the VTA passes, print), from the phase-1 form and from unscheduled TensorIR plus the
# tutorial's schedule trace: N runs of `vtac opt` against N runs of `vtac --version` (the
# process start-up alone), then one --time-passes table of the passes themselves.
# Usage: bench/passes/vta_lower_conv2d.sh [BUILD_DIR] [N]
set -eu
build=${1:-build}
runs=${2:-20}
samples=$(dirname "$0")/../../samples
input=$samples/conv2d_vta_phase1.tvm

# Prints "min median" wall milliseconds of N runs of the given command.
measure() {
  i=0
  times=""
  while [ "$i" -lt "$runs" ]; do
    start=$(date +%s%N)
    "$@" > /dev/null
    end=$(date +%s%N)
    times="$times $(( (end - start) / 1000 ))"
    i=$((i + 1))
  done
  echo "$times" | tr ' ' '\n' | grep . | sort -n |
    awk '{ t[NR] = $1 } END { printf "min %.1f ms, median %.1f ms", t[1] / 1000, t[int((NR + 1) / 2)] / 1000 }'
}

echo "vtac opt --passes=vta-lower (conv2d, $runs runs, wall): $(measure "$build/bin/vtac" opt "$input" --passes=vta-lower -o /dev/null)"
echo "vtac opt TensorIR --schedule --passes=vta-lower ($runs runs, wall): $(measure "$build/bin/vtac" opt "$samples/conv2d_tensorir.tvm" --schedule "$samples/conv2d_vta_schedule.py" --passes=vta-lower -o /dev/null)"
echo "vtac --version (start-up only, $runs runs, wall):       $(measure "$build/bin/vtac" --version)"
"$build/bin/vtac" opt "$input" --passes=vta-lower --time-passes -o /dev/null 2>&1
