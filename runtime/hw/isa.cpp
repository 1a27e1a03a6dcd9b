// Layout of VTA instructions and micro-ops for a configuration, and their encode/decode.
#include "vta/isa.h"

#include <algorithm>
#include <iterator>

#include <spdlog/fmt/fmt.h>

namespace vta::isa {

const char* opcodeName(uint32_t opcode) {
  switch (opcode) {
    case kOpLoad: return "LOAD";
    case kOpStore: return "STORE";
    case kOpGemm: return "GEMM";
    case kOpFinish: return "FINISH";
    case kOpAlu: return "ALU";
    default: return "UNKNOWN";
  }
}

const char* memoryTypeName(uint32_t memoryType) {
  switch (memoryType) {
    case kMemUop: return "UOP";
    case kMemWgt: return "WGT";
    case kMemInp: return "INP";
    case kMemAcc: return "ACC";
    case kMemOut: return "OUT";
    case kMemAcc8Bit: return "ACC_8BIT";
    default: return "UNKNOWN";
  }
}

const char* aluOpcodeName(uint32_t aluOpcode) {
  switch (aluOpcode) {
    case kAluMin: return "MIN";
    case kAluMax: return "MAX";
    case kAluAdd: return "ADD";
    case kAluShr: return "SHR";
    case kAluMul: return "MUL";
    default: return "UNKNOWN";
  }
}

namespace {

// Allocates consecutive bit-fields the way a SysV C compiler lays out bit-fields of a declared
// type of `unitBits` bits: a field that would cross a unit boundary starts the next unit.
class FieldAllocator {
public:
  constexpr FieldAllocator(uint32_t unitBits, uint32_t totalBits)
      : unitBits_(unitBits), totalBits_(totalBits) {}

  constexpr Field next(uint32_t width, bool isSigned = false) {
    if (next_ % unitBits_ + width > unitBits_) next_ = (next_ / unitBits_ + 1) * unitBits_;
    Field field{next_, width, isSigned};
    next_ += width;
    return field;
  }
  // Continue from `start` (instruction kinds share the opcode and dependency flags).
  constexpr void restart(uint32_t start) { next_ = start; }
  constexpr bool overflowed() const { return next_ > totalBits_; }
  constexpr uint32_t used() const { return next_; }

private:
  uint32_t unitBits_, totalBits_;
  uint32_t next_ = 0;
};

constexpr uint32_t kOpcodeBits = 3;
constexpr uint32_t kMemTypeBits = 3;
constexpr uint32_t kSramAddrBits = 16;
constexpr uint32_t kDramAddrBits = 32;
constexpr uint32_t kSizeBits = 16;
constexpr uint32_t kStrideBits = 16;
constexpr uint32_t kPadBits = 4;
constexpr uint32_t kLoopIterBits = 14;
constexpr uint32_t kAluOpcodeBits = 3;

llvm::Error fieldError(const char* name, int64_t value, const Field& field) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      fmt::format("instruction field {0} = {1} does not fit its {2}-bit encoding", name, value,
                    field.width));
}

// Allocates the fields of fixed width (opcode, dependency flags, LOAD/STORE fields) into
// `insn`, which is left after the dependency flags.
constexpr Field kFixedFields[] = {Layout::kOpcode, Layout::kPopPrev, Layout::kPopNext,
                                  Layout::kPushPrev, Layout::kPushNext, Layout::kMemType,
                                  Layout::kSramBase, Layout::kDramBase, Layout::kYSize,
                                  Layout::kXSize, Layout::kXStride, Layout::kYPad0,
                                  Layout::kYPad1, Layout::kXPad0, Layout::kXPad1};
constexpr uint32_t kFixedWidths[] = {kOpcodeBits, 1, 1, 1, 1, kMemTypeBits, kSramAddrBits,
                                     kDramAddrBits, kSizeBits, kSizeBits, kStrideBits,
                                     kPadBits, kPadBits, kPadBits, kPadBits};
constexpr bool fixedFieldsFollowTheAllocationRule() {
  FieldAllocator insn(64, 128);
  for (size_t i = 0; i < std::size(kFixedFields); ++i)
    if (!(insn.next(kFixedWidths[i]) == kFixedFields[i])) return false;
  return !insn.overflowed();
}
static_assert(fixedFieldsFollowTheAllocationRule(),
              "Layout's fixed fields must be where hw_spec.h's bit-fields put them");
