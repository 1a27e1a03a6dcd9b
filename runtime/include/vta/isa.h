// The VTA instruction set in the binary encoding of TVM's hw_spec.h, for any configuration.
//
// hw_spec.h declares instructions as C bit-fields whose widths depend on the configuration
// macros. Here the same layout is computed at run time from a vta::Config (following the
// SysV rule that a bit-field never straddles a unit of its declared type: 64-bit units for
// instructions, 32-bit units for micro-ops) and fields are read and written with shifts and
// masks. A program encoded here is therefore bit-identical to one built by TVM's runtime for
// the same configuration. Shared by the runtime (encoder) and the simulator (decoder).
//
// Only the GEMM and ALU index fields depend on the configuration (their widths are the log2
// SRAM depths); the opcode, the dependency flags and every LOAD/STORE field have fixed widths
// and come first, so they sit at the same bits in every configuration. Those are compile-time
// constants here (checked against the allocation rule in isa.cpp): the runtime encodes one
// LOAD or STORE per VTALoadBuffer2D / VTAStoreBuffer2D call, thousands per operator.
#ifndef VTA_ISA_H_
#define VTA_ISA_H_

#include <cstdint>
#include <string>

#include "vta/config.h"

namespace vta::isa {

enum Opcode : uint32_t { kOpLoad = 0, kOpStore = 1, kOpGemm = 2, kOpFinish = 3, kOpAlu = 4 };
enum MemoryType : uint32_t {
  kMemUop = 0,
  kMemWgt = 1,
  kMemInp = 2,
  kMemAcc = 3,
  kMemOut = 4,
  kMemAcc8Bit = 5,
};
enum AluOpcode : uint32_t { kAluMin = 0, kAluMax = 1, kAluAdd = 2, kAluShr = 3, kAluMul = 4 };

// The ALU's immediate operand: a signed field of this width in every configuration.
inline constexpr uint32_t kAluImmBits = 16;
constexpr bool fitsAluImmediate(int64_t value) {
  return value >= -(int64_t{1} << (kAluImmBits - 1)) && value < (int64_t{1} << (kAluImmBits - 1));
}

const char* opcodeName(uint32_t opcode);
const char* memoryTypeName(uint32_t memoryType);
const char* aluOpcodeName(uint32_t aluOpcode);

// One 128-bit instruction as it sits in DRAM (two little-endian 64-bit words).
struct Insn {
  uint64_t word[2] = {0, 0};
};
static_assert(sizeof(Insn) == 16, "an instruction is 128 bits");

// A bit-field of an instruction (offset counted from bit 0 of word 0) or of a micro-op.
struct Field {
  uint32_t offset = 0;
  uint32_t width = 0;
  bool isSigned = false;

  constexpr bool operator==(const Field& other) const {
    return offset == other.offset && width == other.width && isSigned == other.isSigned;
  }

