// Bad input to the simulator (raw instruction streams through the driver API) and to the
// runtime: each case must be detected and reported — an error status through the API and a
// message naming the instruction index and its fields — never a crash, a hang or a silent
// write out of bounds.
#include <catch2/catch.hpp>
#include <spdlog/fmt/fmt.h>
#include <string>
#include <thread>
#include <vector>

#include "vta/driver.h"
#include "vta/isa.h"
#include "vta_test_support.h"

using namespace vta;
using namespace vta::isa;

namespace {

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// A hand-written instruction stream for the default configuration, run on its own device.
class RawProgram {
public:
  RawProgram() : layout_(llvm::cantFail(Layout::forConfig(Config::tvmDefault()))) {
    VTASimSetConfig(nullptr);
    VTASimClearError();
    device_ = VTADeviceAlloc();
  }
  ~RawProgram() {
    VTADeviceFree(device_);
    for (void* buffer : buffers_) VTAMemFree(buffer);
  }

  const Layout& layout() const { return layout_; }
  void add(const Insn& insn) { insns_.push_back(insn); }
  void replace(size_t index, const Insn& insn) { insns_.at(index) = insn; }
  void add(llvm::Expected<Insn> insn) { insns_.push_back(llvm::cantFail(std::move(insn))); }
  void finish(DepFlags deps = {}) { insns_.push_back(layout_.encode(FinishInsn{deps})); }

  // Device memory holding `words`; returns its physical address.
  vta_phy_addr_t deviceWords(const std::vector<uint32_t>& words, size_t bytes = 0) {
    return VTAMemGetPhyAddr(deviceBuffer(words, bytes));
  }
  // The same, returning the host address of the buffer.
  void* deviceBuffer(const std::vector<uint32_t>& words, size_t bytes = 0) {
    void* buffer = VTAMemAlloc(std::max(bytes, words.size() * 4), VTA_CACHED);
    buffers_.push_back(buffer);
    VTAMemCopyFromHost(buffer, words.data(), words.size() * 4);
    return buffer;
  }
  // LOAD UOP of micro-ops into micro-op SRAM index 0.
  void loadUops(const std::vector<Uop>& uops) {
    std::vector<uint32_t> words;
    for (const Uop& u : uops) words.push_back(llvm::cantFail(layout_.encode(u)));
    MemInsn load;
    load.memoryType = kMemUop;
    load.dramBase = deviceWords(words) / 4;
    load.ySize = 1;
    load.xSize = load.xStride = static_cast<uint32_t>(words.size());
    add(layout_.encode(load));
  }

  // The device memory the program will run from, allocated now so that the program can name it.
  vta_phy_addr_t insnAddress() {
    if (!insnBuffer_) {
      insnBuffer_ = VTAMemAlloc(4096, VTA_CACHED);
      buffers_.push_back(insnBuffer_);
    }
    return VTAMemGetPhyAddr(insnBuffer_);
  }

  int run() {
    const std::vector<uint32_t> words(reinterpret_cast<const uint32_t*>(insns_.data()),
                                      reinterpret_cast<const uint32_t*>(insns_.data() + insns_.size()));
    vta_phy_addr_t phy = 0;
    if (insnBuffer_) {
      VTAMemCopyFromHost(insnBuffer_, words.data(), words.size() * 4);
      phy = VTAMemGetPhyAddr(insnBuffer_);
    } else {
      phy = deviceWords(words);
    }
    return VTADeviceRun(device_, phy, static_cast<uint32_t>(insns_.size()), 1000);
  }

private:
  void* insnBuffer_ = nullptr;
  Layout layout_;
  VTADeviceHandle device_;
  std::vector<Insn> insns_;
  std::vector<void*> buffers_;
};

MemInsn inputLoad(uint32_t dramBase, uint32_t sramBase, uint32_t xSize) {
  MemInsn load;
  load.memoryType = kMemInp;
  load.dramBase = dramBase;
  load.sramBase = sramBase;
  load.ySize = 1;
  load.xSize = load.xStride = xSize;
  return load;
}

void expectError(int status, int expectedStatus, const std::vector<std::string>& fragments) {
  CHECK(status == expectedStatus);
  const std::string message = VTASimLastError();
  CAPTURE(message);
  for (const std::string& fragment : fragments) CHECK(contains(message, fragment));
}

}  // namespace

