// The dependency flags the runtime attaches to instructions, case by case, as TVM's runtime
// sets them: pops wait for the next instruction of the popping stage, pushes merge into the
// last instruction when it belongs to the pushing stage, and otherwise travel on no-ops.
#include <catch2/catch.hpp>

#include "instruction_queue.h"

using namespace vta;
using namespace vta::isa;
using namespace vta::runtime;

namespace {

struct QueueFixture {
  Layout layout = llvm::cantFail(Layout::forConfig(Config::tvmDefault()));
  InstructionQueue queue{layout};

  void load(uint32_t memoryType) {
    MemInsn mem;
    mem.deps = queue.takePendingPops(stageOfLoad(memoryType));
    mem.memoryType = memoryType;
    mem.ySize = mem.xSize = mem.xStride = 1;
    queue.append(llvm::cantFail(layout.encode(mem)));
  }
  void gemm() {
    GemmInsn gemm;
    gemm.deps = queue.takePendingPops(kComputeStage);
    queue.append(llvm::cantFail(layout.encode(gemm)));
  }
  void store() {
    MemInsn mem;
    mem.opcode = kOpStore;
    mem.deps = queue.takePendingPops(kStoreStage);
    mem.memoryType = kMemOut;
    mem.ySize = mem.xSize = mem.xStride = 1;
    queue.append(llvm::cantFail(layout.encode(mem)));
  }
  DepFlags deps(size_t index) const { return layout.depsOf(queue.insns().at(index)); }
  MemInsn mem(size_t index) const { return layout.decodeMem(queue.insns().at(index)); }
};

bool same(const DepFlags& a, const DepFlags& b) {
  return a.popPrev == b.popPrev && a.popNext == b.popNext && a.pushPrev == b.pushPrev &&
         a.pushNext == b.pushNext;
}

}  // namespace

TEST_CASE("a pop is attached to the next instruction of the popping stage", "[vta][runtime]") {
  QueueFixture f;
  f.queue.depPop(kComputeStage, kLoadStage);  // the load stage waits for compute
  f.gemm();                                   // not a load: carries nothing
  f.load(kMemInp);
  REQUIRE(f.queue.size() == 2);
  CHECK(same(f.deps(0), {}));
  CHECK(same(f.deps(1), {false, /*popNext=*/true, false, false}));
}

TEST_CASE("a push merges into the last instruction of the pushing stage", "[vta][runtime]") {
  QueueFixture f;
  f.load(kMemWgt);
  f.queue.depPush(kLoadStage, kComputeStage);
  REQUIRE(f.queue.size() == 1);
  CHECK(same(f.deps(0), {false, false, false, /*pushNext=*/true}));
  // The flag is taken: a second push needs a no-op of the load stage.
  f.queue.depPush(kLoadStage, kComputeStage);
  REQUIRE(f.queue.size() == 2);
  CHECK(f.mem(1).xSize == 0);
  CHECK(f.mem(1).memoryType == kMemInp);
  CHECK(same(f.deps(1), {false, false, false, true}));
}

TEST_CASE("a push from another stage travels on a no-op", "[vta][runtime]") {
  QueueFixture f;
  f.load(kMemInp);
  f.queue.depPush(kComputeStage, kLoadStage);  // last instruction is a load: no merge
  REQUIRE(f.queue.size() == 2);
  CHECK(f.layout.opcodeOf(f.queue.insns()[1]) == kOpLoad);
  CHECK(f.mem(1).memoryType == kMemUop);  // a compute-stage no-op
  CHECK(same(f.deps(1), {false, false, /*pushPrev=*/true, false}));
  // A no-op load belongs to no stage: the next compute push does not merge into it either.
  f.queue.depPush(kComputeStage, kStoreStage);
  REQUIRE(f.queue.size() == 3);
  CHECK(same(f.deps(2), {false, false, false, true}));
  // A store-stage push uses a STORE no-op.
  f.queue.depPush(kStoreStage, kComputeStage);
  CHECK(f.layout.opcodeOf(f.queue.insns().back()) == kOpStore);
}

TEST_CASE("a second pop of the same queue commits the first on a no-op", "[vta][runtime]") {
  QueueFixture f;
  f.queue.depPop(kStoreStage, kComputeStage);
  f.queue.depPop(kStoreStage, kComputeStage);
  REQUIRE(f.queue.size() == 1);
  CHECK(same(f.deps(0), {false, /*popNext=*/true, false, false}));
  CHECK(f.queue.hasPendingPops());
  f.gemm();
  CHECK(same(f.deps(1), {false, true, false, false}));
  CHECK_FALSE(f.queue.hasPendingPops());
  // A push of a stage first commits that stage's pending pops.
  f.queue.depPop(kLoadStage, kComputeStage);
  f.queue.depPush(kComputeStage, kStoreStage);
  REQUIRE(f.queue.size() == 4);
  CHECK(same(f.deps(2), {/*popPrev=*/true, false, false, false}));
  CHECK(same(f.deps(3), {false, false, false, /*pushNext=*/true}));
}

TEST_CASE("serial mode chains neighbouring stages and closes the program", "[vta][runtime]") {
  QueueFixture f;
  f.load(kMemInp);
  f.gemm();
  f.store();
  f.queue.serializeAll();
  // load -> compute -> store, each waiting for the one before.
  CHECK(same(f.deps(0), {false, false, false, /*pushNext=*/true}));
  CHECK(same(f.deps(1), {/*popPrev=*/true, false, false, /*pushNext=*/true}));
  // The final store also hands a token back to compute, which FINISH will pop.
  CHECK(same(f.deps(2), {/*popPrev=*/true, false, /*pushPrev=*/true, false}));
  CHECK_FALSE(f.queue.hasPendingPops());
}
