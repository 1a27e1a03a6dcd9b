// The configuration parser and the instruction encoding. The encoding is checked against C
// bit-fields declared the way TVM's hw_spec.h declares them, for the default configuration:
// that is the binary compatibility TVM's runtime and simulator rely on.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <random>

#include "vta/config.h"
#include "vta/isa.h"

using namespace vta;
using namespace vta::isa;

namespace {

// hw_spec.h's formats with the default configuration's widths (micro-op SRAM depth 2^13,
// accumulator and input 2^11, weight 2^10).
struct BitfieldMemInsn {
  uint64_t opcode : 3, popPrev : 1, popNext : 1, pushPrev : 1, pushNext : 1, memoryType : 3,
      sramBase : 16, dramBase : 32, ySize : 16, xSize : 16, xStride : 16, yPad0 : 4, yPad1 : 4,
      xPad0 : 4, xPad1 : 4;
};
struct BitfieldGemmInsn {
  uint64_t opcode : 3, popPrev : 1, popNext : 1, pushPrev : 1, pushNext : 1, reset : 1,
      uopBgn : 13, uopEnd : 14, iterOut : 14, iterIn : 14, dstOut : 11, dstIn : 11, srcOut : 11,
      srcIn : 11, wgtOut : 10, wgtIn : 10;
};
struct BitfieldAluInsn {
  uint64_t opcode : 3, popPrev : 1, popNext : 1, pushPrev : 1, pushNext : 1, reset : 1,
      uopBgn : 13, uopEnd : 14, iterOut : 14, iterIn : 14, dstOut : 11, dstIn : 11, srcOut : 11,
      srcIn : 11, aluOpcode : 3, useImm : 1;
  int64_t imm : 16;
};
struct BitfieldUop {
  uint32_t dst : 11, src : 11, wgt : 10;
};
static_assert(sizeof(BitfieldMemInsn) == 16 && sizeof(BitfieldGemmInsn) == 16 &&
                  sizeof(BitfieldAluInsn) == 16 && sizeof(BitfieldUop) == 4,
              "hw_spec.h's formats are 128-bit instructions and 32-bit micro-ops");

template <typename T>
T as(const Insn& insn) {
  T value;
  std::memcpy(&value, &insn, sizeof value);
  return value;
}

Layout defaultLayout() { return llvm::cantFail(Layout::forConfig(Config::tvmDefault())); }

}  // namespace

TEST_CASE("the default configuration derives TVM's sizes", "[vta][config]") {
  const Config c = Config::tvmDefault();
  CHECK(c.batch == 1);
  CHECK(c.blockIn == 16);
  CHECK(c.inpElemBytes == 16);
  CHECK(c.wgtElemBytes == 256);
  CHECK(c.accElemBytes == 64);
  CHECK(c.outElemBytes == 16);
  CHECK(c.inpDepth == 2048);
  CHECK(c.wgtDepth == 1024);
  CHECK(c.accDepth == 2048);
  CHECK(c.uopDepth == 8192);
  CHECK(c.dramElemBytes(kMemAcc8Bit) == 16);
}

TEST_CASE("a vta_config.json changes every derived size", "[vta][config]") {
  auto block32 = Config::fromJSON(R"({"TARGET": "sim", "LOG_BLOCK": 5, "LOG_BATCH": 1})");
  REQUIRE(static_cast<bool>(block32));
  CHECK(block32->batch == 2);
  CHECK(block32->blockIn == 32);
  CHECK(block32->blockOut == 32);
  CHECK(block32->inpElemBytes == 64);
  CHECK(block32->wgtElemBytes == 1024);
  CHECK(block32->accElemBytes == 256);
  CHECK(block32->inpDepth == (1u << 15) / 64);
  CHECK(block32->wgtDepth == (1u << 18) / 1024);
  CHECK(block32->accDepth == (1u << 17) / 256);
  // The text round-trips.
  auto again = Config::fromJSON(block32->toJSON());
  REQUIRE(static_cast<bool>(again));
  CHECK(again->name() == block32->name());
}