TEST_CASE("the simulator rejects an unknown opcode", "[vta][bad-input]") {
  RawProgram program;
  MemInsn bogus;
  bogus.opcode = 6;
  program.add(program.layout().encode(bogus));
  program.finish();
  expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION,
              {"instruction 0", "unknown opcode", "opcode 6"});
}

TEST_CASE("the simulator rejects unknown memory types", "[vta][bad-input]") {
  {
    RawProgram program;
    MemInsn load = inputLoad(0, 0, 1);
    load.memoryType = 7;
    program.finish();
    program.add(program.layout().encode(load));
    expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION,
                {"instruction 1", "LOAD of an unknown memory type", "memory_type=7"});
  }
  {
    RawProgram program;
    MemInsn store = inputLoad(0, 0, 1);
    store.opcode = kOpStore;  // a store of the input buffer
    program.add(program.layout().encode(store));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION,
                {"instruction 0", "STORE supports only memory type OUT", "memory_type=2 (INP)"});
  }
}

TEST_CASE("the simulator rejects SRAM indices out of range", "[vta][bad-input]") {
  const Config c = Config::tvmDefault();
  {
    // The micro-op is fine, the loop walks it past the end of the accumulator.
    RawProgram program;
    program.loadUops({{c.accDepth - 10, 0, 0}});
    GemmInsn gemm;
    gemm.loops.uopBgn = 0, gemm.loops.uopEnd = 1;
    gemm.loops.iterOut = 20, gemm.loops.dstFactorOut = 1;
    program.add(program.layout().encode(gemm));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
                {"instruction 1", "accumulator (dst) index 2057", "iter_out=20"});
  }
  {
    RawProgram program;
    program.loadUops({{0, 5, c.wgtDepth - 1}});
    GemmInsn gemm;
    gemm.loops.uopBgn = 0, gemm.loops.uopEnd = 1;
    gemm.loops.iterIn = 2;
    gemm.wgtFactorIn = 1;
    program.add(program.layout().encode(gemm));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE, {"instruction 1", "weight index 1024"});
  }
  {
    RawProgram program;
    AluInsn alu;
    alu.loops.uopBgn = 8000, alu.loops.uopEnd = 8200;
    program.add(program.layout().encode(alu));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
                {"instruction 0", "micro-op range [8000, 8200)", "ALU"});
  }
  {
    RawProgram program;
    MemInsn store;
    store.opcode = kOpStore;
    store.memoryType = kMemOut;
    store.sramBase = c.accDepth - 1;
    store.ySize = 1, store.xSize = store.xStride = 2;
    program.add(program.layout().encode(store));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE, {"instruction 0", "overruns the accumulator"});
  }
}

TEST_CASE("the simulator rejects DRAM addresses outside device memory", "[vta][bad-input]") {
  RawProgram program;
  // One page holds 256 input tiles of 16 bytes; 300 reach past it.
  const vta_phy_addr_t phy = program.deviceWords(std::vector<uint32_t>(1024, 0), 4096);
  program.add(program.layout().encode(inputLoad(phy / 16, 0, 300)));
  program.finish();
  expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
              {"instruction 0", "outside any device buffer", "x_size=300"});
  // Physical address 0 is never mapped.
  RawProgram nullProgram;
  nullProgram.add(nullProgram.layout().encode(inputLoad(0, 0, 1)));
  nullProgram.finish();
  expectError(nullProgram.run(), VTA_SIM_ERR_OUT_OF_RANGE, {"instruction 0", "dram_base=0"});
}

MemInsn outputStore(uint32_t dramBase, uint32_t xSize) {
  MemInsn store;
  store.opcode = kOpStore;
  store.memoryType = kMemOut;
  store.dramBase = dramBase;
  store.ySize = 1;
  store.xSize = store.xStride = xSize;
  return store;
}

