// What the VTA passes share: the names and numbers of TVM's VTA environment (`vta/environment.py`:
// SRAM scopes, memory ids, task queues, ALU opcodes), the per-SRAM sizes derived from the active
// vta::Config (so BATCH = 2 or BLOCK = 32 configurations lower correctly), and builders for the
// calls the passes emit. Not a pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vta/config.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes::vta {

inline constexpr const char *kInpScope = "local.inp_buffer";
inline constexpr const char *kWgtScope = "local.wgt_buffer";
inline constexpr const char *kAccScope = "local.acc_buffer";

// Task queues: the coproc_scope value of a statement (QID_* of environment.py).
inline constexpr int kQueueLoad = 1, kQueueCompute = 2, kQueueStore = 3;
// Memory types of LOAD/STORE (MEM_ID_*).
inline constexpr int kMemWgt = 1, kMemInp = 2, kMemAcc = 3, kMemOut = 4, kMemAcc8Bit = 5;
// ALU opcodes.
inline constexpr int kAluMin = 0, kAluMax = 1, kAluAdd = 2, kAluShr = 3, kAluMul = 4;

inline constexpr const char *kGemmPush = "VTAPushGEMMOp";
inline constexpr const char *kAluPush = "VTAPushALUOp";

// One on-chip SRAM as the passes see it: its scalars, its tile (one SRAM element, the unit of
// every SRAM index), where DMA loads into it go and how large it is.
struct Sram {
  std::string scope;
  ir::DataType scalar;   // int8 for inp/wgt, int32 for acc
  int64_t tileScalars;   // scalars per tile: BATCH*BLOCK_IN, BLOCK_OUT*BLOCK_IN, BATCH*BLOCK_OUT
  int memoryType;        // kMem*
  int loadQueue;         // queue of a DMA load into it
  int64_t bytes;         // capacity
};
// The SRAM of a storage scope, nullopt for any other scope.
std::optional<Sram> sramOf(const ::vta::Config &config, llvm::StringRef scope);
// DRAM side of a store: the output tile of int{OUT_WIDTH} scalars.
int64_t outputTileScalars(const ::vta::Config &config);
ir::DataType outputScalar(const ::vta::Config &config);

bool isPragma(const ir::AttrStmt &attr, llvm::StringRef name);  // "pragma_<name>"

// T.tvm_thread_context(T.tir.vta.command_handle())
ir::Expr commandHandle();
// T.call_extern("int32", name, args...)
ir::Expr callExtern(llvm::StringRef name, std::vector<ir::Expr> args, ir::SourceLoc loc = {});
ir::Expr intrinsic(llvm::StringRef op, std::vector<ir::Expr> args, ir::SourceLoc loc = {});
ir::Stmt evaluate(ir::Expr value);
// buffer.access_ptr(mask, "int32") with the buffer's elem_offset + offset: the int32-typed
// tvm_access_ptr that lower-device-storage-access turns into an SRAM tile index.
ir::Expr accessPtr(const ir::VarRef &data, ir::DataType scalar, ir::Expr offset, ir::Expr extent,
                   int mask);

// The coprocessor axis `vta` the function's coproc scopes use (the first one found), or a new
// one when it has none yet.
ir::IterVarRef coprocAxis(const ir::Stmt &body);

// withBody for passes that rebuild what they visit (the lifters): func itself when the new body
// is structurally equal to the old one. Not for passes whose point is node identity
// (unify-coproc-axis), which structural equality does not see.
ir::PrimFuncRef withRebuiltBody(const ir::PrimFuncRef &func, const ir::Stmt &body);

// A pragma's perfect loop nest, seen through lets (TVM's printed cse_var_*) and buffer
// declarations.
struct LoopNest {
  std::vector<const ir::For *> loops;  // outermost first
  ir::VarMap lets;                     // each let variable -> its value, lets substituted
  ir::Stmt innermost;                  // the first statement that is none of these
};
LoopNest loopNest(const ir::Stmt &body);

// A mutator that lowers every `pragma_<name>` attribute with lowerPragma and keeps the first
// error, so that the pass can return it once the walk is over.
class PragmaLowerer : public FirstErrorMutator {
public:
  explicit PragmaLowerer(std::string name) : name_(std::move(name)) {}
  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override;

protected:
  virtual llvm::Expected<ir::Stmt> lowerPragma(const ir::AttrStmt &attr) = 0;

private:
  std::string name_;
};

}  // namespace vtac::passes::vta
