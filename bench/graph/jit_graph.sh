#!/bin/sh
# `vtac run` of a Relax main on the JIT (results in bench/RESULTS.md): N distinct copies of seed
# 001's lowered conv2d (conv0 .. conv{N-1}), chained by a main that calls each once on the
# previous output, run whole-process on the JIT and on the interpreter, three times each; then
# once with --timing. Prints wall and CPU (user + sys) seconds. Run from the repository root.
# Usage: bench/graph/jit_graph.sh [N] [VTAC]
set -eu
n=${1:-10}
vtac=${2:-build/bin/vtac}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$n" samples/conv2d_vta_lowered.tvm > "$work/chain.tvm" <<'PY'
import sys
n, source = int(sys.argv[1]), open(sys.argv[2]).read()
head, body = source.split("    @T.prim_func\n", 1)
out = head
for i in range(n):
    out += "    @T.prim_func\n" + body.replace("def main(", "def conv%d(" % i).replace('"global_symbol": "main", ', "")
shape = 'R.Tensor((1, 16, 14, 14, 1, 16), dtype="int8")'
out += ('\n    @R.function\n    def main(data: %s, kernel: R.Tensor((16, 16, 3, 3, 16, 16), dtype="int8")) -> %s:\n'
        '        cls = Module\n        with R.dataflow():\n' % (shape, shape))
previous = "data"
for i in range(n):
    name = "gv" if i == n - 1 else "lv%d" % i
    out += "            %s = R.call_tir(cls.conv%d, (%s, kernel), out_sinfo=%s)\n" % (name, i, previous, shape)
    previous = name
sys.stdout.write(out + "            R.output(gv)\n        return gv\n")
PY
for engine in jit interp jit interp jit interp; do
  /usr/bin/time -f "$engine, $n conv2d calls: %e s wall, %U s user + %S s sys" \
    "$vtac" run "$work/chain.tvm" --engine=$engine --random-inputs --output "$work/$engine.npy"
done
cmp "$work/jit.npy" "$work/interp.npy" && echo "the engines' outputs are byte-identical"
"$vtac" run "$work/chain.tvm" --random-inputs --timing --output "$work/jit.npy"