TEST_CASE("the simulator rejects a STORE into the program's own instructions or micro-ops",
          "[vta][bad-input]") {
  {
    // The STORE names the device buffer the instructions run from (16-byte output elements).
    RawProgram program;
    program.add(program.layout().encode(outputStore(program.insnAddress() / 16, 1)));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
                {"instruction 0", "STORE writes DRAM bytes", "holds this program's instructions"});
  }
  {
    // ... or the buffer a LOAD UOP reads micro-ops from, even if the STORE comes first.
    RawProgram program;
    const vta_phy_addr_t uops = program.deviceWords(std::vector<uint32_t>(4, 0));
    program.add(program.layout().encode(outputStore(uops / 16 + 1, 1)));
    MemInsn load;
    load.memoryType = kMemUop;
    load.dramBase = uops / 4;
    load.ySize = 1;
    load.xSize = load.xStride = 4;
    program.add(program.layout().encode(load));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
                {"instruction 0", "holds this program's micro-ops"});
  }
  {
    // Any other device buffer may be written.
    RawProgram program;
    const vta_phy_addr_t data = program.deviceWords(std::vector<uint32_t>(4, 0));
    program.add(program.layout().encode(outputStore(data / 16, 1)));
    program.finish();
    CHECK(program.run() == VTA_SIM_OK);
  }
}

TEST_CASE("the simulator rejects a load that overflows the on-chip buffer", "[vta][bad-input]") {
  const Config c = Config::tvmDefault();
  RawProgram program;
  const vta_phy_addr_t phy = program.deviceWords(std::vector<uint32_t>(1024, 0));
  MemInsn load = inputLoad(phy / 16, c.inpDepth - 8, 8);
  load.xPad1 = 1;  // the padding column is the one element too many
  program.add(program.layout().encode(load));
  program.finish();
  expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE,
              {"instruction 0", "overflows the INP buffer of 2048 elements", "x_pad=[0,1]"});
}

TEST_CASE("the simulator reports a deadlock instead of hanging", "[vta][bad-input]") {
  RawProgram program;
  // FINISH pops a load->compute token that no load instruction ever pushes.
  program.add(program.layout().encode(inputLoad(0, 0, 0)));  // a no-op load, no push
  program.finish({/*popPrev=*/true, false, false, false});
  expectError(program.run(), VTA_SIM_ERR_DEADLOCK,
              {"deadlock", "instruction 1", "load->compute token", "FINISH"});
}

namespace {

// A one-tile STORE from accumulator tile `sramBase` to output tile `dramBase`.
MemInsn oneTileStore(uint32_t sramBase, uint32_t dramBase) {
  MemInsn store;
  store.opcode = kOpStore;
  store.memoryType = kMemOut;
  store.sramBase = sramBase;
  store.dramBase = dramBase;
  store.ySize = 1, store.xSize = store.xStride = 1;
  return store;
}

void countLine(const char*, void* lines) { ++*static_cast<int*>(lines); }

}  // namespace

// The simulator executes a run of STOREs that continue each other as one STORE; the run must
// behave exactly as its STOREs one by one.
TEST_CASE("a run of one-tile STOREs behaves as its STOREs one by one", "[vta][bad-input]") {
  const Config c = Config::tvmDefault();
  const uint32_t lanes = c.batch * c.blockOut, tiles = 8;
  std::vector<uint32_t> values(tiles * lanes);
  for (uint32_t i = 0; i < values.size(); ++i) values[i] = i * 0x01010101u + 0x80;
  for (bool traced : {false, true}) {
    CAPTURE(traced);
    RawProgram program;
    MemInsn load;
    load.memoryType = kMemAcc;
    load.dramBase = program.deviceWords(values) / c.accElemBytes;
    load.ySize = 1, load.xSize = load.xStride = tiles;
    load.deps.pushNext = true;
    program.add(program.layout().encode(load));
    // Two one-page output buffers, adjacent in physical memory: the run's DRAM range is
    // contiguous but spans both, so no single device buffer holds the run as a whole.
    int8_t* first = static_cast<int8_t*>(program.deviceBuffer({}, 4096));
    int8_t* second = static_cast<int8_t*>(program.deviceBuffer({}, 4096));
    const vta_phy_addr_t firstPhy = VTAMemGetPhyAddr(first);
    REQUIRE(VTAMemGetPhyAddr(second) == firstPhy + 4096);
    const uint32_t firstTile = (firstPhy + 4096) / c.outElemBytes - tiles / 2;
    for (uint32_t t = 0; t < tiles; ++t) {
      MemInsn store = oneTileStore(t, firstTile + t);
      store.deps.popPrev = t == 0;
      program.add(program.layout().encode(store));
    }
    program.finish();
    int lines = 0;
    VTASimSetTrace(traced ? countLine : nullptr, &lines);
    VTASimClearStats();
    CHECK(program.run() == VTA_SIM_OK);
    VTASimSetTrace(nullptr, nullptr);
    CHECK(lines == (traced ? 2 + int{tiles} : 0));  // one trace line per instruction
    for (uint32_t i = 0; i < tiles * lanes; ++i) {
      const uint32_t half = tiles / 2 * lanes;
      const int8_t stored = i < half ? first[4096 - half + i] : second[i - half];
      REQUIRE(stored == static_cast<int8_t>(values[i]));
    }
    CHECK(test::simStat("out_store_nbytes") == tiles * c.outElemBytes);
  }
  {
    // The last STORE of a run reads past the accumulator: its own index is reported, after the
    // ones before it were executed.
    RawProgram program;
    int8_t* out = static_cast<int8_t*>(program.deviceBuffer({}, 4096));
    const uint32_t outTile = VTAMemGetPhyAddr(out) / c.outElemBytes;
    program.add(program.layout().encode(oneTileStore(c.accDepth - 2, outTile)));
    program.add(program.layout().encode(oneTileStore(c.accDepth - 1, outTile + 1)));
    MemInsn overrun = oneTileStore(c.accDepth, outTile + 2);
    program.add(program.layout().encode(overrun));
    program.finish();
    VTASimClearStats();
    expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE, {"instruction 2", "overruns the accumulator"});
    CHECK(test::simStat("out_store_nbytes") == 2 * c.outElemBytes);
  }
}

