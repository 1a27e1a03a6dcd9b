// coproc_uop_scope bodies become micro-kernel closures: the push function receives a cache
// slot per attribute node, the closure, and the packed values of the body's free variables.
#include <catch2/catch.hpp>

#include <cstring>

#include "TestSupport.h"

using namespace vtac::backend;
using vtac::ir::DataType;

TEST_CASE("a uop scope hands its body to the push function as a closure with its signature", "[interpreter][vta]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    vta = T.int32()
    for cthread_s in range(2):
        for k in range(2):
            with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_uop_scope", "PushKernel"):
                for j in range(3):
                    T.evaluate(T.call_extern("int32", "record", cthread_s * 10 + j))
)");
  struct Push {
    void *slot;
    std::vector<uint8_t> signature;
  };
  std::vector<Push> pushes;
  std::vector<int64_t> recorded;
  ExternRegistry registry;
  registry.add("record", {[&](llvm::ArrayRef<Value> args, DataType) -> llvm::Expected<Value> {
                            recorded.push_back(args[0].i);
                            return Value::fromInt(0);
                          },
                          1});
  registry.add("PushKernel", {[&](llvm::ArrayRef<Value> args, DataType) -> llvm::Expected<Value> {
                                REQUIRE(args[1].kind == Value::Kind::Closure);
                                auto *bytes = static_cast<const uint8_t *>(args[2].p);
                                pushes.push_back({args[0].p, std::vector<uint8_t>(bytes, bytes + args[3].i)});
                                // Record only on the first push of each signature, like a kernel cache.
                                for (size_t i = 0; i + 1 < pushes.size(); ++i)
                                  if (pushes[i].signature == pushes.back().signature) return Value::fromInt(0);
                                return Value::fromInt(args[1].closure->run(args[2].p));
                              },
                              4});
  std::vector<Tensor> args = {Tensor(DataType::int32(), {8})};
  REQUIRE(test::runError(function, args, registry) == "");
  REQUIRE(pushes.size() == 4);
  for (const Push &push : pushes) {
    CHECK(push.slot == pushes[0].slot);   // one cache slot per attribute node
    CHECK(push.signature.size() == 4);    // cthread_s, an int32; j is bound inside
  }
  int32_t first, last;
  std::memcpy(&first, pushes[0].signature.data(), 4);
  std::memcpy(&last, pushes[3].signature.data(), 4);
  CHECK(first == 0);
  CHECK(last == 1);
  CHECK(recorded == std::vector<int64_t>{0, 1, 2, 10, 11, 12});
}
