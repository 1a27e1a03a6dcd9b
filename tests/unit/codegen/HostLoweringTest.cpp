// lowerForHost's contract with the emitters, on host-lower's output: one command handle per
// function, intrinsics as runtime calls, micro-kernels with their closures in order of first
// use, entry checks before the body, symbolic sizes bound from the first tensor that has them.
#include <catch2/catch.hpp>

#include <map>

#include "HostLowered.h"
#include "vtac/codegen/HostLowering.h"
#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/EntryBinding.h"
#include "vtac/passes/Vta.h"

namespace vtac::codegen {
namespace {

ir::PrimFuncRef parse(const char *text) {
  frontend::SourceFile file("host_lowering_test.tvm", text);
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  REQUIRE(parsed.has_value());
  return ir::PrimFuncRef(parsed->module.functions()[0].function->as<ir::PrimFunc>());
}

// How often each call_extern callee / call op occurs under `stmt`.
std::map<std::string, int> callCounts(const ir::Stmt &stmt) {
  std::map<std::string, int> counts;
  ir::preOrderVisit(stmt, [&](const ir::Node &node) {
    auto *call = node.as<ir::Call>();
    if (!call) return;
    auto *callee = call->args.empty() ? nullptr : call->args[0].as<ir::StringImm>();
    ++counts[call->op == "tir.call_extern" && callee ? callee->value : call->op];
  });
  return counts;
}

const char *kVtaProgram = R"(@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    vta = T.int32()
    for k in range(2):
        x: T.int32 = k * 8
        T.tir.vta.coproc_dep_push(2, 3)
        with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_uop_scope", "VTAPushALUOp"):
            T.call_extern("int32", "VTAUopLoopBegin", 8, 1, 1, 0)
            for j in range(2):
                T.tir.vta.uop_push(1, 0, x + j, k, 0, 2, 0, 0)
            T.call_extern("int32", "VTAUopLoopEnd")
        T.tir.vta.coproc_dep_pop(2, 3)
        T.call_extern("int32", "VTAStoreBuffer2D", T.tvm_thread_context(T.tir.vta.command_handle()), 0, 4, A.data, 0, 16, 1, 16)
    T.tir.vta.coproc_sync()
)";

TEST_CASE("host lowering: intrinsics become runtime calls on one command handle", "[codegen]") {
  ir::PrimFuncRef func = hostLowered(parse(kVtaProgram), "layer");
  auto lowered = lowerForHost(*func, "main", "layer");
  REQUIRE(bool(lowered));
  std::map<std::string, int> counts = callCounts(lowered->body);
  CHECK(counts["VTATLSCommandHandle"] == 1);
  CHECK(counts["VTADepPush"] == 1);
  CHECK(counts["VTADepPop"] == 1);
  CHECK(counts["VTASynchronize"] == 1);
  CHECK(counts["VTAStoreBuffer2D"] == 1);
  CHECK(counts["tir.vta.command_handle"] == 0);
  CHECK(counts["tir.tvm_thread_context"] == 0);
  CHECK(counts["tir.vta.coproc_dep_push"] == 0);
  CHECK(counts[hostop::kPushMicroKernel] == 1);
  REQUIRE(lowered->commandHandle);
  CHECK(lowered->commandHandle.get() == passes::boundCommandHandle(passes::bodyWithinEntryChecks(func->body)).get());
  CHECK(lowered->params.size() == 1);
  CHECK(lowered->params[0].onVta);
}

TEST_CASE("host lowering: a micro-kernel captures the loop variable it reads, and computes a let of it inside", "[codegen]") {
  auto lowered = lowerForHost(*hostLowered(parse(kVtaProgram), "layer"), "main", "layer");
  REQUIRE(bool(lowered));
  REQUIRE(lowered->kernels.size() == 1);
  const MicroKernel &kernel = lowered->kernels[0];
  CHECK(kernel.pushFunction == "VTAPushALUOp");
  // x = k * 8 is bound again inside (TVM's runtime takes one int below 99), j is the kernel's own.
  REQUIRE(kernel.closure.size() == 1);
  CHECK(kernel.closure[0]->name == "k");
  auto *let = kernel.body.as<ir::LetStmt>();
  REQUIRE(let);
  CHECK(let->var->name == "x");
  std::map<std::string, int> counts = callCounts(kernel.body);
  CHECK(counts["VTAUopPush"] == 1);
  CHECK(counts["tir.vta.uop_push"] == 0);
}

TEST_CASE("host lowering: a CPU function has no command handle and host tensors", "[codegen]") {
  auto lowered = lowerForHost(*hostLowered(parse(R"(@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] * T.float32(2)
)"),
                                          "scale"),
                              "main", "scale");
  REQUIRE(bool(lowered));
  CHECK_FALSE(lowered->commandHandle);
  CHECK(lowered->kernels.empty());
  CHECK_FALSE(lowered->params[0].onVta);
  CHECK(callCounts(lowered->body)["VTATLSCommandHandle"] == 0);
}

TEST_CASE("host lowering: checks come first, then sizes and data are bound", "[codegen]") {
  auto lowered = lowerForHost(*hostLowered(parse(R"(@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, n), "int32")
    B = T.match_buffer(b, (n,), "int32")
    for i in range(n):
        B[i] = A[i, i]
)"),
                                          "diag"),
                              "main", "diag");
  REQUIRE(bool(lowered));
  // Walk the chain of asserts and lets at the top, in order.
  std::vector<std::string> steps;
  ir::Stmt stmt = lowered->body;
  while (stmt) {
    if (auto *check = stmt.as<ir::AssertStmt>()) {
      steps.push_back("assert " + check->message.as<ir::StringImm>()->value);
      stmt = check->body;
    } else if (auto *let = stmt.as<ir::LetStmt>()) {
      steps.push_back("let " + let->var->name);
      stmt = let->body;
    } else if (auto *seq = stmt.as<ir::SeqStmt>()) {
      stmt = seq->stmts.back();  // the strides check, then the rest
    } else {
      break;
    }
  }
  std::vector<std::string> expected = {
      "assert diag: argument 'a' is NULL",
      "assert diag: argument 'a' must have 2 dimensions",
      "assert diag: argument 'a' must have dtype int32",
      "let n",
      "assert diag: argument 'a': dimension 1 must be the same size as 'n'",
      "let A",
      "assert diag: argument 'b' is NULL",
      "assert diag: argument 'b' must have 1 dimension",
      "assert diag: argument 'b' must have dtype int32",
      "assert diag: argument 'b': dimension 0 must be the same size as 'n'",
      "let B"};
  CHECK(steps == expected);
}

TEST_CASE("host lowering: unsupported programs are located errors", "[codegen]") {
  auto blocks = lowerForHost(*parse(R"(@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            A[vi] = 0
)"),
                             "main", "f");
  REQUIRE_FALSE(bool(blocks));
  std::string message = ir::renderError(blocks.takeError());
  CHECK(message.find("host_lowering_test.tvm:3:5: error:") == 0);  // the implicit root block's first loop
  CHECK(message.find("block 'root' is not lowered") != std::string::npos);

  auto handleParam = runHostPipeline(parse(R"(@T.prim_func
def main(p: T.handle):
    T.evaluate(0)
)"),
                                     "f", "bind-entry-parameters");
  REQUIRE_FALSE(bool(handleParam));
  CHECK(ir::renderError(handleParam.takeError()).find("parameter 'p' is neither a buffer nor a scalar") != std::string::npos);

  auto notHostLowered = lowerForHost(*parse(kVtaProgram), "main", "layer");
  REQUIRE_FALSE(bool(notHostLowered));
  CHECK(ir::renderError(notHostLowered.takeError()).find("run host-lower (combine-context-call) before code generation") !=
        std::string::npos);

  // host-lower without bind-entry-parameters: the entry checks are a pass's to build.
  auto unbound = lowerForHost(*hostLowered(parse(kVtaProgram), "layer", "lower-vta-intrinsics,combine-context-call"),
                              "main", "layer");
  REQUIRE_FALSE(bool(unbound));
  CHECK(ir::renderError(unbound.takeError()).find("function 'main' has no entry checks: run host-lower "
                                                  "(bind-entry-parameters) before code generation") != std::string::npos);

  // host-lower without declare-micro-kernels: the micro-kernel states no closure, which code generation
  // does not work out itself.
  auto noClosure = lowerForHost(*hostLowered(parse(kVtaProgram), "layer",
                                              "lower-vta-intrinsics,combine-context-call,bind-entry-parameters"), "main", "layer");
  REQUIRE_FALSE(bool(noClosure));
  std::string noClosureMessage = ir::renderError(noClosure.takeError());
  CHECK(noClosureMessage.find("host_lowering_test.tvm:7:9: error: a micro-kernel that declares no closure: run host-lower "
                              "(declare-micro-kernels) before code generation") == 0);

  // The same for a parallel loop: its task's closure is declare-parallel-tasks' to state.
  auto undeclaredTask = lowerForHost(*hostLowered(parse(R"(@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    for i in T.parallel(4):
        A[i] = i
)"),
                                                 "f", "bind-entry-parameters"),
                                     "main", "f");
  REQUIRE_FALSE(bool(undeclaredTask));
  CHECK(ir::renderError(undeclaredTask.takeError()).find("host_lowering_test.tvm:3:5: error: parallel loop 'i' declares no "
                                                         "closure: run host-lower (declare-parallel-tasks) before code "
                                                         "generation") == 0);
}

TEST_CASE("host lowering: a failed runtime call is named as the program wrote it", "[codegen]") {
  CHECK(writtenName("VTASynchronize") == "tir.vta.coproc_sync");
  CHECK(writtenName("VTADepPop") == "tir.vta.coproc_dep_pop");
  CHECK(writtenName("VTALoadBuffer2D") == "VTALoadBuffer2D");
}

}  // namespace
}  // namespace vtac::codegen
