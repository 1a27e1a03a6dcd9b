#!/bin/sh
# Seed 004's unscheduled 1024^3 float32 matmul (samples/matmul_1024.tvm, tir.noalias): the JIT
# (`vtac run`) and `vtac compile --emit=obj` against the restrict-qualified C loop at -O2, in
# one invocation (results in bench/RESULTS.md): the C loop by cc, then by clang-19 where it is
# installed (what LLVM makes of the same alias information). Run from the source directory:
#   bench/codegen/matmul_restrict.sh [build dir]
set -eu
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/vtac" compile samples/matmul_1024.tvm --passes=tir-lower --symbol matmul -o "$work/matmul.o"
echo "C loop by cc:"
cc -O2 -std=c99 bench/codegen/matmul_restrict_main.c "$work/matmul.o" -o "$work/bench"
"$work/bench" | tee "$work/out"
c_seconds=$(sed -n 's/^C loop.*: \([0-9.]*\) s CPU$/\1/p' "$work/out")
jit_seconds=$("$build/bin/vtac" run samples/matmul_1024.tvm --random-inputs --timing 2>&1 |
  sed -n 's/.*run [0-9.]* s (\([0-9.]*\) s CPU.*/\1/p')
echo "vtac run (JIT): $jit_seconds s CPU, $(echo "scale=2; $jit_seconds / $c_seconds" | bc)x the C loop by cc"
if command -v clang-19 >/dev/null; then
  echo "C loop by clang-19:"
  clang-19 -O2 -std=c99 bench/codegen/matmul_restrict_main.c "$work/matmul.o" -o "$work/bench-clang"
  "$work/bench-clang"
fi
