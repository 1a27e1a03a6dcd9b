// checkRelaxCalls: each R.call_tir / R.call_tir_inplace / R.call_dps_packed whose callee is a prim_func of the
// module is checked against the callee's buffers: one buffer per argument plus one per
// output, element types equal, ranks equal, and dimensions consistent; then one integer
// scalar parameter per value of the call's tir_vars. R.vm.call_tir_dyn's callee is a prim_func. The callee's symbolic
// sizes are unified afresh for every call (linear0 is called with n = 128 and with n = 10),
// so a size the callee uses twice must receive the same caller dimension both times.
#include "RelaxFunctionBuilder.h"

#include <unordered_set>

namespace vtac::frontend {

namespace relax = ir::relax;

namespace {

class CallChecker {
public:
  CallChecker(const ir::PrimFunc &callee, const relax::Call &call, DiagnosticEngine &diagnostics)
      : callee_(callee), call_(call), diagnostics_(diagnostics) {}

  void check() {
    // The trailing scalar parameters take the values of tir_vars; the others are buffers.
    size_t scalars = call_.tirVars.shape ? call_.tirVars.shape->size() : 0;
    if (scalars > callee_.params.size()) {
      diagnostics_.error(call_.tirVars.loc, "tir_vars passes " + std::to_string(scalars) + " values but '" +
                                                call_.callee + "' takes " + std::to_string(callee_.params.size()) +
                                                " parameters");
      return;
    }
    size_t bufferCount = callee_.params.size() - scalars;
    std::vector<ir::BufferRef> buffers;
    for (size_t i = 0; i < bufferCount; ++i) {
      const ir::VarRef &param = callee_.params[i];
      ir::BufferRef buffer = callee_.bufferOf(param);
      if (!buffer) {
        diagnostics_.error(call_.calleeLoc, "'" + call_.callee + "' takes the scalar parameter '" + param->name +
                                                "' where the call passes a buffer (scalars come last, in tir_vars)");
        return;
      }
      buffers.push_back(buffer);
    }
    for (size_t i = 0; i < scalars; ++i) {
      const ir::VarRef &param = callee_.params[bufferCount + i];
      if (callee_.bufferOf(param) || !param->dtype.isInt() || param->dtype.lanes() != 1) {
        diagnostics_.error(call_.tirVars.loc, "value " + std::to_string(i) + " of tir_vars goes to parameter '" +
                                                  param->name + "' of '" + call_.callee +
                                                  "', which is not an integer scalar");
        return;
      }
      // The callee's buffers may be shaped by it (`T.Buffer((m,), ...)`): it is the value.
      unified_.emplace(param.get(), (*call_.tirVars.shape)[i]);
      fromTirVars_.insert(param.get());
    }
    // R.call_tir_inplace writes its output into the argument at its index (-1: a fresh tensor,
    // passed after the arguments as R.call_tir's is).
    int64_t inplace = call_.inplaceIndices.empty() ? -1 : call_.inplaceIndices.front();
    std::vector<relax::TensorStructInfo> outSinfo = call_.outputs();
    size_t outputs = inplace < 0 ? outSinfo.size() : 0;
    if (buffers.size() != call_.args.size() + outputs) {
      diagnostics_.error(call_.calleeLoc,
                         "'" + call_.callee + "' takes " + std::to_string(buffers.size()) +
                             " buffers but the call passes " + std::to_string(call_.args.size()) +
                             " arguments and " + std::to_string(outputs) + " output" + (outputs == 1 ? "" : "s"));
      return;
    }
    for (size_t i = 0; i < call_.args.size(); ++i) {
      relax::StructInfo sinfo = call_.args[i].sinfo();
      std::string what = "argument " + std::to_string(i);
      if (!sinfo.isTensor()) {
        diagnostics_.error(call_.args[i].loc, what + " of '" + call_.callee + "' (buffer " + buffers[i]->name +
                                                  ") is " + relax::printStructInfo(sinfo) + ", not a tensor");
        return;
      }
      if (!matchBuffer(*buffers[i], sinfo.tensor, call_.args[i].loc, what)) return;
    }
    if (inplace >= 0) {
      matchBuffer(*buffers[size_t(inplace)], call_.outSinfo, call_.outSinfo.loc, "the output");
      return;
    }
    for (size_t o = 0; o < outputs; ++o)
      if (!matchBuffer(*buffers[call_.args.size() + o], outSinfo[o], outSinfo[o].loc,
                       outputs == 1 ? std::string("the output") : "output " + std::to_string(o)))
        return;
  }

private:
  bool matchBuffer(const ir::Buffer &buffer, const relax::TensorStructInfo &sinfo,
                   ir::SourceLoc at, const std::string &what) {
    std::string prefix = what + " of '" + call_.callee + "' (buffer " + buffer.name + ") ";
    if (!sinfo.dtype.isVoid() && sinfo.dtype != buffer.dtype) {
      diagnostics_.error(at, prefix + "has element type " + buffer.dtype.str() + ", not " +
                                 sinfo.dtype.str());
      return false;
    }
    if (sinfo.rank() >= 0 && size_t(sinfo.rank()) != buffer.rank()) {
      diagnostics_.error(at, prefix + "has rank " + std::to_string(buffer.rank()) + ", not " +
                                 std::to_string(sinfo.rank()));
      return false;
    }
    if (!sinfo.shape) return true;
    for (size_t d = 0; d < buffer.rank(); ++d) {
      const ir::Expr &calleeDim = buffer.shape[d];
      const ir::Expr &callerDim = (*sinfo.shape)[d];
      ir::Expr expected = calleeDim;
      if (calleeDim.isa<ir::Var>()) {
        auto [it, inserted] = unified_.emplace(calleeDim.get(), callerDim);
        if (inserted) continue;
        expected = it->second;
      }
      if (relax::dimsConflict(expected, callerDim)) {
        std::string origin = calleeDim.isa<ir::Var>()
                                 ? " (its size " + relax::printDim(calleeDim) + " is " +
                                       relax::printDim(expected) +
                                       (fromTirVars_.count(calleeDim.get()) ? " from tir_vars)" : " from an earlier argument)")
                                 : "";
        diagnostics_.error(at, prefix + "needs dimension " + std::to_string(d) + " = " +
                                   relax::printDim(expected) + ", got " +
                                   relax::printDim(callerDim) + origin);
        return false;
      }
    }
    return true;
  }

