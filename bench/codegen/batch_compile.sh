#!/bin/sh
# `vtac compile` of a batch of layers (results in bench/RESULTS.md): N copies of seed 001's
# lowered conv2d (each its own file and symbol) compiled to objects in one invocation, with -j1
# and -j2, then the same N layers as N separate invocations driven by make -j2 (depfiles on).
# Prints wall and CPU (user + sys) seconds of each. Usage: bench/codegen/batch_compile.sh [N] [VTAC]
set -eu
n=${1:-64}
vtac=${2:-build/bin/vtac}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/j1" "$work/j2" "$work/make"
i=0
while [ "$i" -lt "$n" ]; do
  cp samples/conv2d_vta_lowered.tvm "$work/src/layer$i.tvm"
  i=$((i + 1))
done
layers=$(cd "$work/src" && ls | sed 's/\.tvm$//' | tr '\n' ' ')
timed() {
  label=$1
  shift
  /usr/bin/time -f "$label: %e s wall, %U s user + %S s sys" "$@"
}
timed "one invocation, -j1, $n layers" "$vtac" compile "$work"/src/*.tvm -o "$work/j1/" -j 1
timed "one invocation, -j2, $n layers" "$vtac" compile "$work"/src/*.tvm -o "$work/j2/" -j 2
timed "make -j2, one invocation per layer, $n layers" \
  make -s -j2 -f tests/e2e/compile/Inputs/layers.mk VTAC="$vtac" SRC="$work/src" OUT="$work/make" LAYERS="$layers" > /dev/null
for f in "$work"/j1/*.o; do cmp "$f" "$work/j2/$(basename "$f")"; done
echo "the -j1 and -j2 objects are byte-identical"