constexpr uint32_t kAfterDeps = Layout::kPushNext.offset + 1;

// An unsigned field and the value to encode in it.
struct FieldValue {
  const Field* field;
  const char* name;
  uint64_t value;
};

// ORs unsigned values into their (zero) fields of `insn`; one overflow test for all of them,
// since the encoder runs for every instruction. The error names the first value that does
// not fit.
template <size_t N>
llvm::Error firstOverflow(const FieldValue (&fields)[N]) {
  for (const FieldValue& f : fields)
    if (f.value >> f.field->width) return fieldError(f.name, static_cast<int64_t>(f.value), *f.field);
  return llvm::Error::success();
}

template <size_t N>
llvm::Error packFields(Insn& insn, const FieldValue (&fields)[N]) {
  uint64_t overflow = 0;
  for (const FieldValue& f : fields) {
    overflow |= f.value >> f.field->width;
    insn.word[f.field->offset / 64] |= f.value << (f.field->offset % 64);
  }
  return overflow ? firstOverflow(fields) : llvm::Error::success();
}

}  // namespace

llvm::Error Layout::memFieldError(const MemInsn& mem) {
  const FieldValue fields[] = {
      {&Layout::kOpcode, "opcode", mem.opcode},       {&Layout::kMemType, "memory_type", mem.memoryType},
      {&Layout::kSramBase, "sram_base", mem.sramBase}, {&Layout::kDramBase, "dram_base", mem.dramBase},
      {&Layout::kYSize, "y_size", mem.ySize},          {&Layout::kXSize, "x_size", mem.xSize},
      {&Layout::kXStride, "x_stride", mem.xStride},    {&Layout::kYPad0, "y_pad_0", mem.yPad0},
      {&Layout::kYPad1, "y_pad_1", mem.yPad1},         {&Layout::kXPad0, "x_pad_0", mem.xPad0},
      {&Layout::kXPad1, "x_pad_1", mem.xPad1}};
  return firstOverflow(fields);
}

llvm::Expected<Layout> Layout::forConfig(const Config& config) {
  Layout layout;
  FieldAllocator insn(64, 128);
  bool overflow = false;
  insn.restart(kAfterDeps);
  layout.reset = insn.next(1);
  layout.uopBgn = insn.next(config.logUopDepth);
  layout.uopEnd = insn.next(config.logUopDepth + 1);
  layout.iterOut = insn.next(kLoopIterBits);
  layout.iterIn = insn.next(kLoopIterBits);
  const uint32_t afterLoops = insn.used();
  layout.gemmDstOut = insn.next(config.logAccDepth);
  layout.gemmDstIn = insn.next(config.logAccDepth);
  layout.gemmSrcOut = insn.next(config.logInpDepth);
  layout.gemmSrcIn = insn.next(config.logInpDepth);
  layout.gemmWgtOut = insn.next(config.logWgtDepth);
  layout.gemmWgtIn = insn.next(config.logWgtDepth);
  overflow |= insn.overflowed();

  insn.restart(afterLoops);
  layout.aluDstOut = insn.next(config.logAccDepth);
  layout.aluDstIn = insn.next(config.logAccDepth);
  layout.aluSrcOut = insn.next(config.logAccDepth);
  layout.aluSrcIn = insn.next(config.logAccDepth);
  layout.aluOpcode = insn.next(kAluOpcodeBits);
  layout.useImm = insn.next(1);
  layout.imm = insn.next(kAluImmBits, /*isSigned=*/true);
  overflow |= insn.overflowed();
  if (overflow)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "vta_config: instruction fields exceed 128 bits");

  FieldAllocator uop(32, 32);
  layout.uopDst = uop.next(config.logAccDepth);
  layout.uopSrc = uop.next(std::max(config.logAccDepth, config.logInpDepth));
  layout.uopWgt = uop.next(config.logWgtDepth);
  if (uop.overflowed())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "vta_config: micro-op fields exceed 32 bits");
  return layout;
}