TEST_CASE("bad configurations are errors, not guesses", "[vta][config]") {
  auto expectError = [](llvm::Expected<Config> config, const std::string& fragment) {
    REQUIRE_FALSE(static_cast<bool>(config));
    const std::string message = llvm::toString(config.takeError());
    CAPTURE(message);
    CHECK(message.find(fragment) != std::string::npos);
  };
  expectError(Config::fromJSON("{ not json"), "invalid JSON");
  expectError(Config::fromJSON(R"({"LOG_ACC_WIDTH": 4})"), "LOG_ACC_WIDTH");
  expectError(Config::fromJSON(R"({"LOG_BLOCK": "four"})"), "LOG_BLOCK must be an integer");
  expectError(Config::fromPathOrJSON("/nonexistent/vta_config.json"), "cannot read");
  // Loop factors of 2 x (14 + 15 + 16) bits do not fit the second 64-bit word.
  expectError(Config::fromJSON(R"({"LOG_INP_BUFF_SIZE": 18, "LOG_ACC_BUFF_SIZE": 20, "LOG_WGT_BUFF_SIZE": 24})"),
              "instruction fields exceed 128 bits");
  // Micro-op fields of 11 + 11 + 11 bits exceed 32 bits (the instructions still fit).
  expectError(Config::fromJSON(R"({"LOG_INP_BUFF_SIZE": 14, "LOG_WGT_BUFF_SIZE": 19})"),
              "micro-op fields exceed 32 bits");
}

TEST_CASE("instructions encode exactly as hw_spec.h's bit-fields", "[vta][isa]") {
  const Layout layout = defaultLayout();
  std::mt19937 rng(5);
  auto bits = [&](int width) { return static_cast<uint32_t>(rng() & ((uint64_t{1} << width) - 1)); };
  for (int trial = 0; trial < 200; ++trial) {
    MemInsn mem;
    mem.opcode = bits(1);  // LOAD or STORE
    mem.deps = {bits(1) != 0, bits(1) != 0, bits(1) != 0, bits(1) != 0};
    mem.memoryType = bits(3), mem.sramBase = bits(16), mem.dramBase = bits(32);
    mem.ySize = bits(16), mem.xSize = bits(16), mem.xStride = bits(16);
    mem.yPad0 = bits(4), mem.yPad1 = bits(4), mem.xPad0 = bits(4), mem.xPad1 = bits(4);
    const Insn memInsn = llvm::cantFail(layout.encode(mem));
    const auto m = as<BitfieldMemInsn>(memInsn);
    CHECK((m.opcode == mem.opcode && m.popPrev == mem.deps.popPrev && m.pushNext == mem.deps.pushNext));
    CHECK((m.memoryType == mem.memoryType && m.sramBase == mem.sramBase && m.dramBase == mem.dramBase));
    CHECK((m.ySize == mem.ySize && m.xSize == mem.xSize && m.xStride == mem.xStride));
    CHECK((m.yPad0 == mem.yPad0 && m.yPad1 == mem.yPad1 && m.xPad0 == mem.xPad0 && m.xPad1 == mem.xPad1));
    const MemInsn back = layout.decodeMem(memInsn);
    CHECK((back.dramBase == mem.dramBase && back.xPad1 == mem.xPad1 && back.memoryType == mem.memoryType));

    GemmInsn gemm;
    gemm.deps = {bits(1) != 0, bits(1) != 0, bits(1) != 0, bits(1) != 0};
    gemm.loops.reset = bits(1) != 0;
    gemm.loops.uopBgn = bits(13), gemm.loops.uopEnd = bits(14);
    gemm.loops.iterOut = bits(14), gemm.loops.iterIn = bits(14);
    gemm.loops.dstFactorOut = bits(11), gemm.loops.dstFactorIn = bits(11);
    gemm.loops.srcFactorOut = bits(11), gemm.loops.srcFactorIn = bits(11);
    gemm.wgtFactorOut = bits(10), gemm.wgtFactorIn = bits(10);
    const Insn gemmInsn = llvm::cantFail(layout.encode(gemm));
    const auto g = as<BitfieldGemmInsn>(gemmInsn);
    CHECK((g.opcode == kOpGemm && g.reset == gemm.loops.reset && g.popNext == gemm.deps.popNext));
    CHECK((g.uopBgn == gemm.loops.uopBgn && g.uopEnd == gemm.loops.uopEnd));
    CHECK((g.iterOut == gemm.loops.iterOut && g.iterIn == gemm.loops.iterIn));
    CHECK((g.dstOut == gemm.loops.dstFactorOut && g.dstIn == gemm.loops.dstFactorIn));
    CHECK((g.srcOut == gemm.loops.srcFactorOut && g.srcIn == gemm.loops.srcFactorIn));
    CHECK((g.wgtOut == gemm.wgtFactorOut && g.wgtIn == gemm.wgtFactorIn));
    CHECK(layout.decodeGemm(gemmInsn).wgtFactorIn == gemm.wgtFactorIn);

    AluInsn alu;
    alu.deps = {bits(1) != 0, bits(1) != 0, bits(1) != 0, bits(1) != 0};
    alu.loops.uopBgn = bits(13), alu.loops.uopEnd = bits(14);
    alu.loops.iterOut = bits(14), alu.loops.iterIn = bits(14);
    alu.loops.dstFactorOut = bits(11), alu.loops.srcFactorIn = bits(11);
    alu.aluOpcode = bits(3) % 5, alu.useImm = bits(1) != 0;
    alu.imm = static_cast<int16_t>(bits(16));
    const Insn aluInsn = llvm::cantFail(layout.encode(alu));
    const auto a = as<BitfieldAluInsn>(aluInsn);
    CHECK((a.opcode == kOpAlu && a.pushPrev == alu.deps.pushPrev && a.dstOut == alu.loops.dstFactorOut));
    CHECK((a.srcIn == alu.loops.srcFactorIn && a.aluOpcode == alu.aluOpcode && a.useImm == alu.useImm));
    CHECK(a.imm == alu.imm);
    CHECK(layout.decodeAlu(aluInsn).imm == alu.imm);

    const Uop uop{bits(11), bits(11), bits(10)};
    const uint32_t word = llvm::cantFail(layout.encode(uop));
    BitfieldUop u;
    std::memcpy(&u, &word, sizeof u);
    CHECK((u.dst == uop.dst && u.src == uop.src && u.wgt == uop.wgt));
    const Uop decoded = layout.decodeUop(word);
    CHECK((decoded.dst == uop.dst && decoded.src == uop.src && decoded.wgt == uop.wgt));
  }
}

