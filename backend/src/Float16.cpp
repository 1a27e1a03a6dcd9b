#include "vtac/backend/Float16.h"

#include <cmath>
#include <cstring>

namespace vtac::backend {

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf / nan (payload kept)
  } else if (exponent != 0) {
    out = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    // Subnormal half: normalise into a float32 normal number.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    out = sign | (uint32_t(127 - 15 + 1 - shift) << 23) | (mantissa << 13);
  }
  float result;
  std::memcpy(&result, &out, sizeof result);
  return result;
}

uint16_t floatToHalf(float value) {
  uint32_t in;
  std::memcpy(&in, &value, sizeof in);
  uint16_t sign = uint16_t((in >> 16) & 0x8000);
  uint32_t exponent = (in >> 23) & 0xff;
  uint32_t mantissa = in & 0x7fffff;
  if (exponent == 0xff)  // inf stays inf, nan stays a quiet nan
    return sign | 0x7c00 | (mantissa ? 0x200 | (mantissa >> 13) : 0);
  int halfExponent = int(exponent) - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;  // overflow to inf
  if (halfExponent <= 0) {
    if (halfExponent < -10) return sign;  // underflows to zero even after rounding
    // Subnormal half: shift the implicit-one mantissa right, rounding to nearest even.
    uint32_t full = mantissa | 0x800000;
    int shift = 14 - halfExponent;
    uint32_t halfMantissa = full >> shift;
    uint32_t remainder = full & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (halfMantissa & 1))) ++halfMantissa;
    return sign | uint16_t(halfMantissa);
  }
  uint32_t halfBits = (uint32_t(halfExponent) << 10) | (mantissa >> 13);
  uint32_t remainder = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (possibly to inf).
  if (remainder > 0x1000 || (remainder == 0x1000 && (halfBits & 1))) ++halfBits;
  return sign | uint16_t(halfBits);
}

uint16_t doubleToHalf(double value) {
  // Rounding to float first and then to half can round twice (a value just above a half tie
  // that float rounds onto the tie). Rounding to float by truncation with the last bit set
  // when inexact (round to odd) keeps the tie broken: float has more than 11 + 2 bits.
  float rounded = float(value);
  if (std::isfinite(value) && double(rounded) != value) {
    if (std::fabs(double(rounded)) > std::fabs(value)) rounded = std::nextafter(rounded, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &rounded, sizeof bits);
    bits |= 1;
    std::memcpy(&rounded, &bits, sizeof bits);
  }
  return floatToHalf(rounded);
}

}  // namespace vtac::backend