// The device keeps the programs it decoded and validated, and reuses one for an equal program.
TEST_CASE("a program that differs from the last one by one instruction is checked again",
          "[vta][bad-input]") {
  RawProgram program;
  const vta_phy_addr_t phy = program.deviceWords(std::vector<uint32_t>(1024, 0));
  program.add(program.layout().encode(inputLoad(phy / 16, 0, 4)));
  program.finish();
  CHECK(program.run() == VTA_SIM_OK);
  CHECK(program.run() == VTA_SIM_OK);
  MemInsn bogus;
  bogus.opcode = 6;
  program.replace(1, llvm::cantFail(program.layout().encode(bogus)));
  expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"instruction 1", "unknown opcode"});
  program.replace(1, program.layout().encode(FinishInsn{}));
  CHECK(program.run() == VTA_SIM_OK);
  program.replace(0, llvm::cantFail(program.layout().encode(inputLoad(phy / 16, 0, 300))));
  expectError(program.run(), VTA_SIM_ERR_OUT_OF_RANGE, {"instruction 0", "x_size=300"});
}

TEST_CASE("the device keeps several validated programs and validates a changed one again",
          "[vta][bad-input]") {
  RawProgram program;
  const vta_phy_addr_t phy = program.deviceWords(std::vector<uint32_t>(1024, 0));
  const Insn first = llvm::cantFail(program.layout().encode(inputLoad(phy / 16, 0, 4)));
  const Insn second = llvm::cantFail(program.layout().encode(inputLoad(phy / 16, 0, 8)));
  program.add(first);
  program.finish();
  const uint64_t before = VTASimProgramValidations();
  CHECK(program.run() == VTA_SIM_OK);
  program.replace(0, second);
  CHECK(program.run() == VTA_SIM_OK);
  CHECK(VTASimProgramValidations() == before + 2);
  // Both are kept: running them again, in turn, validates nothing (each run copies the program
  // to new device memory: the key is the instructions, not their address).
  for (int round = 0; round < 2; ++round) {
    program.replace(0, first);
    CHECK(program.run() == VTA_SIM_OK);
    program.replace(0, second);
    CHECK(program.run() == VTA_SIM_OK);
  }
  CHECK(VTASimProgramValidations() == before + 2);
  // One changed instruction makes another program, validated (and rejected) again each time.
  MemInsn bogus;
  bogus.opcode = 6;
  program.replace(1, llvm::cantFail(program.layout().encode(bogus)));
  expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"instruction 1", "unknown opcode"});
  expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"instruction 1", "unknown opcode"});
  CHECK(VTASimProgramValidations() == before + 4);
  program.replace(1, program.layout().encode(FinishInsn{}));
  CHECK(program.run() == VTA_SIM_OK);
  CHECK(VTASimProgramValidations() == before + 4);
}

