#include "vta/VtaTarget.h"

#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::vta {

std::optional<Sram> sramOf(const ::vta::Config &config, llvm::StringRef scope) {
  auto intOf = [](uint32_t bits) { return ir::DataType::intTy(int(bits)); };
  if (scope == kInpScope)
    return Sram{kInpScope, intOf(config.inpWidth), int64_t(config.batch) * config.blockIn, kMemInp,
                kQueueLoad, int64_t(1) << config.logInpBuffSize};
  if (scope == kWgtScope)
    return Sram{kWgtScope, intOf(config.wgtWidth), int64_t(config.blockOut) * config.blockIn,
                kMemWgt, kQueueLoad, int64_t(1) << config.logWgtBuffSize};
  if (scope == kAccScope)
    return Sram{kAccScope, intOf(config.accWidth), int64_t(config.batch) * config.blockOut, kMemAcc,
                kQueueCompute, int64_t(1) << config.logAccBuffSize};
  return std::nullopt;
}

int64_t outputTileScalars(const ::vta::Config &config) {
  return int64_t(config.batch) * config.blockOut;
}

ir::DataType outputScalar(const ::vta::Config &config) {
  return ir::DataType::intTy(int(config.outWidth));
}

bool isPragma(const ir::AttrStmt &attr, llvm::StringRef name) {
  return attr.key == "pragma_" + name.str();
}

ir::Expr intrinsic(llvm::StringRef op, std::vector<ir::Expr> args, ir::SourceLoc loc) {
  return ir::make<ir::Call>(ir::DataType::int32(), op.str(), std::move(args), loc);
}

ir::Expr commandHandle() {
  ir::Expr handle = ir::make<ir::Call>(ir::DataType::handle(), "tir.vta.command_handle",
                                       std::vector<ir::Expr>{});
  return ir::make<ir::Call>(ir::DataType::handle(), "tir.tvm_thread_context",
                            std::vector<ir::Expr>{handle});
}

ir::Expr callExtern(llvm::StringRef name, std::vector<ir::Expr> args, ir::SourceLoc loc) {
  args.insert(args.begin(), ir::make<ir::StringImm>(name.str()));
  return intrinsic("tir.call_extern", std::move(args), loc);
}

ir::Stmt evaluate(ir::Expr value) {
  ir::SourceLoc loc = value->loc();
  return ir::make<ir::Evaluate>(std::move(value), loc);
}

ir::Expr accessPtr(const ir::VarRef &data, ir::DataType scalar, ir::Expr offset, ir::Expr extent,
                   int mask) {
  ir::Expr annotation = ir::make<ir::Call>(scalar, "tir.type_annotation", std::vector<ir::Expr>{});
  return intrinsic("tir.tvm_access_ptr", {annotation, ir::Expr(data), std::move(offset),
                                          std::move(extent), ir::intImm(mask)});
}

ir::IterVarRef coprocAxis(const ir::Stmt &body) {
  ir::IterVarRef found;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    const auto *attr = node.as<ir::AttrStmt>();
    if (found || !attr || (attr->key != "coproc_scope" && attr->key != "coproc_uop_scope")) return;
    if (const auto *iv = attr->node.as<ir::IterVar>()) found = ir::IterVarRef(iv);
  });
  if (found) return found;
  return ir::make<ir::IterVar>(ir::makeVar("vta"), ir::Range{}, ir::IterType::ThreadIndex, "vta");
}

ir::PrimFuncRef withRebuiltBody(const ir::PrimFuncRef &func, const ir::Stmt &body) {
  return ir::structuralEqual(body, func->body) ? func : withBody(func, body);
}

LoopNest loopNest(const ir::Stmt &body) {
  LoopNest nest;
  nest.innermost = body;
  for (;;) {
    if (const auto *loop = nest.innermost.as<ir::For>()) {
      nest.loops.push_back(loop);
      nest.innermost = loop->body;
    } else if (const auto *let = nest.innermost.as<ir::LetStmt>()) {
      nest.lets[let->var.get()] = ir::substitute(let->value, nest.lets);
      nest.innermost = let->body;
    } else if (const auto *decl = nest.innermost.as<ir::DeclBuffer>()) {
      nest.innermost = decl->body;
    } else {
      return nest;
    }
  }
}

ir::Stmt PragmaLowerer::visitAttrStmt(const ir::AttrStmt &op) {
  if (!isPragma(op, name_)) return StmtExprMutator::visitAttrStmt(op);
  auto lowered = lowerPragma(op);
  if (lowered) return *lowered;
  fail(lowered.takeError());
  return ir::Stmt(&op);
}

}  // namespace vtac::passes::vta