TEST_CASE("a value too wide for its field is an error naming the field", "[vta][isa]") {
  const Layout layout = defaultLayout();
  MemInsn mem;
  mem.xSize = 1 << 16;
  auto encoded = layout.encode(mem);
  REQUIRE_FALSE(static_cast<bool>(encoded));
  // Widths of the default config (tvm-vta hw_spec.h / pkg_config): sizes and the ALU immediate
  // have 16 bits; micro-op indices log2(ACC depth) = 17 - 0 - 4 - 5 + 3 = 11 bits.
  CHECK(llvm::toString(encoded.takeError()) == "instruction field x_size = 65536 does not fit its 16-bit encoding");
  AluInsn alu;
  alu.imm = 40000;
  auto aluEncoded = layout.encode(alu);
  REQUIRE_FALSE(static_cast<bool>(aluEncoded));
  CHECK(llvm::toString(aluEncoded.takeError()) == "instruction field imm = 40000 does not fit its 16-bit encoding");
  auto uop = layout.encode(Uop{2048, 0, 0});
  REQUIRE_FALSE(static_cast<bool>(uop));
  CHECK(llvm::toString(uop.takeError()) == "micro-op field dst_idx = 2048 does not fit its 11-bit encoding");
}

TEST_CASE("LOAD and STORE encode at the same bits in every configuration", "[vta][isa]") {
  // Layout keeps these fields at compile-time bits; other configurations change only the
  // GEMM and ALU index fields.
  const char* configs[] = {"{}", R"({"LOG_BLOCK": 5, "LOG_BATCH": 1})",
                           R"({"LOG_UOP_BUFF_SIZE": 14, "LOG_ACC_BUFF_SIZE": 16})"};
  std::mt19937 rng(11);
  auto bits = [&](int width) { return static_cast<uint32_t>(rng() & ((uint64_t{1} << width) - 1)); };
  for (const char* json : configs) {
    CAPTURE(json);
    auto config = Config::fromJSON(json);
    REQUIRE(static_cast<bool>(config));
    auto layoutOrError = Layout::forConfig(*config);
    REQUIRE(static_cast<bool>(layoutOrError));
    const Layout& layout = *layoutOrError;
    for (int trial = 0; trial < 100; ++trial) {
      BitfieldMemInsn expected{};
      expected.opcode = bits(1), expected.popPrev = bits(1), expected.popNext = bits(1);
      expected.pushPrev = bits(1), expected.pushNext = bits(1), expected.memoryType = bits(3);
      expected.sramBase = bits(16), expected.dramBase = bits(32), expected.ySize = bits(16);
      expected.xSize = bits(16), expected.xStride = bits(16), expected.yPad0 = bits(4);
      expected.yPad1 = bits(4), expected.xPad0 = bits(4), expected.xPad1 = bits(4);
      MemInsn mem;
      mem.opcode = expected.opcode;
      mem.deps = {expected.popPrev != 0, expected.popNext != 0, expected.pushPrev != 0,
                  expected.pushNext != 0};
      mem.memoryType = expected.memoryType, mem.sramBase = expected.sramBase;
      mem.dramBase = expected.dramBase, mem.ySize = expected.ySize, mem.xSize = expected.xSize;
      mem.xStride = expected.xStride, mem.yPad0 = expected.yPad0, mem.yPad1 = expected.yPad1;
      mem.xPad0 = expected.xPad0, mem.xPad1 = expected.xPad1;
      const Insn insn = llvm::cantFail(layout.encode(mem));
      CHECK(std::memcmp(&insn, &expected, sizeof insn) == 0);
      const MemInsn back = layout.decodeMem(insn);
      CHECK((back.opcode == mem.opcode && back.memoryType == mem.memoryType &&
             back.sramBase == mem.sramBase && back.dramBase == mem.dramBase &&
             back.ySize == mem.ySize && back.xSize == mem.xSize && back.xStride == mem.xStride &&
             back.yPad0 == mem.yPad0 && back.yPad1 == mem.yPad1 && back.xPad0 == mem.xPad0 &&
             back.xPad1 == mem.xPad1));
      const DepFlags deps = layout.depsOf(insn);
      CHECK((deps.popPrev == mem.deps.popPrev && deps.popNext == mem.deps.popNext &&
             deps.pushPrev == mem.deps.pushPrev && deps.pushNext == mem.deps.pushNext));
    }
  }
}