TEST_CASE("the simulator reports dependency tokens left over at the end of a run",
          "[vta][bad-input]") {
  RawProgram program;
  // A load pushes a load->compute token that nothing pops.
  MemInsn load = inputLoad(0, 0, 0);
  load.deps.pushNext = true;
  program.add(program.layout().encode(load));
  program.finish();
  expectError(program.run(), VTA_SIM_ERR_UNBALANCED,
              {"unbalanced dependency tokens", "1 load->compute token(s) pushed and never popped"});
  // The same token popped by FINISH is balanced.
  RawProgram balanced;
  balanced.add(balanced.layout().encode(load));
  balanced.finish({/*popPrev=*/true, false, false, false});
  CHECK(balanced.run() == VTA_SIM_OK);
}

TEST_CASE("the simulator rejects malformed programs and handles", "[vta][bad-input]") {
  {
    RawProgram program;  // no FINISH
    program.add(program.layout().encode(inputLoad(0, 0, 0)));
    expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"without FINISH"});
  }
  {
    RawProgram program;  // no instruction at all (found by vta_insn_fuzzer under UBSan)
    program.insnAddress();
    expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"the 0 instructions end without FINISH"});
  }
  {
    RawProgram program;  // a load-queue instruction cannot pop from a previous stage
    MemInsn load = inputLoad(0, 0, 0);
    load.deps.popPrev = true;
    program.add(program.layout().encode(load));
    program.finish();
    expectError(program.run(), VTA_SIM_ERR_BAD_INSTRUCTION, {"instruction 0", "no previous stage"});
  }
  VTASimClearError();
  CHECK(VTADeviceRun(reinterpret_cast<VTADeviceHandle>(0x1234), 4096, 1, 0) == VTA_SIM_ERR_BAD_ARGUMENT);
  CHECK(contains(VTASimLastError(), "not a live device"));
  VTADeviceHandle device = VTADeviceAlloc();
  CHECK(VTADeviceRun(device, 0, 4, 0) == VTA_SIM_ERR_OUT_OF_RANGE);
  VTADeviceFree(device);
}

TEST_CASE("the simulator reports device memory freed twice", "[vta][bad-input]") {
  VTASimClearError();
  void* buffer = VTAMemAlloc(100, VTA_CACHED);
  VTAMemFree(buffer);
  CHECK(std::string(VTASimLastError()).empty());
  VTAMemFree(buffer);
  CHECK(contains(VTASimLastError(), "freed twice"));
}

namespace {

// The closure cannot carry the count: TVM's runtime takes only keys below 99.
uint32_t oversizedKernelUops = 0;

int oversizedKernel(void*) {
  for (uint32_t i = 0; i < oversizedKernelUops; ++i) VTAUopPush(0, 0, i % 2048, 0, 0, 0, 0, 0);
  return 0;
}

int oneUopKernel(void*) {
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  return 0;
}

int threeLoopKernel(void*) {
  for (int loop = 0; loop < 3; ++loop) VTAUopLoopBegin(2, 1, 0, 0);
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  for (int loop = 0; loop < 3; ++loop) VTAUopLoopEnd();
  return 0;
}

}  // namespace

TEST_CASE("the runtime rejects a micro-kernel larger than the micro-op SRAM", "[vta][bad-input]") {
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  static void* handle = nullptr;
  oversizedKernelUops = guard.config().uopDepth + 1;
  CHECK(VTAPushGEMMOp(&handle, oversizedKernel, nullptr, 0) == -1);
  CHECK(contains(VTARuntimeLastError(), "micro-kernel of 8193 micro-ops does not fit the micro-op SRAM of 8192"));
  // The program with the failed command is discarded, not run.
  VTASynchronize(VTATLSCommandHandle(), 1000);
  CHECK(contains(VTARuntimeLastError(), "not run"));
  // A kernel that fits exactly is accepted.
  VTARuntimeClearError();
  oversizedKernelUops = guard.config().uopDepth;
  CHECK(VTAPushGEMMOp(&handle, oversizedKernel, nullptr, 0) == 0);
  VTASynchronize(VTATLSCommandHandle(), 1000);
  CHECK(VTARuntimeErrorCount() == 0);
  CHECK(test::simStat("uop_load_nbytes") == 4 * guard.config().uopDepth);
}

