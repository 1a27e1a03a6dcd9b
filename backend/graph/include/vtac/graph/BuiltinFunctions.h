// The runtime functions vtac provides under the names seed 004's graphs call:
//   env.linear(x, w, b, out): out = x @ w.T + b   (x: (b, m), w: (n, m), b: (n,), out: (b, n))
//   env.relu(x, out):         out = max(x, 0)     (same shape)
// both on float32, registered in the C function registry (func_registry.h) the way a user's
// library registers its own; a library loaded later may override them.
#pragma once

namespace vtac::graph {

// Registers the built-ins once per process; later calls do nothing.
void registerBuiltinFunctions();

}  // namespace vtac::graph
