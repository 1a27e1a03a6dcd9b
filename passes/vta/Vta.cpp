#include "vtac/passes/Vta.h"

#include <map>

#include "vtac/ir/Visitor.h"

namespace vtac::passes {

namespace {

// The template; ${NAME} fields are the configuration's (shapes, dtypes, tile sizes).
constexpr const char *kTemplate = R"(# The VTA GEMM core's tensor intrinsics for the configuration ${CONFIG}
# (BATCH=${BATCH}, BLOCK_IN=${BLOCK_IN}, BLOCK_OUT=${BLOCK_OUT}): built into vtac.
@T.prim_func
def vta_gemm_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (${BATCH}, ${BLOCK_IN}), "${INP}", offset_factor=${INP_TILE}, scope="local.inp_buffer")
    B = T.match_buffer(b, (${BLOCK_OUT}, ${BLOCK_IN}), "${WGT}", offset_factor=${WGT_TILE}, scope="local.wgt_buffer")
    C = T.match_buffer(c, (${BATCH}, ${BLOCK_OUT}), "${ACC}", offset_factor=${ACC_TILE}, scope="local.acc_buffer")
    with T.block("root"):
        T.reads(C[0:${BATCH}, 0:${BLOCK_OUT}], A[0:${BATCH}, 0:${BLOCK_IN}], B[0:${BLOCK_OUT}, 0:${BLOCK_IN}])
        T.writes(C[0:${BATCH}, 0:${BLOCK_OUT}])
        for i, j, k in T.grid(${BATCH}, ${BLOCK_OUT}, ${BLOCK_IN}):
            with T.block("update"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                C[v_i, v_j] = C[v_i, v_j] + T.Cast("${ACC}", A[v_i, v_k]) * T.Cast("${ACC}", B[v_j, v_k])

@T.prim_func
def vta_gemm_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (${BATCH}, ${BLOCK_IN}), "${INP}", offset_factor=${INP_TILE}, scope="local.inp_buffer")
    B = T.match_buffer(b, (${BLOCK_OUT}, ${BLOCK_IN}), "${WGT}", offset_factor=${WGT_TILE}, scope="local.wgt_buffer")
    C = T.match_buffer(c, (${BATCH}, ${BLOCK_OUT}), "${ACC}", offset_factor=${ACC_TILE}, scope="local.acc_buffer")
    vta = T.int32()
    with T.block("root"):
        T.reads(C[0:${BATCH}, 0:${BLOCK_OUT}], A[0:${BATCH}, 0:${BLOCK_IN}], B[0:${BLOCK_OUT}, 0:${BLOCK_IN}])
        T.writes(C[0:${BATCH}, 0:${BLOCK_OUT}])
        with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_scope", 2):
            with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_uop_scope", "VTAPushGEMMOp"):
                T.tir.vta.uop_push(0, 0, C.access_ptr("rw", "int32"), A.access_ptr("r", "int32"), B.access_ptr("r", "int32"), 0, 0, 0)

@T.prim_func
def vta_gemm_reset_desc(c: T.handle):
    C = T.match_buffer(c, (${BATCH}, ${BLOCK_OUT}), "${ACC}", offset_factor=${ACC_TILE}, scope="local.acc_buffer")
    with T.block("root"):
        T.reads()
        T.writes(C[0:${BATCH}, 0:${BLOCK_OUT}])
        for i, j in T.grid(${BATCH}, ${BLOCK_OUT}):
            with T.block("reset"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = 0

@T.prim_func
def vta_gemm_reset_impl(c: T.handle):
    C = T.match_buffer(c, (${BATCH}, ${BLOCK_OUT}), "${ACC}", offset_factor=${ACC_TILE}, scope="local.acc_buffer")
    vta = T.int32()
    with T.block("root"):
        T.reads()
        T.writes(C[0:${BATCH}, 0:${BLOCK_OUT}])
        with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_scope", 2):
            with T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), "coproc_uop_scope", "VTAPushGEMMOp"):
                T.tir.vta.uop_push(0, 1, C.access_ptr("rw", "int32"), 0, 0, 0, 0, 0)

tir.TensorIntrin.register("vta_gemm", vta_gemm_desc, vta_gemm_impl)
tir.TensorIntrin.register("vta_gemm_reset", vta_gemm_reset_desc, vta_gemm_reset_impl)
)";

}  // namespace

void setVtaTarget(PassContext &context, const ::vta::Config &config) {
  context.vta = config;
  auto add = [&](const char *scope, uint32_t elemBytes, uint32_t logBuffSize) {
    context.memoryInfo[scope] = {uint64_t(elemBytes) * 8, (uint64_t(1) << logBuffSize) * 8};
  };
  add("local.inp_buffer", config.inpElemBytes, config.logInpBuffSize);
  add("local.wgt_buffer", config.wgtElemBytes, config.logWgtBuffSize);
  add("local.acc_buffer", config.accElemBytes, config.logAccBuffSize);
}

std::string gemmTensorIntrinsics(const ::vta::Config &config) {
  auto integer = [](uint32_t bits) { return "int" + std::to_string(bits); };
  const std::map<std::string, std::string> fields = {
      {"CONFIG", config.name()},
      {"BATCH", std::to_string(config.batch)},
      {"BLOCK_IN", std::to_string(config.blockIn)},
      {"BLOCK_OUT", std::to_string(config.blockOut)},
      {"INP", integer(config.inpWidth)},
      {"WGT", integer(config.wgtWidth)},
      {"ACC", integer(config.accWidth)},
      {"INP_TILE", std::to_string(config.batch * config.blockIn)},
      {"WGT_TILE", std::to_string(config.blockOut * config.blockIn)},
      {"ACC_TILE", std::to_string(config.batch * config.blockOut)},
  };
  std::string text = kTemplate;
  for (const auto &[name, value] : fields) {
    const std::string field = "${" + name + "}";
    for (size_t at = text.find(field); at != std::string::npos; at = text.find(field, at + value.size()))
      text.replace(at, field.size(), value);
  }
  return text;
}

namespace {

bool isVtaCall(const ir::Call &call) {
  if (llvm::StringRef(call.op).starts_with("tir.vta.")) return true;
  if (call.op != "tir.call_extern" || call.args.empty()) return false;
  auto *name = call.args[0].as<ir::StringImm>();
  return name && llvm::StringRef(name->value).starts_with("VTA");
}

}  // namespace

bool usesVta(const ir::Stmt &body) {
  bool found = false;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (auto *c = node.as<ir::Call>()) found |= isVtaCall(*c);
    if (auto *attr = node.as<ir::AttrStmt>()) found |= llvm::StringRef(attr->key).starts_with("coproc_");
  });
  return found;
}

ir::VarRef boundCommandHandle(const ir::Stmt &body) {
  auto *let = body.as<ir::LetStmt>();
  auto *call = let ? let->value.as<ir::Call>() : nullptr;
  auto *callee = call && call->op == "tir.call_extern" && !call->args.empty() ? call->args[0].as<ir::StringImm>() : nullptr;
  return callee && callee->value == "VTATLSCommandHandle" ? let->var : ir::VarRef();
}

}  // namespace vtac::passes