TEST_CASE("the runtime takes the micro-kernel closures TVM's runtime takes", "[vta][bad-input]") {
  // TVM's UopKernelMap::Get: no closure or one int, whose value + 1 is below 100.
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  static void* handle = nullptr;
  int64_t wide = 1;
  CHECK(VTAPushGEMMOp(&handle, oneUopKernel, &wide, sizeof wide) == -1);
  CHECK(contains(VTARuntimeLastError(), "VTAPushGEMMOp: a micro-kernel closure of 8 bytes; TVM's runtime takes at most one int"));
  for (int key : {-1, 99, 784}) {
    CHECK(VTAPushALUOp(&handle, oneUopKernel, &key, sizeof key) == -1);
    CHECK(contains(VTARuntimeLastError(), "VTAPushALUOp: a micro-kernel closure of value " + std::to_string(key) +
                                              "; TVM's runtime takes 0 to 98"));
  }
  VTASynchronize(VTATLSCommandHandle(), 1000);
  VTARuntimeClearError();
  for (int key : {0, 98}) CHECK(VTAPushGEMMOp(&handle, oneUopKernel, &key, sizeof key) == 0);
  CHECK(VTAPushGEMMOp(&handle, oneUopKernel, nullptr, 0) == 0);
  VTASynchronize(VTATLSCommandHandle(), 1000);
  CHECK(VTARuntimeErrorCount() == 0);
}

