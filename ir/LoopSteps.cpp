#include "vtac/ir/LoopSteps.h"

#include <llvm/ADT/STLExtras.h>

#include "vtac/ir/Visitor.h"

namespace vtac::ir {

bool isLeafLoopBody(const Stmt &body, llvm::ArrayRef<llvm::StringRef> loopRunningCalls) {
  bool leaf = true;
  preOrderVisit(body, [&](const Node &node) {
    if (node.isa<For>() || node.isa<While>()) leaf = false;
    if (auto *attr = node.as<AttrStmt>())
      leaf &= attr->key != "thread_extent" && attr->key != "virtual_thread" && attr->key != "coproc_uop_scope";
    if (auto *call = node.as<Call>()) leaf &= !llvm::is_contained(loopRunningCalls, call->op);
  });
  return leaf;
}

}  // namespace vtac::ir
