// IEEE 754 binary16 <-> binary32 conversions (round to nearest, ties to even).
//
// float16 tensors are stored as raw 16-bit patterns; the interpreter computes in float and
// rounds every float16 result back to float16 (doubleToHalf) so arithmetic matches a float16 machine.
#pragma once

#include <cstdint>

namespace vtac::backend {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
// The nearest binary16 of a double, rounded once (what LLVM's fptrunc double to half gives).
uint16_t doubleToHalf(double value);

}  // namespace vtac::backend
