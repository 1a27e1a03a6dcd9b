// RelaxFunctionBuilder: turns the parse tree of one `@R.function` def into a RelaxFunction,
// the way TVM's Relax parser reads it: parameters annotated `R.Tensor(shape, dtype)` whose
// string dimensions ("m") define the function's symbolic sizes, `m = T.int64()` declarations,
// `cls = Module`, `with R.dataflow():` blocks of bindings to `R.call_tir` /
// `R.call_dps_packed` / `R.call_tir_inplace` / `R.call_packed` / `R.call_pure_packed` calls,
// `if`/`else` (the If binds the variable both branches' last bindings name), local functions
// (`@R.function def inner(...)`, bound to a variable of its name, called as `inner(x)`),
// high-level operator calls (`R.add(x, y)` or `x + y`, `R.matmul(a, b)`:
// ir/RelaxOperators.h lists them; their struct info is inferred as they are read, so a shape or
// type mismatch is an error at the call), other variables, tuples (`(a, b)`, `R.tuple(a, b)`),
// tuple fields (`t[0]`), `R.match_cast(x, sinfo)` or scalars (`R.const(2, "int32")`, also
// inline as an argument), `R.output(...)`, and `return`. A call, arithmetic or tuple field used
// as an argument or returned value is bound to a fresh variable first ("lv", "gv"), as TVM's
// normalizer does.
//
// Scoping follows Relax: a variable bound inside a dataflow block is visible outside it only
// when the block's `R.output` lists it; `R.output` is only allowed as the last statement of a
// dataflow block.
//
// Calls are checked against their callees once the whole module is known
// (checkRelaxCalls): argument and output struct info against the prim_func's buffers, with
// the callee's symbolic sizes unified per call. Names that are not prim_funcs of the module
// are runtime functions, resolved when the graph runs.
#pragma once

#include "TVMScriptParser.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Relax.h"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vtac::frontend {

class RelaxFunctionBuilder {
public:
  using Grammar = grammar::TVMScriptParser;

  /// `moduleName` is the class the function is defined in ("" for a bare function): the
  /// name `cls = Module` may alias.
  /// The R.Callable signature of the module's Relax function of that name, for `cls.f(x)`.
  using SignatureLookup = std::function<std::optional<ir::relax::StructInfo>(const std::string &name)>;

  /// `vdevices`: the module's virtual devices (I.module_global_infos), which struct info and
  /// R.to_vdevice name.
  RelaxFunctionBuilder(const SourceFile &file, DiagnosticEngine &diagnostics,
                       std::string moduleName = "", SignatureLookup moduleSignatures = {},
                       const std::vector<ir::VDevice> *vdevices = nullptr)
      : file_(file), diagnostics_(diagnostics), moduleName_(std::move(moduleName)),
        moduleSignatures_(std::move(moduleSignatures)), vdevices_(vdevices) {}

  /// The function, or null when it had errors (they are in the engine).
  ir::RelaxFunctionRef build(Grammar::FuncdefContext *def);

  /// The R.Callable of a def's signature (parameters and return annotation; R.Object without
  /// one), read without its body; nullopt after errors.
  std::optional<ir::relax::StructInfo> signature(Grammar::FuncdefContext *def);

private:
  ir::SourceLoc loc(const antlr4::ParserRuleContext *context) const;
  ir::SourceLoc loc(antlr4::tree::TerminalNode *node) const;
  void error(ir::SourceLoc at, std::string message);

  // Annotations and shapes.
  std::optional<ir::relax::StructInfo> structInfo(Grammar::ExprContext *expr, bool inSignature);
  std::optional<ir::relax::TensorStructInfo> tensorStructInfo(Grammar::ExprContext *expr,
                                                              bool inSignature);
  std::optional<std::vector<ir::relax::StructInfo>> structInfoList(Grammar::ExprContext *expr,
                                                                   bool inSignature);
  ir::Expr dim(Grammar::ExprContext *expr, bool inSignature);
  ir::Expr quotedDim(const std::string &text, ir::SourceLoc at, bool inSignature);
  ir::VarRef symbolicVar(const std::string &name, ir::SourceLoc at, bool createIfMissing);

  // Statements.
  void statements(const std::vector<Grammar::StmtContext *> &stmts);
  void suite(Grammar::SuiteContext *suite);
  void smallStatement(Grammar::Small_stmtContext *stmt, bool lastInBlock);
  void assignment(Grammar::Expr_stmtContext *stmt);
  void dataflowBlock(Grammar::With_stmtContext *stmt);
  void ifStatement(Grammar::If_stmtContext *stmt);
  std::optional<ir::relax::IfBranch> ifBranch(Grammar::SuiteContext *suite, ir::SourceLoc at,
                                              std::optional<std::string> &name);
  void localFunction(Grammar::DecoratedContext *decorated);
  void output(Grammar::CallExprContext *call, bool lastInBlock);
  void functionAttributes(Grammar::CallExprContext *call);
  std::optional<ir::AttrValue> attrLiteral(Grammar::ExprContext *expr);
  void returnStatement(Grammar::TestlistContext *values, ir::SourceLoc at);
  bool declareSymbolicVars(Grammar::Expr_stmtContext *stmt);
  ir::relax::VarPtr bind(const std::string &name, ir::SourceLoc at,
            std::optional<ir::relax::StructInfo> annotation,
            Grammar::ExprContext *value);
  ir::relax::VarPtr bind(const std::string &name, ir::SourceLoc at,
            std::optional<ir::relax::StructInfo> annotation,
            Grammar::TestlistContext *values);
  ir::relax::VarPtr emitBinding(const std::string &name, ir::SourceLoc at,
                                std::optional<ir::relax::StructInfo> annotation, ir::relax::Binding binding,
                                const ir::relax::StructInfo &inferred);