TEST_CASE("each LOAD/STORE field too wide is named, the first one when several are", "[vta][isa]") {
  const Layout layout = defaultLayout();
  const std::pair<const char*, uint32_t MemInsn::*> fields[] = {
      {"opcode", &MemInsn::opcode}, {"memory_type", &MemInsn::memoryType},
      {"sram_base", &MemInsn::sramBase}, {"y_size", &MemInsn::ySize},
      {"x_size", &MemInsn::xSize}, {"x_stride", &MemInsn::xStride},
      {"y_pad_0", &MemInsn::yPad0}, {"y_pad_1", &MemInsn::yPad1},
      {"x_pad_0", &MemInsn::xPad0}, {"x_pad_1", &MemInsn::xPad1}};
  for (const auto& [name, member] : fields) {
    MemInsn mem;
    mem.*member = 1u << 16;  // wider than every one of these fields
    auto encoded = layout.encode(mem);
    REQUIRE_FALSE(static_cast<bool>(encoded));
    const std::string message = llvm::toString(encoded.takeError());
    CAPTURE(message);
    CHECK(message.rfind(std::string("instruction field ") + name + " = 65536 does not fit", 0) == 0);
  }
  MemInsn twoBad;
  twoBad.xStride = 1u << 16, twoBad.yPad0 = 16;
  auto encoded = layout.encode(twoBad);
  REQUIRE_FALSE(static_cast<bool>(encoded));
  CHECK(llvm::toString(encoded.takeError()) == "instruction field x_stride = 65536 does not fit its 16-bit encoding");
}

TEST_CASE("VTA_CONFIG selects the configuration", "[vta][config]") {
  ::setenv("VTA_CONFIG", R"({"LOG_BATCH": 1})", 1);
  auto inline_json = Config::fromEnvironment();
  ::unsetenv("VTA_CONFIG");
  REQUIRE(static_cast<bool>(inline_json));
  CHECK(inline_json->batch == 2);
  auto unset = Config::fromEnvironment();
  REQUIRE(static_cast<bool>(unset));
  CHECK(unset->batch == 1);
}
