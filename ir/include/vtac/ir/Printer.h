// The canonical TVMScript printer.
//
// Writes modules and functions in the form TVM's current printer writes them (header comments,
// `@I.ir_module class Module:`, `@T.prim_func`, `T.Buffer` parameters, `T.grid` for perfect
// nests, `T.axis.remap`, `T.reads`/`T.writes`, minimal parentheses, de-duplicated names
// `x`, `x_1`, ...). Output is deterministic and is what the frontend parses back: printing a
// re-parsed printout reproduces it byte for byte.
#pragma once

#include <ostream>
#include <string>

#include <llvm/Support/raw_ostream.h>

#include "vtac/ir/Function.h"

namespace vtac::ir {

struct PrintOptions {
  // Emit the `# from tvm.script import ir as I` / `... tir as T` lines.
  bool headerComments = true;
};

void printModule(const IRModule &module, llvm::raw_ostream &os, const PrintOptions &options = {});
void printPrimFunc(const PrimFunc &func, llvm::StringRef name, llvm::raw_ostream &os,
                   const PrintOptions &options = {});
std::string printModule(const IRModule &module, const PrintOptions &options = {});
std::string printPrimFunc(const PrimFunc &func, llvm::StringRef name = "main",
                          const PrintOptions &options = {});
std::ostream &operator<<(std::ostream &os, const IRModule &module);

// One expression / statement in TVMScript syntax, for diagnostics and tests. Free variables
// print under their own names; statements end with a newline.
std::string printExpr(const Expr &expr);
std::string printStmt(const Stmt &stmt);
// Floats as TVM prints them: integral values with one decimal ("2.0"), others with 17
// significant digits, infinities and NaN as strings.
void appendFloat(std::string &out, double value);
// `{"key": value, ...}` as T.func_attr and R.func_attr write a dictionary of attributes.
std::string printAttrMap(const AttrMap &attrs);
// `{"vdevice": [I.vdevice("llvm", 0, "global"), ...]}`: the module's virtual devices as
// I.module_global_infos takes them (the target as its string, where TVM prints its attributes).
std::string printVDevices(const std::vector<VDevice> &vdevices);
// A statement's first line (a loop's header, a store) as a diagnostic quotes it: variables and
// buffers defined outside it under their own names, not declared first as printStmt does.
std::string printStmtFirstLine(const Stmt &stmt);

}  // namespace vtac::ir