  // Inline: the encoder and the simulator's decoder call these for every field.
  bool fits(int64_t value) const {
    if (isSigned) return value >= -(int64_t{1} << (width - 1)) && value < (int64_t{1} << (width - 1));
    return value >= 0 && (width >= 63 || value < (int64_t{1} << width));
  }
  uint64_t get(const Insn& insn) const {
    // Fields never straddle the two 64-bit words (see Layout::forConfig).
    const uint64_t word = insn.word[offset / 64] >> (offset % 64);
    return width >= 64 ? word : word & ((uint64_t{1} << width) - 1);
  }
  int64_t getSigned(const Insn& insn) const {
    const uint32_t unused = 64 - width;
    return static_cast<int64_t>(get(insn) << unused) >> unused;
  }
  void set(Insn& insn, uint64_t value) const {
    const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    uint64_t& word = insn.word[offset / 64];
    word = (word & ~(mask << (offset % 64))) | ((value & mask) << (offset % 64));
  }
  uint32_t get(uint32_t word) const { return (word >> offset) & mask32(); }
  void set(uint32_t& word, uint32_t value) const {
    word = (word & ~(mask32() << offset)) | ((value & mask32()) << offset);
  }

private:
  uint32_t mask32() const { return width >= 32 ? ~0u : ((1u << width) - 1u); }
};

// The four dependency flags every instruction carries after its opcode.
struct DepFlags {
  bool popPrev = false;
  bool popNext = false;
  bool pushPrev = false;
  bool pushNext = false;
};

// LOAD and STORE (a STORE or a LOAD with x_size 0 is a no-op carrying dependency flags).
struct MemInsn {
  uint32_t opcode = kOpLoad;
  DepFlags deps;
  uint32_t memoryType = 0;
  uint32_t sramBase = 0;
  uint32_t dramBase = 0;  // in elements of memoryType
  uint32_t ySize = 0, xSize = 0, xStride = 0;
  uint32_t yPad0 = 0, yPad1 = 0, xPad0 = 0, xPad1 = 0;
};

// The micro-op loop nest shared by GEMM and ALU instructions.
struct UopLoops {
  bool reset = false;
  uint32_t uopBgn = 0, uopEnd = 0;
  uint32_t iterOut = 1, iterIn = 1;
  uint32_t dstFactorOut = 0, dstFactorIn = 0;
  uint32_t srcFactorOut = 0, srcFactorIn = 0;
};

struct GemmInsn {
  DepFlags deps;
  UopLoops loops;
  uint32_t wgtFactorOut = 0, wgtFactorIn = 0;
};

struct AluInsn {
  DepFlags deps;
  UopLoops loops;
  uint32_t aluOpcode = kAluAdd;
  bool useImm = false;
  int32_t imm = 0;
};

// FINISH (and any instruction seen only through its opcode and flags).
struct FinishInsn {
  DepFlags deps;
};

// A micro-op: accumulator index, source index (input for GEMM, accumulator for ALU), weight.
struct Uop {
  uint32_t dst = 0, src = 0, wgt = 0;
};

class Layout {
public:
  // Fails if the fields of this configuration do not fit in 128 (instruction) or 32 (uop) bits.
  static llvm::Expected<Layout> forConfig(const Config& config);

  // The fields at fixed bits (see the file comment), in the order they are allocated.
  static constexpr Field kOpcode{0, 3}, kPopPrev{3, 1}, kPopNext{4, 1}, kPushPrev{5, 1},
      kPushNext{6, 1};
  static constexpr Field kMemType{7, 3}, kSramBase{10, 16}, kDramBase{26, 32}, kYSize{64, 16},
      kXSize{80, 16}, kXStride{96, 16}, kYPad0{112, 4}, kYPad1{116, 4}, kXPad0{120, 4},
      kXPad1{124, 4};

  uint32_t opcodeOf(const Insn& insn) const { return static_cast<uint32_t>(kOpcode.get(insn)); }
  DepFlags depsOf(const Insn& insn) const {
    return {kPopPrev.get(insn) != 0, kPopNext.get(insn) != 0, kPushPrev.get(insn) != 0,
            kPushNext.get(insn) != 0};
  }
  // Rewrites the four dependency flags (at the same place in every instruction kind).
  void setDeps(Insn& insn, const DepFlags& deps) const;