void Layout::setDeps(Insn& insn, const DepFlags& deps) const {
  kPopPrev.set(insn, deps.popPrev);
  kPopNext.set(insn, deps.popNext);
  kPushPrev.set(insn, deps.pushPrev);
  kPushNext.set(insn, deps.pushNext);
}

llvm::Error Layout::setLoops(Insn& insn, const UopLoops& loops, const Field& dstOut,
                             const Field& dstIn, const Field& srcOut, const Field& srcIn) const {
  const FieldValue fields[] = {{&reset, "reset_reg", loops.reset},
                               {&uopBgn, "uop_bgn", loops.uopBgn},
                               {&uopEnd, "uop_end", loops.uopEnd},
                               {&iterOut, "iter_out", loops.iterOut},
                               {&iterIn, "iter_in", loops.iterIn},
                               {&dstOut, "dst_factor_out", loops.dstFactorOut},
                               {&dstIn, "dst_factor_in", loops.dstFactorIn},
                               {&srcOut, "src_factor_out", loops.srcFactorOut},
                               {&srcIn, "src_factor_in", loops.srcFactorIn}};
  return packFields(insn, fields);
}

UopLoops Layout::getLoops(const Insn& insn, const Field& dstOut, const Field& dstIn,
                          const Field& srcOut, const Field& srcIn) const {
  UopLoops loops;
  loops.reset = reset.get(insn) != 0;
  loops.uopBgn = static_cast<uint32_t>(uopBgn.get(insn));
  loops.uopEnd = static_cast<uint32_t>(uopEnd.get(insn));
  loops.iterOut = static_cast<uint32_t>(iterOut.get(insn));
  loops.iterIn = static_cast<uint32_t>(iterIn.get(insn));
  loops.dstFactorOut = static_cast<uint32_t>(dstOut.get(insn));
  loops.dstFactorIn = static_cast<uint32_t>(dstIn.get(insn));
  loops.srcFactorOut = static_cast<uint32_t>(srcOut.get(insn));
  loops.srcFactorIn = static_cast<uint32_t>(srcIn.get(insn));
  return loops;
}

llvm::Expected<Insn> Layout::encode(const GemmInsn& gemm) const {
  Insn insn;
  kOpcode.set(insn, kOpGemm);
  setDeps(insn, gemm.deps);
  if (llvm::Error error = setLoops(insn, gemm.loops, gemmDstOut, gemmDstIn, gemmSrcOut, gemmSrcIn))
    return error;
  const FieldValue weightFactors[] = {{&gemmWgtOut, "wgt_factor_out", gemm.wgtFactorOut},
                                      {&gemmWgtIn, "wgt_factor_in", gemm.wgtFactorIn}};
  if (llvm::Error error = packFields(insn, weightFactors)) return error;
  return insn;
}

llvm::Expected<Insn> Layout::encode(const AluInsn& alu) const {
  Insn insn;
  kOpcode.set(insn, kOpAlu);
  setDeps(insn, alu.deps);
  if (llvm::Error error = setLoops(insn, alu.loops, aluDstOut, aluDstIn, aluSrcOut, aluSrcIn))
    return error;
  const FieldValue operation[] = {{&aluOpcode, "alu_opcode", alu.aluOpcode},
                                  {&useImm, "use_imm", alu.useImm}};
  if (llvm::Error error = packFields(insn, operation)) return error;
  if (!imm.fits(alu.imm)) return fieldError("imm", alu.imm, imm);
  imm.set(insn, static_cast<uint64_t>(static_cast<int64_t>(alu.imm)));
  return insn;
}

Insn Layout::encode(const FinishInsn& finish) const {
  Insn insn;
  kOpcode.set(insn, kOpFinish);
  setDeps(insn, finish.deps);
  return insn;
}

llvm::Expected<uint32_t> Layout::encode(const Uop& uop) const {
  uint32_t word = 0;
  const std::pair<const char*, std::pair<const Field*, uint32_t>> fields[] = {
      {"dst_idx", {&uopDst, uop.dst}}, {"src_idx", {&uopSrc, uop.src}}, {"wgt_idx", {&uopWgt, uop.wgt}}};
  for (const auto& [name, fieldValue] : fields) {
    const auto& [field, value] = fieldValue;
    if (!field->fits(value))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          fmt::format("micro-op field {0} = {1} does not fit its {2}-bit encoding", name,
                        value, field->width));
    field->set(word, value);
  }
  return word;
}