TEST_CASE("the runtime checks each transfer against its buffer and memory type", "[vta][bad-input]") {
  // The runtime remembers its last buffer lookup: the element size of another memory type
  // and a released buffer must still be seen.
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  VTACommandHandle cmd = VTATLSCommandHandle();
  const uint32_t inpTiles = 4096 / guard.config().inpElemBytes;
  void* buffer = VTABufferAlloc(4096);
  VTALoadBuffer2D(cmd, buffer, 0, inpTiles, 1, inpTiles, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(VTARuntimeErrorCount() == 0);
  VTALoadBuffer2D(cmd, buffer, 0, inpTiles, 1, inpTiles, 0, 0, 0, 0, 0, test::kMemAcc);
  CHECK(contains(VTARuntimeLastError(), "ACC elements [0, 256) (y_size 1, x_size 256, x_stride 256; 64 bytes each) are outside buffer"));
  VTARuntimeClearError();
  VTALoadBuffer2D(cmd, buffer, 0, inpTiles, 1, inpTiles, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(VTARuntimeErrorCount() == 0);
  VTABufferFree(buffer);
  VTALoadBuffer2D(cmd, buffer, 0, 1, 1, 1, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(contains(VTARuntimeLastError(), "not a live buffer handle"));
  VTASynchronize(cmd, 1000);
  CHECK(contains(VTARuntimeLastError(), "not run"));
  VTARuntimeClearError();
}

TEST_CASE("the runtime reports malformed commands and keeps working", "[vta][bad-input]") {
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  VTACommandHandle cmd = VTATLSCommandHandle();
  test::DeviceBuffer buffer(4096);

  VTALoadBuffer2D(cmd, buffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, 7);
  CHECK(contains(VTARuntimeLastError(), "unknown memory type 7"));
  VTALoadBuffer2D(cmd, reinterpret_cast<void*>(0x42), 0, 1, 1, 1, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(contains(VTARuntimeLastError(), "not a live buffer handle"));
  test::DeviceBuffer large(70000 * guard.config().inpElemBytes);  // the rows fit the buffer
  VTALoadBuffer2D(cmd, large.handle(), 0, 70000, 1, 1, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(contains(VTARuntimeLastError(), "x_size = 70000 does not fit its 16-bit encoding"));
  CHECK(VTADepPush(cmd, 1, 3) == -1);
  CHECK(contains(VTARuntimeLastError(), "no dependency queue from 1 to 3"));
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  CHECK(contains(VTARuntimeLastError(), "outside a micro-kernel closure"));
  static void* handle = nullptr;
  CHECK(VTAPushGEMMOp(&handle, threeLoopKernel, nullptr, 0) == -1);
  CHECK(contains(VTARuntimeLastError(), "at most two loops"));
  CHECK(VTAPushALUOp(nullptr, threeLoopKernel, nullptr, 0) == -1);
  VTASynchronize(cmd, 1000);
  CHECK(contains(VTARuntimeLastError(), "not run"));

  // The next program runs normally.
  VTARuntimeClearError();
  std::vector<int32_t> values(16 * guard.config().batch * guard.config().blockOut, 3);
  buffer.upload(values);
  VTALoadBuffer2D(cmd, buffer.handle(), 0, 16, 1, 16, 0, 0, 0, 0, 0, test::kMemAcc);
  REQUIRE(test::pushAlu({16, 0, 0, test::kAluAdd, 1, 4}) == 0);
  VTADepPush(cmd, test::kComputeQueue, test::kStoreQueue);
  VTADepPop(cmd, test::kComputeQueue, test::kStoreQueue);
  VTAStoreBuffer2D(cmd, 0, test::kMemOut, buffer.handle(), 0, 16, 1, 16);
  VTASynchronize(cmd, 1000);
  CHECK(VTARuntimeErrorCount() == 0);
  CHECK(buffer.download<int8_t>()[0] == 7);
}

TEST_CASE("the runtime rejects loads and stores past the end of their buffer", "[vta][bad-input]") {
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  VTACommandHandle cmd = VTATLSCommandHandle();
  const Config& c = guard.config();
  // Three input tiles; the device rounds the buffer up to a page, so without the runtime's
  // check these reads and writes would go unnoticed.
  test::DeviceBuffer buffer(3 * c.inpElemBytes);
  VTALoadBuffer2D(cmd, buffer.handle(), 1, 3, 1, 3, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(contains(VTARuntimeLastError(), "VTALoadBuffer2D: INP elements [1, 4)"));
  CHECK(contains(VTARuntimeLastError(), fmt::format("of {} bytes (3 elements)", 3 * c.inpElemBytes)));
  // Two rows of 2 elements 2 apart end at element 4 of 3.
  VTALoadBuffer2D(cmd, buffer.handle(), 0, 2, 2, 2, 0, 0, 0, 0, 0, test::kMemInp);
  CHECK(contains(VTARuntimeLastError(), "INP elements [0, 4) (y_size 2, x_size 2, x_stride 2"));
  VTAStoreBuffer2D(cmd, 0, test::kMemOut, buffer.handle(), 3 * c.inpElemBytes / c.outElemBytes, 1, 1, 1);
  CHECK(contains(VTARuntimeLastError(), "VTAStoreBuffer2D: OUT elements"));
  CHECK(VTARuntimeErrorCount() == 3);
  VTASynchronize(cmd, 1000);
  CHECK(contains(VTARuntimeLastError(), "not run"));

  // Exactly the buffer is fine, and so are empty transfers at its end.
  VTARuntimeClearError();
  VTALoadBuffer2D(cmd, buffer.handle(), 0, 3, 1, 3, 0, 0, 0, 0, 0, test::kMemInp);
  VTALoadBuffer2D(cmd, buffer.handle(), 3, 0, 1, 0, 0, 0, 0, 0, 0, test::kMemInp);
  VTASynchronize(cmd, 1000);
  CHECK(VTARuntimeErrorCount() == 0);
}

TEST_CASE("the runtime reports barriers outside their buffer", "[vta][bad-input]") {
  // A barrier's range was not checked against its buffer (a real device would flush or
  // invalidate another allocation's cache lines); fuzz/VtaRuntimeApiFuzzer checks it too.
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  test::DeviceBuffer buffer(64);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTAReadBarrier(cmd, buffer.handle(), 32, 0, 16);
  VTAWriteBarrier(cmd, buffer.handle(), 8, 60, 4);
  CHECK(VTARuntimeErrorCount() == 0);
  VTAReadBarrier(cmd, buffer.handle(), 32, 1, 16);
  CHECK(VTARuntimeErrorCount() == 1);
  CHECK(contains(VTARuntimeLastError(), "VTAReadBarrier: elements [1, 17) of 32 bits are outside buffer"));
  VTAWriteBarrier(cmd, buffer.handle(), 8, 0xffffffffu, 0xffffffffu);
  CHECK(VTARuntimeErrorCount() == 2);
  CHECK(contains(VTARuntimeLastError(), "VTAWriteBarrier: elements [4294967295, 8589934590) of 8 bits"));
}

TEST_CASE("the runtime reports commands that never ran at shutdown", "[vta][bad-input]") {
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  test::DeviceBuffer buffer(4096);
  VTALoadBuffer2D(VTATLSCommandHandle(), buffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, test::kMemInp);
  VTARuntimeShutdown();
  CHECK(VTARuntimeErrorCount() == 1);
  CHECK(contains(VTARuntimeLastError(), "VTARuntimeShutdown: VTA commands queued after the last "
                                        "VTASynchronize never ran (1 instructions"));
  // A pending dependency pop is a queued command too.
  VTARuntimeClearError();
  VTADepPop(VTATLSCommandHandle(), test::kComputeQueue, test::kStoreQueue);
  VTARuntimeShutdown();
  CHECK(contains(VTARuntimeLastError(), "never ran (0 instructions"));
  // After a synchronisation nothing is left.
  VTARuntimeClearError();
  VTALoadBuffer2D(VTATLSCommandHandle(), buffer.handle(), 0, 1, 1, 1, 0, 0, 0, 0, 0, test::kMemInp);
  VTASynchronize(VTATLSCommandHandle(), 1000);
  VTARuntimeShutdown();
  CHECK(VTARuntimeErrorCount() == 0);
}

TEST_CASE("the runtime accepts only the calling thread's current command handle",
          "[vta][bad-input]") {
  // Commands check their handle against the thread's queue (a plain thread_local mirror of
  // the owning pointer): another thread's handle, and a handle the thread gave up with
  // VTARuntimeShutdown, are rejected.
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  VTACommandHandle mine = VTATLSCommandHandle();
  REQUIRE(mine != nullptr);
  int otherStatus = 0, otherErrors = 0;
  std::string otherError;
  std::thread other([&] {
    otherStatus = VTADepPush(mine, test::kComputeQueue, test::kStoreQueue);
    otherErrors = VTARuntimeErrorCount();
    otherError = VTARuntimeLastError();
    VTARuntimeShutdown();  // the other thread's own queue was never created: nothing to report
  });
  other.join();
  CHECK(otherStatus == -1);
  CHECK(otherErrors == 1);
  CHECK(contains(otherError, "VTADepPush: "));
  CHECK(contains(otherError, " is not this thread's command handle"));
  CHECK(VTARuntimeErrorCount() == 0);
  CHECK(VTADepPush(mine, test::kComputeQueue, test::kStoreQueue) == 0);
  CHECK(VTADepPop(mine, test::kComputeQueue, test::kStoreQueue) == 0);
  VTASynchronize(mine, 1000);
  CHECK(VTARuntimeErrorCount() == 0);

  VTARuntimeShutdown();
  VTAStoreBuffer2D(mine, 0, test::kMemOut, nullptr, 0, 1, 1, 1);
  CHECK(VTARuntimeErrorCount() == 1);
  CHECK(contains(VTARuntimeLastError(), "VTAStoreBuffer2D: "));
  CHECK(contains(VTARuntimeLastError(), " is not this thread's command handle"));
  VTARuntimeClearError();
  CHECK(VTATLSCommandHandle() != nullptr);  // a new queue on demand
}

TEST_CASE("the runtime reports device failures and buffers freed twice", "[vta][bad-input]") {
  test::ConfigGuard guard(R"({"TARGET": "sim"})");
  VTACommandHandle cmd = VTATLSCommandHandle();
  {
    // Popping a token nobody pushes: the device reports a deadlock, VTASynchronize a failure.
    test::DeviceBuffer buffer(4096);
    VTADepPop(cmd, test::kLoadQueue, test::kComputeQueue);
    REQUIRE(test::pushAlu({1, 0, 0, test::kAluAdd, 1, 1}) == 0);
    VTASynchronize(cmd, 1000);
    CHECK(contains(VTARuntimeLastError(), "the device failed"));
    CHECK(contains(VTASimLastError(), "deadlock"));
  }
  {
    // An SRAM overflow found by the device, reported through both libraries.
    test::DeviceBuffer buffer(1 << 16);
    VTALoadBuffer2D(cmd, buffer.handle(), 0, 16, 1, 16, 0, 0, 0, 0,
                    guard.config().inpDepth - 8, test::kMemInp);
    VTASynchronize(cmd, 1000);
    CHECK(contains(VTARuntimeLastError(), "the device failed"));
    CHECK(contains(VTASimLastError(), "overflows the INP buffer"));
  }
  VTARuntimeClearError();
  void* buffer = VTABufferAlloc(64);
  VTABufferFree(buffer);
  CHECK(VTARuntimeErrorCount() == 0);
  VTABufferFree(buffer);
  CHECK(VTARuntimeErrorCount() == 1);
  CHECK(contains(VTARuntimeLastError(), "freed twice"));
}