  // Values.
  std::optional<ir::relax::Call> call(Grammar::CallExprContext *call);
  std::optional<ir::relax::Call> packedCall(Grammar::CallExprContext *call, ir::relax::CallKind kind);
  std::optional<ir::relax::Call> localFunctionCall(Grammar::CallExprContext *call, ir::relax::VarPtr callee,
                                                   bool moduleCallee = false);
  std::optional<ir::relax::StructInfo> sinfoArgument(Grammar::ExprContext *expr);
  std::optional<ir::relax::Call> operatorCall(Grammar::CallExprContext *call, const std::string &name);
  std::optional<ir::relax::Call> builtinCall(Grammar::CallExprContext *call, const std::string &name);
  bool operatorArgumentsFit(Grammar::CallExprContext *call, const std::vector<std::string> &params,
                            const std::string &name);
  std::optional<ir::relax::Call> creationCall(Grammar::CallExprContext *call, ir::relax::Call operatorCall);
  bool windowAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params, ir::relax::Call &call);
  std::optional<std::variant<int64_t, double>> clipBound(Grammar::ExprContext *expr);
  bool normAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params, ir::relax::Call &call);
  bool stridedSliceAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params,
                              ir::relax::Call &call);
  std::optional<ir::relax::Call> withInferredStructInfo(ir::relax::Call call, ir::SourceLoc callLoc,
                                                        ir::SourceLoc axesLoc);
  std::optional<ir::relax::Call> arithmeticCall(Grammar::ExprContext *expr);
  std::optional<std::vector<ir::Expr>> shapeValue(Grammar::ExprContext *expr);
  std::optional<std::string> virtualDevice(Grammar::ExprContext *expr);
  std::optional<ir::relax::Arg> argument(Grammar::ExprContext *expr);
  bool namesModule(Grammar::AttributeExprContext *attribute) const;
  ir::relax::VarPtr moduleFunction(Grammar::AttributeExprContext *attribute);
  ir::Expr primValue(Grammar::ExprContext *expr);
  std::optional<ir::relax::Arg> tupleField(Grammar::ExprContext *expr);
  using FieldReader = std::optional<ir::relax::Arg> (RelaxFunctionBuilder::*)(Grammar::ExprContext *);
  std::optional<ir::relax::Arg> tupleOf(const std::vector<Grammar::ExprContext *> &items, ir::SourceLoc at,
                                        FieldReader read);
  std::optional<ir::relax::Arg> callArgument(Grammar::ExprContext *expr);
  bool isNestedValue(Grammar::ExprContext *expr);
  std::optional<ir::relax::Arg> nestedValue(Grammar::ExprContext *expr);
  std::string freshName();
  ir::relax::VarPtr emit(ir::relax::Binding binding, const std::string &name, ir::SourceLoc at,
                         ir::relax::StructInfo sinfo, bool inScope);
  std::shared_ptr<const ir::relax::Constant> inlineConstant(Grammar::CallExprContext *call);
  std::optional<ir::relax::StructInfo> bindingValue(Grammar::ExprContext *value, ir::relax::Binding &binding);
  ir::relax::VarPtr lookupVar(const std::string &name, ir::SourceLoc at);
  ir::relax::VarPtr findVar(const std::string &name) const;  // no error when missing

  ir::relax::BindingBlock &bindingBlockOutsideDataflow();

  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  std::string moduleName_;
  SignatureLookup moduleSignatures_;
  const std::vector<ir::VDevice> *vdevices_;
  size_t errorsAtStart_ = 0;

  std::vector<ir::relax::VarPtr> params_;
  std::vector<ir::VarRef> symbolic_;
  std::unordered_map<std::string, ir::VarRef> symbolicByName_;
  std::unordered_map<std::string, ir::relax::VarPtr> visible_;      // function scope
  std::unordered_map<std::string, ir::relax::VarPtr> dataflowScope_;  // current dataflow block
  std::unordered_set<std::string> hiddenDataflowNames_;  // bound in a closed block, not output
  std::unordered_set<std::string> moduleAliases_;        // `cls = Module`
  std::vector<std::shared_ptr<ir::relax::Constant>> constants_;  // by metadata index
  std::vector<ir::relax::BindingBlock> blocks_;
  std::unordered_map<std::string, unsigned> emittedNames_;  // freshName's NameSupply
  ir::AttrMap attrs_;  // R.func_attr
  bool inDataflow_ = false;
  bool returned_ = false;
  std::vector<ir::relax::Arg> results_;
  bool resultIsTuple_ = false;
  bool quotedNamesDefine_ = false;  // inside a quoted signature dimension: names are new sizes
  unsigned branchDepth_ = 0;        // inside an if branch
  // A local function's view of the enclosing function's variables (it may use them).
  std::unordered_map<std::string, ir::relax::VarPtr> captured_;
};

/// A literal attribute value (string, number, True/False/None, list, tuple or dictionary with
/// string keys), as `R.func_attr` and `I.module_attrs` take; nullopt after a located error.
std::optional<ir::AttrValue> readAttrLiteral(const SourceFile &file, DiagnosticEngine &diagnostics,
                                             grammar::TVMScriptParser::ExprContext *expr);

/// `I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), ...]})`: the module's
/// virtual devices, appended to `vdevices`; false after a located error (device meshes, "mesh",
/// are not read yet).
bool readModuleGlobalInfos(const SourceFile &file, DiagnosticEngine &diagnostics,
                           grammar::TVMScriptParser::CallExprContext *call, std::vector<ir::VDevice> &vdevices);

/// Checks every call of every Relax function in `module` against its callee (see above).
void checkRelaxCalls(const ir::IRModule &module, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
