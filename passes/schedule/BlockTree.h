// The block tree as the primitives walk it: a block's scope, the child blocks of a statement, a
// block found by name, and removing a block with the loops that hold only it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// Removes the block at blockPath with the loops that hold only it: the highest loop (below
// the enclosing block) whose subtree is just this block is dropped from its SeqStmt. An
// error at `at` (whyNotRemovableLeaf's reason) when there is no sequence to remove it from.
llvm::Error removeLeafBlock(Schedule &sch, const std::string &func, const StmtPath &blockPath, ir::SourceLoc at);
// Why removeLeafBlock cannot remove the block (TVM's LeafBlockRemovalPlan error), or an empty
// string when it can: a primitive checks it in TVM's order before it changes anything.
std::string whyNotRemovableLeaf(const StmtPath &blockPath);

// Index in blockPath of the statement removeLeafBlock would remove (the block's own subtree root).
size_t leafSubtreeIndex(const StmtPath &blockPath);

// The block's enclosing scope: path up to (and including) the nearest enclosing Block.
StmtPath scopeOf(const StmtPath &blockPath);

// The BlockRealizes under root that no other block under root encloses (TVM's child blocks),
// in program order, as paths from root.
std::vector<StmtPath> childBlockPaths(const ir::Stmt &root);

// The Block named `name` under root (null when there is none): how a primitive finds a scope
// block again after replacing a statement inside it.
ir::Stmt blockNamed(const ir::Stmt &root, const std::string &name);

// The statements of a body: a SeqStmt's, or the body itself.
std::vector<ir::Stmt> statementsOf(const ir::Stmt &body);
// Whether a block named in `blocks` is under stmt.
bool holdsBlockNamed(const ir::Stmt &stmt, const std::set<std::string> &blocks);

}  // namespace vtac::passes::schedule
