#!/bin/sh
# compare_runs.sh VTAC BEFORE.tvm AFTER.tvm WORKDIR ENTRY...: runs each Relax entry of both
# modules on the same seeded random inputs with the interpreter and the JIT and fails unless
# all four results are the same bytes.
set -e
vtac=$1 before=$2 after=$3 work=$4
shift 4
for entry in "$@"; do
  for engine in interp jit; do
    "$vtac" run "$before" --entry "$entry" --engine=$engine --random-inputs --seed 3 --output "$work/$entry.before.$engine.npy" > /dev/null
    "$vtac" run "$after" --entry "$entry" --engine=$engine --random-inputs --seed 3 --output "$work/$entry.after.$engine.npy" > /dev/null
    cmp "$work/$entry.before.interp.npy" "$work/$entry.after.$engine.npy"
    cmp "$work/$entry.before.interp.npy" "$work/$entry.before.$engine.npy"
  done
done
