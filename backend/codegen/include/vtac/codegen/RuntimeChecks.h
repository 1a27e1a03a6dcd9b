// Run-time checks in compiled code (`LLVMEmitOptions::runtimeChecks`, what `vtac run
// --engine=jit` compiles with): the faults the interpreter stops at, caught where they happen.
//
// With checks on, the LLVM emitter guards every buffer access (each index of a
// multi-dimensional buffer against its extent, the flat element against the allocation behind
// the buffer's data: a parameter's tensor, a T.allocate, or an alias of either), the range of
// every T.tvm_access_ptr (against the allocation too), integer division and remainder (by zero;
// a divisor of -1 cannot trap either, the quotient wraps as the interpreter's does), shifts
// (amount in [0, bits)), float-to-int casts (value representable) and the size of every
// T.allocate (at most kMaxAllocationBytes, as the interpreter allows). What the arithmetic
// analyzer proves under the enclosing loop ranges (ir/arith: constant bounds, `canProve`) costs
// nothing at run time; the rest is a compare and a branch to a cold block that calls
// `int32_t vtac_check_failed(int32_t site, int64_t a, int64_t b, int64_t c)` and returns
// kStatusCheckFailed (from a micro-kernel or a parallel task, that status travels up through the
// runtime or the thread pool). `site` indexes the CheckSite table the emitter returns; a, b and
// c carry the run-time values (see CheckKind). A failing runtime call (a status-returning call,
// a micro-kernel push, a call that raised the runtime's error count) reports a CallFailed site.
//
// With `countSteps` too, loops count their iterations as the interpreter does (ir/LoopSteps.h:
// a leaf loop a chunk at a time before running it, other for and while loops, launched and
// virtual threads once per iteration). A function keeps its count in a register and adds it to
// the caller's uint64 `vtac_steps` (atomically: parallel tasks count too) when it reaches the
// room left before the uint64 `vtac_next_limit_check`, before calling code that counts, and at
// its end; when the total reaches vtac_next_limit_check it calls
// `int32_t vtac_check_limits(int32_t site, int64_t steps)` (backend::StepLimiter: --max-steps,
// --timeout, the progress line); non-zero stops the run at that loop (a Stopped site, whose
// message the caller has). These symbols are the caller's (the JIT binds them); objects
// compiled by `vtac compile` have no checks.
#pragma once

#include <cstdint>
#include <string>

#include "vtac/ir/SourceLoc.h"

namespace vtac::codegen {

inline constexpr const char *kCheckFailedSymbol = "vtac_check_failed";
inline constexpr const char *kStepCountSymbol = "vtac_steps";
inline constexpr const char *kNextLimitCheckSymbol = "vtac_next_limit_check";
inline constexpr const char *kCheckLimitsSymbol = "vtac_check_limits";
// The largest T.allocate checked code makes: the interpreter's limit (backend::kMaxTensorBytes).
inline constexpr int64_t kMaxAllocationBytes = int64_t(4) << 30;

enum class CheckKind : uint8_t {
  DimensionIndex,   // a: the index, b: the extent of dimension `dim`
  AllocationIndex,  // a: the flat element, b: the allocation's size in bytes
  DivisionByZero,   // a: the dividend
  ModuloByZero,     // a: the dividend
  ShiftAmount,      // a: the amount
  FloatToInt,       // a: the bits of the value as a double
  Stopped,          // vtac_check_limits stopped the run (its message is the caller's)
  CallFailed,       // the runtime call `name` failed (its message is the runtime's last error)
  AllocationTooLarge,  // a: the bytes asked for, b: 1 when their product overflowed 64 bits
  AccessPtrRange,      // a: the first element, b: the element count, c: the allocation's size in bytes
};

struct CheckSite {
  CheckKind kind;
  ir::SourceLoc loc;
  std::string name;          // the buffer (accesses), or the integer type (shifts, casts)
  int64_t dim = 0;           // DimensionIndex: which dimension
  bool flatIndex = false;    // AllocationIndex: a 1-d access without element offset
  int64_t elementBytes = 1;  // AllocationIndex, AccessPtrRange: the size of the element
  std::string shape{};       // AllocationTooLarge: the extents as written, "(n, 4)"
};

}  // namespace vtac::codegen
