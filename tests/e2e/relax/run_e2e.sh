#!/usr/bin/env bash
# End-to-end tests of `vtac run` / `vtac print` on Relax graphs (issue 5), driven by ctest:
#   run_e2e.sh VTAC RELAX_MLP_DATA USER_LIBRARY SOURCE_ROOT WORK_DIR
# The MLP data and its reference output come from relax_mlp_data (computed independently of
# vtac); every bad input must give exit status 1 and the expected diagnostic.
set -u
vtac=$1 data_tool=$2 user_library=$3 root=$4 work=$5
samples=$root/samples inputs=$root/tests/lit/relax/Inputs
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$data_tool" make "$work" || exit 1
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_ok NAME COMMAND...: exit status 0.
expect_ok() {
  local name=$1; shift
  "$@" > "$name.out" 2>&1
  local status=$?
  if [ "$status" -ne 0 ]; then fail "$name: exit status $status ($(head -c 600 "$name.out"))"; fi
}

# expect_error NAME TEXT COMMAND...: exit status 1 and TEXT in the diagnostics.
expect_error() {
  local name=$1 text=$2; shift 2
  "$@" > "$name.out" 2>&1
  local status=$?
  if [ "$status" -ne 1 ]; then fail "$name: exit status $status, expected 1"; fi
  if ! grep -qF -- "$text" "$name.out"; then fail "$name: no '$text' in: $(head -c 600 "$name.out")"; fi
}

# The three forms of seed 004's MLP agree with the reference, with the weights from an .npz.
for module in mlp_module mlp_extern_call mlp_mixture; do
  expect_ok "$module" "$vtac" run "$samples/$module.tvm" --entry main --params params.npz \
    --input x=x.npy --output out="$module.npy" --stats
  expect_ok "$module-compare" "$data_tool" compare expected.npy "$module.npy"
done
grep -q "peak tensor bytes  1024" mlp_module.out || fail "mlp_module: peak tensor bytes: $(cat mlp_module.out)"
# Everything (x too) from a stored .npz; --output PATH for the one result.
expect_ok all-params "$vtac" run "$samples/mlp_extern_call.tvm" --params all.npz --output all.npy
expect_ok all-params-compare "$data_tool" compare expected.npy all.npy
# The bound function prints as seed 004's MyModuleWithParams listing.
expect_ok print-params "$vtac" print "$samples/mlp_mixture.tvm" --params params.npz
grep -qF 'def main(x: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):' print-params.out ||
  fail "print --params: signature: $(cat print-params.out)"
grep -qF '(x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1])' print-params.out ||
  fail "print --params: constants"
# Symbolic sizes given by name when no input fixes them.
expect_ok sizes "$vtac" run "$samples/mlp_module.tvm" --random-inputs --size m=784 --size n=128 --size k=10 --output sizes.npy
expect_error no-sizes "error: no data for parameter 'x'" "$vtac" run "$samples/mlp_module.tvm" --random-inputs
# BlockBuilder's call_tir module, and a VTA prim_func between CPU prim_funcs.
expect_ok blockbuilder "$vtac" run "$samples/blockbuilder_matmul_relu.tvm" --entry main --random-inputs --output gv=gv.npy
expect_ok vta-mixed "$vtac" run "$inputs/vta_mixed_graph.tvm" --entry main --random-inputs --stats
grep -qE "^ +1 +vta_add( +[0-9]+){6} +1024( +[0-9]+){2}$" vta-mixed.out || fail "vta-mixed: no VTA statistics: $(cat vta-mixed.out)"
# A user's function from a library.
expect_ok user-library "$vtac" run "$inputs/user_function.tvm" --load-library "$user_library" --random-inputs

# Bad inputs.
expect_error shape-conflict "mlp_extern_call.tvm:4:17: error: input 'x' of shape (1, 785) does not match" \
  "$vtac" run "$samples/mlp_extern_call.tvm" --params params.npz --input x=bad_x.npy
expect_error unknown-function "unknown_function.tvm:5:31: error: unknown packed function 'env.gelu'" \
  "$vtac" run "$inputs/unknown_function.tvm" --random-inputs
expect_error missing-param "error: parameter 'b1' is not in partial.npz and has no --input" \
  "$vtac" run "$samples/mlp_extern_call.tvm" --params partial.npz --input x=x.npy
expect_error corrupt-npz "error: cannot read 'corrupt.npz' as an .npz archive" \
  "$vtac" run "$samples/mlp_extern_call.tvm" --params corrupt.npz --input x=x.npy
expect_error bad-library "error: cannot load library '$work/missing.so'" \
  "$vtac" run "$inputs/user_function.tvm" --load-library "$work/missing.so" --random-inputs
expect_error call-tir-output "error: the output of 'te_relu' (buffer relu) needs dimension 1 = 128, got 64" \
  "$vtac" run "$inputs/call_tir_bad_output.tvm" --random-inputs

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all relax end-to-end checks passed"
