// The messages of the errors that stop a run, shared by the engines of `vtac run`: the
// interpreter (interp/Nodes.cpp) and the JIT's run-time checks (backend/jit) report the same
// fault with the same words, so a test or a user sees one text whatever the engine. Each
// function returns the message only; the caller locates it at the offending expression.
#pragma once

#include <cstdint>
#include <string>

namespace vtac::backend {

// `index` of dimension `dim` of a multi-dimensional buffer is not in [0, extent).
std::string dimensionOutOfBoundsMessage(int64_t index, int64_t dim, const std::string &buffer, int64_t extent);

// Element `flat` of `buffer` is outside its allocation of `allocationBytes` bytes. A
// one-dimensional access without element offset (`flatIndex`) names the index and the number
// of `elementBytes`-sized elements the allocation holds.
std::string outsideAllocationMessage(int64_t flat, const std::string &buffer, bool flatIndex, int64_t elementBytes,
                                     int64_t allocationBytes);

// A tvm_access_ptr to elements [first, first + count) of `buffer`, whose allocation holds
// `elements` elements of the pointer's type, reaches outside it (or has a negative bound).
std::string accessPtrOutOfRangeMessage(int64_t first, int64_t count, const std::string &buffer, int64_t elements);

// An integer division (or, with `modulo`, a remainder) of `dividend` by zero.
std::string divisionByZeroMessage(bool modulo, int64_t dividend);

// A shift by `amount` bits of a value of `typeName` ("int32"): not in [0, bits).
std::string shiftOutOfRangeMessage(int64_t amount, const std::string &typeName);

// A float `value` cast to `typeName` that cannot hold it (or NaN).
std::string floatToIntMessage(double value, const std::string &typeName);

// A tensor of `shape` ("(4, 8)") whose `bytes` exceed kMaxTensorBytes (`overflow`: their
// product overflowed 64 bits).
std::string tensorTooLargeMessage(const std::string &shape, int64_t bytes, bool overflow);

// A T.allocate of `buffer`, shaped `shape`, too large as tensorTooLargeMessage says.
std::string allocationTooLargeMessage(const std::string &buffer, const std::string &shape, int64_t bytes,
                                      bool overflow);

}  // namespace vtac::backend
