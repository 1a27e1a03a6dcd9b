// The C and LLVM emitters on small programs: the C semantics of the IR's operators (floor
// division helpers defined once, narrow integers wrapped, lazy if_then_else), the LLVM module's
// shape and the kinds of output.
#include <catch2/catch.hpp>

#include "HostLowered.h"
#include "vtac/codegen/CEmitter.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::codegen {
namespace {

std::vector<HostFunction> lower(const char *text, const char *symbol) {
  frontend::SourceFile file("emitter_test.tvm", text);
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  REQUIRE(parsed.has_value());
  ir::PrimFuncRef func(parsed->module.functions()[0].function->as<ir::PrimFunc>());
  auto lowered = lowerForHost(*hostLowered(func, symbol), "main", symbol);
  REQUIRE(bool(lowered));
  return {std::move(*lowered)};
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

const char *kArithmetic = R"(@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int8"), C: T.Buffer((8,), "int32")):
    for i in range(8):
        C[i] = T.floordiv(A[i], 3) + T.floordiv(A[i], 5) + T.floormod(A[i], 3)
        B[i] = B[i] + T.int8(100)
        C[i] = T.if_then_else(i < 7, A[T.min(i + 1, 7)], 0)
)";

TEST_CASE("C emitter: floor division, narrow integers, if_then_else", "[codegen]") {
  auto text = emitC(lower(kArithmetic, "arith"), "emitter_test.tvm");
  REQUIRE(bool(text));
  CHECK(occurrences(*text, "static inline int32_t vtac_floordiv_int32_t(") == 1);
  CHECK(occurrences(*text, "vtac_floordiv_int32_t(") == 3);  // the definition and two calls
  CHECK(occurrences(*text, "static inline int32_t vtac_floormod_int32_t(") == 1);
  // integer + wraps in C as in TVM: computed in the unsigned type, converted back
  CHECK(text->find("((int8_t)((uint32_t)((const int8_t *)B_1)[(int64_t)i] + (uint32_t)((int8_t)100)))") !=
        std::string::npos);
  CHECK(text->find("((i < 7) ? ((const int32_t *)A_1)[(int64_t)vtac_min_int32_t(((int32_t)((uint32_t)i + "
                   "(uint32_t)1)), 7)] : 0)") != std::string::npos);
  CHECK(text->find("int32_t arith(DLTensor *A, DLTensor *B, DLTensor *C) {") != std::string::npos);
}

TEST_CASE("LLVM emitter: IR, bitcode and objects for the host and ARM", "[codegen]") {
  auto functions = lower(kArithmetic, "arith");
  LLVMEmitOptions options;
  options.kind = EmitKind::LLVMIR;
  options.optLevel = 0;
  auto ir = emitLLVM(functions, "emitter_test.tvm", options);
  REQUIRE(bool(ir));
  CHECK(ir->find("define i32 @arith(ptr %A, ptr %B, ptr %C)") != std::string::npos);
  CHECK(ir->find("define internal i32 @vtac_fail(ptr") != std::string::npos);
  CHECK(ir->find("declare extern_weak void @VTARuntimeReportError(ptr)") != std::string::npos);

  options.kind = EmitKind::Bitcode;
  auto bitcode = emitLLVM(functions, "emitter_test.tvm", options);
  REQUIRE(bool(bitcode));
  CHECK(bitcode->compare(0, 4, "BC\xC0\xDE") == 0);

  options.kind = EmitKind::Object;
  options.optLevel = 2;
  options.targetTriple = "armv7a-linux-gnueabihf";
  auto object = emitLLVM(functions, "emitter_test.tvm", options);
  REQUIRE(bool(object));
  REQUIRE(object->size() > 20);
  CHECK(object->compare(0, 4, "\x7f" "ELF") == 0);
  CHECK((*object)[4] == 1);        // ELFCLASS32
  CHECK((*object)[18] == 40);      // e_machine EM_ARM
}

TEST_CASE("LLVM emitter: an unsupported target is an error, not a crash", "[codegen]") {
  LLVMEmitOptions options;
  options.targetTriple = "mips-linux-gnu";
  auto object = emitLLVM(lower(kArithmetic, "arith"), "emitter_test.tvm", options);
  REQUIRE_FALSE(bool(object));
  CHECK(ir::renderError(object.takeError()) ==
        "error: target 'mips-linux-gnu' is not supported (vtac generates code for X86 and ARM)\n");
}

const char *kLoopNest = R"(@T.prim_func
def main(A: T.Buffer((64, 1024), "int32"), B: T.Buffer((64, 1024), "int32")):
    for i in range(64):
        for j in range(1024):
            B[i, j] = A[i, j] + 1
)";

TEST_CASE("LLVM emitter: counting steps leaves the innermost loop vectorisable", "[codegen]") {
  LLVMEmitOptions options;
  options.kind = EmitKind::LLVMIR;
  options.targetTriple = "x86_64-linux-gnu";  // SSE2: 4 lanes of i32
  options.runtimeChecks = true;
  options.countSteps = true;
  auto ir = emitLLVM(lower(kLoopNest, "nest"), "emitter_test.tvm", options);
  REQUIRE(bool(ir));
  // The leaf loop's 1024 steps are counted once per entry: its body is free to vectorise.
  CHECK(ir->find("add <4 x i32>") != std::string::npos);
  CHECK(ir->find("@vtac_check_limits(i32 0, i64") != std::string::npos);
}

const char *kMicroKernel = R"(@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    vta = T.int32()
    with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_uop_scope", "VTAPushALUOp"):
        T.tir.vta.uop_push(1, 0, 0, 0, 0, 2, 0, 0)
    T.tir.vta.coproc_sync()
)";

TEST_CASE("LLVM emitter: micro-kernel handles are internal statics, or the caller's", "[codegen]") {
  auto functions = lower(kMicroKernel, "k");
  LLVMEmitOptions options;
  options.kind = EmitKind::LLVMIR;
  auto ir = emitLLVM(functions, "emitter_test.tvm", options);
  REQUIRE(bool(ir));
  CHECK(ir->find("@k_uop_kernel0_handle = internal global ptr null") != std::string::npos);

  // The JIT's way: declared only, for it to bind to a slot that outlives the code.
  options.kernelHandlesFromCaller = true;
  llvm::LLVMContext context;
  auto built = buildLLVMModule(functions, "emitter_test.tvm", options, context);
  REQUIRE(bool(built));
  CHECK(built->kernelHandles == std::vector<std::string>{"k_uop_kernel0_handle"});
  llvm::GlobalVariable *handle = built->module->getNamedGlobal("k_uop_kernel0_handle");
  REQUIRE(handle);
  CHECK(handle->isDeclaration());
  CHECK(handle->hasExternalLinkage());
}

}  // namespace
}  // namespace vtac::codegen