  // Encoding fails (naming the field) when a value does not fit its field.
  llvm::Expected<Insn> encode(const MemInsn& mem) const {
    Insn insn;
    if (llvm::Error error = encodeInto(mem, insn)) return error;
    return insn;
  }
  // encode(MemInsn) into `insn` (left unchanged on an error). Inline: the runtime encodes one
  // LOAD or STORE per VTALoadBuffer2D / VTAStoreBuffer2D straight into its queue; a result
  // written to a temporary as two 64-bit words and copied as one 128-bit value would stall
  // the store forwarding on every call.
  llvm::Error encodeInto(const MemInsn& mem, Insn& insn) const {
    // Every field at compile-time bits: one overflow test, two words assembled in registers.
    const uint64_t overflow =
        (uint64_t{mem.opcode} >> kOpcode.width) | (uint64_t{mem.memoryType} >> kMemType.width) |
        (uint64_t{mem.sramBase} >> kSramBase.width) | (uint64_t{mem.ySize} >> kYSize.width) |
        (uint64_t{mem.xSize} >> kXSize.width) | (uint64_t{mem.xStride} >> kXStride.width) |
        (uint64_t{mem.yPad0} >> kYPad0.width) | (uint64_t{mem.yPad1} >> kYPad1.width) |
        (uint64_t{mem.xPad0} >> kXPad0.width) | (uint64_t{mem.xPad1} >> kXPad1.width);
    if (overflow) return memFieldError(mem);  // dram_base is 32 bits wide: it always fits
    static_assert(kDramBase.width == 32 && kYSize.offset == 64 && kPushNext.offset < 64 &&
                      kMemType.offset + kMemType.width <= 64,
                  "the words of Layout::encodeInto(MemInsn)");
    insn.word[0] = placed(kOpcode, mem.opcode) | placed(kPopPrev, mem.deps.popPrev) |
                   placed(kPopNext, mem.deps.popNext) | placed(kPushPrev, mem.deps.pushPrev) |
                   placed(kPushNext, mem.deps.pushNext) | placed(kMemType, mem.memoryType) |
                   placed(kSramBase, mem.sramBase) | placed(kDramBase, mem.dramBase);
    insn.word[1] = placed(kYSize, mem.ySize) | placed(kXSize, mem.xSize) |
                   placed(kXStride, mem.xStride) | placed(kYPad0, mem.yPad0) |
                   placed(kYPad1, mem.yPad1) | placed(kXPad0, mem.xPad0) |
                   placed(kXPad1, mem.xPad1);
    return llvm::Error::success();
  }
  llvm::Expected<Insn> encode(const GemmInsn& gemm) const;
  llvm::Expected<Insn> encode(const AluInsn& alu) const;
  Insn encode(const FinishInsn& finish) const;
  llvm::Expected<uint32_t> encode(const Uop& uop) const;

  MemInsn decodeMem(const Insn& insn) const;
  GemmInsn decodeGemm(const Insn& insn) const;
  AluInsn decodeAlu(const Insn& insn) const;
  Uop decodeUop(uint32_t word) const {
    return {uopDst.get(word), uopSrc.get(word), uopWgt.get(word)};
  }

  // "GEMM reset=0 uop=[0,126) iter_out=8 ..." with every field by name (for diagnostics).
  std::string describe(const Insn& insn) const;

private:
  // `value` shifted to where fixed field `field` lies in its 64-bit word (field.offset / 64).
  static constexpr uint64_t placed(const Field& field, uint64_t value) {
    return value << (field.offset % 64);
  }
  // The error naming the first LOAD/STORE field too wide for its value (the cold path).
  static llvm::Error memFieldError(const MemInsn& mem);

  Field reset, uopBgn, uopEnd, iterOut, iterIn;
  Field gemmDstOut, gemmDstIn, gemmSrcOut, gemmSrcIn, gemmWgtOut, gemmWgtIn;
  Field aluDstOut, aluDstIn, aluSrcOut, aluSrcIn, aluOpcode, useImm, imm;
  Field uopDst, uopSrc, uopWgt;

  llvm::Error setLoops(Insn& insn, const UopLoops& loops, const Field& dstOut,
                       const Field& dstIn, const Field& srcOut, const Field& srcIn) const;
  UopLoops getLoops(const Insn& insn, const Field& dstOut, const Field& dstIn,
                    const Field& srcOut, const Field& srcIn) const;
};

}  // namespace vta::isa

#endif  // VTA_ISA_H_
