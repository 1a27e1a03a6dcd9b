// DataType spelling: parse and print agree, invalid spellings are rejected.
#include <catch2/catch.hpp>

#include "vtac/ir/DataType.h"

using vtac::ir::DataType;

TEST_CASE("data types print as TVMScript spells them and parse back", "[ir][dtype]") {
  for (const char *text : {"int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16", "float32",
                           "float64", "bool", "handle", "float32x4", "int8x16", "void"}) {
    auto parsed = DataType::parse(text);
    REQUIRE(parsed);
    CHECK(parsed->str() == text);
  }
}

TEST_CASE("data type properties", "[ir][dtype]") {
  auto t = *DataType::parse("float32x4");
  CHECK(t.isFloat());
  CHECK(t.bits() == 32);
  CHECK(t.lanes() == 4);
  CHECK(t.bytes() == 16);
  CHECK(t.elementType() == DataType::float32());
  CHECK(DataType::parse("bool")->isBool());
  CHECK(DataType::voidTy().isVoid());
  CHECK(DataType::int32() != DataType::uintTy(32));
}

TEST_CASE("invalid data type spellings are rejected", "[ir][dtype]") {
  for (const char *text : {"", "int", "int7", "float8", "float32x", "float32x1", "int32x0", "complex64", "Int32"})
    CHECK_FALSE(DataType::parse(text));
}