MemInsn Layout::decodeMem(const Insn& insn) const {
  MemInsn mem;
  mem.opcode = opcodeOf(insn);
  mem.deps = depsOf(insn);
  mem.memoryType = static_cast<uint32_t>(kMemType.get(insn));
  mem.sramBase = static_cast<uint32_t>(kSramBase.get(insn));
  mem.dramBase = static_cast<uint32_t>(kDramBase.get(insn));
  mem.ySize = static_cast<uint32_t>(kYSize.get(insn));
  mem.xSize = static_cast<uint32_t>(kXSize.get(insn));
  mem.xStride = static_cast<uint32_t>(kXStride.get(insn));
  mem.yPad0 = static_cast<uint32_t>(kYPad0.get(insn));
  mem.yPad1 = static_cast<uint32_t>(kYPad1.get(insn));
  mem.xPad0 = static_cast<uint32_t>(kXPad0.get(insn));
  mem.xPad1 = static_cast<uint32_t>(kXPad1.get(insn));
  return mem;
}

GemmInsn Layout::decodeGemm(const Insn& insn) const {
  GemmInsn gemm;
  gemm.deps = depsOf(insn);
  gemm.loops = getLoops(insn, gemmDstOut, gemmDstIn, gemmSrcOut, gemmSrcIn);
  gemm.wgtFactorOut = static_cast<uint32_t>(gemmWgtOut.get(insn));
  gemm.wgtFactorIn = static_cast<uint32_t>(gemmWgtIn.get(insn));
  return gemm;
}

AluInsn Layout::decodeAlu(const Insn& insn) const {
  AluInsn alu;
  alu.deps = depsOf(insn);
  alu.loops = getLoops(insn, aluDstOut, aluDstIn, aluSrcOut, aluSrcIn);
  alu.aluOpcode = static_cast<uint32_t>(aluOpcode.get(insn));
  alu.useImm = useImm.get(insn) != 0;
  alu.imm = static_cast<int32_t>(imm.getSigned(insn));
  return alu;
}

std::string Layout::describe(const Insn& insn) const {
  const uint32_t op = opcodeOf(insn);
  const DepFlags deps = depsOf(insn);
  std::string text = fmt::format("{0} (opcode {1}) pop_prev={2} pop_next={3} push_prev={4} push_next={5}",
                                   opcodeName(op), op, deps.popPrev, deps.popNext,
                                   deps.pushPrev, deps.pushNext);
  auto loopsText = [](const UopLoops& l) {
    return fmt::format(" reset={0} uop_bgn={1} uop_end={2} iter_out={3} iter_in={4} "
                         "dst_factor_out={5} dst_factor_in={6} src_factor_out={7} src_factor_in={8}",
                         l.reset, l.uopBgn, l.uopEnd, l.iterOut, l.iterIn, l.dstFactorOut,
                         l.dstFactorIn, l.srcFactorOut, l.srcFactorIn);
  };
  if (op == kOpLoad || op == kOpStore) {
    MemInsn m = decodeMem(insn);
    text += fmt::format(" memory_type={0} ({1}) sram_base={2} dram_base={3} y_size={4} "
                          "x_size={5} x_stride={6} y_pad=[{7},{8}] x_pad=[{9},{10}]",
                          m.memoryType, memoryTypeName(m.memoryType), m.sramBase, m.dramBase,
                          m.ySize, m.xSize, m.xStride, m.yPad0, m.yPad1, m.xPad0, m.xPad1);
  } else if (op == kOpGemm) {
    GemmInsn g = decodeGemm(insn);
    text += loopsText(g.loops) +
            fmt::format(" wgt_factor_out={0} wgt_factor_in={1}", g.wgtFactorOut, g.wgtFactorIn);
  } else if (op == kOpAlu) {
    AluInsn a = decodeAlu(insn);
    text += loopsText(a.loops) + fmt::format(" alu_opcode={0} ({1}) use_imm={2} imm={3}",
                                               a.aluOpcode, aluOpcodeName(a.aluOpcode),
                                               a.useImm, a.imm);
  }
  return text;
}

}  // namespace vta::isa