  const ir::PrimFunc &callee_;
  const relax::Call &call_;
  DiagnosticEngine &diagnostics_;
  std::unordered_map<const ir::Node *, ir::Expr> unified_;
  std::unordered_set<const ir::Node *> fromTirVars_;  // the scalar parameters tir_vars gives
};

} // namespace

void checkRelaxCalls(const ir::IRModule &module, DiagnosticEngine &diagnostics) {
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function);
    if (!func) continue;
    relax::forEachBinding(func->blocks, [&](const relax::Binding &binding) {
      // An operator's struct info was inferred when it was read; packed calls name runtime
      // functions, local calls local functions.
      if (!binding.call) return;
      const relax::Call &call = *binding.call;
      if (call.kind == relax::CallKind::Builtin && call.callee == "vm.call_tir_dyn") {
        ir::FunctionRef target = module.lookup(*call.args[0].text);
        if (!target || !target->isa<ir::PrimFunc>())
          diagnostics.error(call.args[0].loc, "'" + *call.args[0].text + "' is not a prim_func of the module");
        return;
      }
      bool tir = call.kind == relax::CallKind::CallTIR || call.kind == relax::CallKind::CallTIRInplace;
      if (!tir && call.kind != relax::CallKind::CallDPSPacked) return;
      ir::FunctionRef target = module.lookup(call.callee);
      const auto *prim = target ? target->as<ir::PrimFunc>() : nullptr;
      if (prim) {
        CallChecker(*prim, call, diagnostics).check();
      } else if (tir) {
        diagnostics.error(call.calleeLoc, "'" + call.callee + "' is not a prim_func of the module");
      }
    });
  }
}

} // namespace vtac::frontend
