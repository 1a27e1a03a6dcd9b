#include "vta/LowerVtaIntrinsics.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Mutator.h"
#include "vtac/passes/Vta.h"

namespace vtac::passes {
namespace {

// Each intrinsic and the runtime function it becomes; the runtime functions' signatures are the
// emitters' (codegen/RuntimeApi.cpp).
struct Lowering {
  const char *intrinsic;
  const char *runtimeFunction;
  bool takesCommandHandle;
};
constexpr Lowering kLowerings[] = {
    {"tir.vta.coproc_dep_push", "VTADepPush", true},
    {"tir.vta.coproc_dep_pop", "VTADepPop", true},
    {"tir.vta.coproc_sync", "VTASynchronize", true},
    {"tir.vta.uop_push", "VTAUopPush", false},
};

class IntrinsicLowerer : public ir::StmtExprMutator {
public:
  ir::Expr visitCall(const ir::Call &op) override {
    ir::Expr visited = StmtExprMutator::visitCall(op);
    const auto *call = visited.as<ir::Call>();
    for (const Lowering &lowering : kLowerings) {
      if (call->op != lowering.intrinsic) continue;
      // VTASynchronize(cmd, uint32_t wait_cycles) waits as long as TVM's `const(1 << 31, "uint32")`.
      std::vector<ir::Expr> args = call->op == "tir.vta.coproc_sync"
                                       ? std::vector<ir::Expr>{ir::intImm(int64_t(1) << 31, ir::DataType::uintTy(32))}
                                       : call->args;
      if (lowering.takesCommandHandle) args.insert(args.begin(), vta::commandHandle());
      return vta::callExtern(lowering.runtimeFunction, std::move(args), op.loc());
    }
    return visited;
  }
};

}  // namespace

const char *vtaIntrinsicLoweredTo(llvm::StringRef runtimeFunction) {
  for (const Lowering &lowering : kLowerings)
    if (runtimeFunction == lowering.runtimeFunction) return lowering.intrinsic;
  return nullptr;
}

llvm::Expected<ir::PrimFuncRef> lowerVtaIntrinsics(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, IntrinsicLowerer().visitStmt(func->body));
}

}  // namespace vtac::passes
