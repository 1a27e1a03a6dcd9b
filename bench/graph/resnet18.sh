#!/bin/sh
# The VTA part of ResNet-18 (samples/models/resnet18_vta.tvm, weights from its generator) as
# issue 25 measures it (results in bench/RESULTS.md): `vtac compile --auto-schedule` of the whole
# module to one object, `vtac run --auto-schedule` of it (whole process: parse, schedule, lower,
# JIT, simulate), each ROUNDS times; then the object linked with the C harness of
# tests/e2e/compile/Inputs/resnet18_main.c, checked against the numpy reference and timed over
# RUNS inferences twice: the weights as host tensors (copied on every call) and uploaded once as
# VTA buffers (read in place); programs_validated counts the simulator's program validations. Prints CPU (user + sys) and wall seconds; on a shared machine CPU is what
# compares. Run from the repository root after building.
# Usage: bench/graph/resnet18.sh [ROUNDS] [RUNS] [BUILD_DIR]
set -eu
rounds=${1:-3}
runs=${2:-20}
build=${3:-build}
vtac=$build/bin/vtac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data"
/usr/bin/python3 samples/models/gen_resnet18_vta.py --module "$work/resnet18_vta.tvm" --params "$work/weights.npz" \
  --input "$work/data/x.npy" --expected "$work/data/expected.npy" > /dev/null
/usr/bin/python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$work/weights.npz" "$work/data"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  /usr/bin/time -f "compile (one object, -O2): %U s user + %S s sys, %e s wall" \
    "$vtac" compile samples/models/resnet18_vta.tvm --auto-schedule --passes=vta-lower --symbol main=resnet18 \
    -o "$work/resnet18.o" 2> "$work/compile.err" || { cat "$work/compile.err"; exit 1; }
  grep -v "remark\|^ " "$work/compile.err" || true
  /usr/bin/time -f "vtac run (whole process): %U s user + %S s sys, %e s wall" \
    "$vtac" run samples/models/resnet18_vta.tvm --auto-schedule --passes=vta-lower --params "$work/weights.npz" \
    --input x="$work/data/x.npy" --output "$work/out.npy" 2> "$work/run.err" || { cat "$work/run.err"; exit 1; }
  grep -v "remark\|^ " "$work/run.err" || true
done
cmp "$work/out.npy" "$work/data/expected.npy" > /dev/null 2>&1 || \
  /usr/bin/python3 -c "import numpy, sys; sys.exit(not (numpy.load(sys.argv[1]) == numpy.load(sys.argv[2])).all())" \
    "$work/out.npy" "$work/data/expected.npy"
echo "vtac run's output equals the numpy reference"
lib=$build/lib
${CC:-cc} -std=c99 -O2 tests/e2e/compile/Inputs/resnet18_main.c "$work/resnet18.o" -o "$work/resnet18_main" \
  -Iruntime/include -Iruntime/parallel/include -Isimulator/include -Itests/e2e/compile/Inputs \
  -L"$lib" -lvta_runtime -lvta_sim -lvtac_parallel -Wl,-rpath,"$(cd "$lib" && pwd)" -lm -lpthread
"$work/resnet18_main" "$work/data" "$runs" | grep -v "returned 0"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
