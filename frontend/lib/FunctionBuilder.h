// FunctionBuilder: turns the parse tree of one `@T.prim_func` def into a
// PrimFunc, the way TVM's TVMScript parser does (python/tvm/script/parser/tir):
// names resolve through a stack of scopes, Python literals take the dtype
// their context asks for, `T.*` calls are looked up in a table of builtins,
// and statements such as `x: T.int32 = e`, `T.allocate`, `T.decl_buffer` and
// statement-form `T.attr` scope over the rest of the enclosing body.
//
// Errors are reported into the DiagnosticEngine and the walk continues with an
// Invalid value, so that independent errors in one file are all reported and
// an error is not echoed by everything that uses its result.
//
// The implementation is split by concern: FunctionBuilder.cpp (the def, its
// parameters, scopes), Expressions.cpp (expressions and dtype rules),
// Builtins.cpp (the `T.*` functions), Statements.cpp (statements and loops),
// Threads.cpp (T.env_thread, T.launch_thread), Blocks.cpp (`with T.block` and what
// may appear in it), Reducers.cpp (T.comm_reducer).
#pragma once

#include "ParseTreeCasts.h"
#include "TVMScriptParser.h"
#include "Value.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Function.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace vtac::frontend {

using Grammar = grammar::TVMScriptParser;

/// The type an annotation gives a variable: a dtype (`x: T.int32 = ...`) or a typed pointer
/// (`p: T.handle("int32", "global") = ...`, whose dtype is handle).
struct VarType {
  ir::DataType dtype;
  std::optional<ir::PointerType> pointer;
};

/// Evaluated arguments of a call.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  ir::SourceLoc loc;

  const Value *keyword(const std::string &name) const;
};

/// The range [begin, end). The printer writes a range as `min:min + extent`,
/// so an `end` of that shape gives back exactly `extent` (round trips stay
/// stable); anything else is ir::rangeFromBeginEnd (extent simplified).
ir::Range rangeBetween(ir::Expr begin, ir::Expr end);

/// Whether `path` names a builtin known to the frontend (for "unknown function").
bool isKnownBuiltin(const std::string &path);

/// Statements nested deeper than this in one function are an error: the IR is
/// a tree, and the printer, the verifier, the interpreter and passes walk it
/// recursively (Python's own recursion limit, which bounds TVM's parser, is 1000).
constexpr size_t kMaxStatementNesting = 1000;

/// What a `with T.block(...)` body declares besides its statements.
struct BlockFrame {
  std::string name;
  ir::SourceLoc loc;
  std::vector<ir::IterVarRef> iterVars;
  std::vector<ir::Expr> bindings;
  std::optional<std::vector<ir::BufferRegion>> reads, writes;
  ir::Expr predicate;
  ir::Stmt init;
  std::vector<ir::BufferRef> allocBuffers;
  std::vector<ir::MatchBufferRegion> matchBuffers;
  ir::AttrMap annotations;
};

class FunctionBuilder {
public:
  FunctionBuilder(const SourceFile &file, DiagnosticEngine &diagnostics)
      : file_(file), diagnostics_(diagnostics) {}

  /// The prim_func, or null when it had errors (they are in the engine).
  ir::PrimFuncRef build(Grammar::FuncdefContext *def);

  // ---- shared with the other parts of the builder ---------------------------
  ir::SourceLoc loc(const antlr4::ParserRuleContext *context) const;
  ir::SourceLoc loc(const antlr4::Token *token) const;
  ir::SourceLoc loc(antlr4::tree::TerminalNode *node) const;
  void error(ir::SourceLoc at, std::string message);

  // Scopes (FunctionBuilder.cpp).
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  void define(const std::string &name, Value value, ir::SourceLoc at);
  const Value *lookup(const std::string &name) const;
  void bindParameter(Grammar::ParameterContext *parameter);

  // Expressions (Expressions.cpp).
  Value eval(Grammar::ExprContext *expr);
  Value evalAtom(Grammar::AtomContext *atom);
  Value evalAttribute(Grammar::AttributeExprContext *expr);
  Value evalCall(Grammar::CallExprContext *expr);
  Value evalSubscript(Grammar::SubscriptExprContext *expr);
  Value evalBinary(ir::NodeKind op, Value a, Value b, ir::SourceLoc at);
  Value foldIntegers(ir::NodeKind op, const Value &a, const Value &b, bool literal, ir::SourceLoc at);
  Value evalCompare(Grammar::CompareExprContext *expr);
  Value evalUnary(Grammar::UnaryExprContext *expr);
  Value evalLogical(ir::NodeKind op, Grammar::ExprContext *a, Grammar::ExprContext *b,
                    ir::SourceLoc at);
  std::vector<Value> evalList(const std::vector<Grammar::ExprContext *> &exprs);
  CallArgs evalArgs(Grammar::ArglistContext *arglist, ir::SourceLoc at);
  Value evalIndex(const Value &object, Grammar::SubscriptlistContext *subscripts,
                  ir::SourceLoc at);
  /// `T.comm_reducer(lambda ...: ..., [identities])` (Reducers.cpp).
  Value evalCommReducer(Grammar::ArglistContext *arglist, ir::SourceLoc at);

  // Conversions used by builtins and statements (Expressions.cpp).
  /// The IR expression a value stands for (a buffer's data variable for a
  /// buffer); null after reporting when it has none.
  ir::Expr toExpr(const Value &value, const char *what);
  /// Like toExpr, with literals given `dtype` (an error when a float literal
  /// would lose its fraction to an integer type).
  ir::Expr toExprOf(const Value &value, ir::DataType dtype, const char *what);
  std::optional<ir::DataType> toDataType(const Value &value);
  /// A dtype, or the pointer type `T.handle("dtype", "scope")` evaluates to.
  std::optional<VarType> toVarType(const Value &value);
  std::optional<std::string> toString(const Value &value, const char *what);
  std::optional<int64_t> toConstInt(const Value &value, const char *what);
  /// A shape: an int, an expression or a tuple/list of them.
  std::optional<std::vector<ir::Expr>> toShape(const Value &value);
  std::optional<ir::AttrValue> toAttrValue(const Value &value);
  std::optional<ir::AttrMap> toAttrMap(const Value &value);
  /// Both operands with matching dtypes (literals adopt the other side's,
  /// then TVM's binary_op_match_type); false after reporting incompatible ones.
  bool matchTypes(Value &a, Value &b, ir::SourceLoc at);
  ir::BufferRegion toRegion(const Value &value);

  // Builtins (Builtins.cpp): `T.name(...)` calls that produce values.
  Value callBuiltin(const std::string &path, CallArgs &args, ir::SourceLoc at);
  Value callMethod(const Value &method, CallArgs &args, ir::SourceLoc at);
  // `regionView`: the match_buffer of a region in a block, whose explicit elem_offset=0 stays
  // (TVM binds it: the region must start at 0); elsewhere 0 is the default and becomes null.
  ir::BufferRef makeBufferFromArgs(const std::string &name, CallArgs &args, size_t shapeIndex,
                                   ir::SourceLoc at, bool regionView = false);
  ir::Range toRange(const Value &domain, ir::DataType dtype);

  // Statements (Statements.cpp).
  ir::Stmt buildSuite(Grammar::SuiteContext *suite);
  ir::Stmt buildStatements(const std::vector<Grammar::StmtContext *> &stmts);
  using Wrapper = std::function<ir::Stmt(ir::Stmt)>;
  /// Builds one small statement into `out`; a statement that scopes over the
  /// rest of the body returns the wrapper to apply to that rest.
  std::optional<Wrapper> buildSmallStatement(Grammar::Small_stmtContext *stmt,
                                             std::vector<ir::Stmt> &out);
  ir::Stmt buildCompound(Grammar::Compound_stmtContext *stmt);
  ir::Stmt buildFor(Grammar::For_stmtContext *stmt);
  ir::Stmt buildWith(Grammar::With_stmtContext *stmt);
  ir::Stmt buildIf(Grammar::If_stmtContext *stmt);
  std::optional<Wrapper> buildAssignment(Grammar::Expr_stmtContext *stmt,
                                         std::vector<ir::Stmt> &out);
  using NameList = std::vector<std::pair<std::string, ir::SourceLoc>>;
  std::optional<Wrapper> assignOne(const NameList &names, Grammar::ExprContext *valueExpr,
                                   std::optional<VarType> annotation, ir::SourceLoc at);
  /// One wrapper applying `wrappers` in order (the first outermost).
  static std::optional<Wrapper> chain(std::vector<Wrapper> wrappers);
  /// `forceLet`: bind even a literal with a let (`with T.LetStmt(0) as x`).
  std::optional<Wrapper> bindValue(const NameList &names, Value value,
                                   std::optional<VarType> annotation, ir::SourceLoc at,
                                   bool forceLet = false);
  std::optional<Wrapper> bindBuiltinResult(const std::string &name, ir::SourceLoc where,
                                           const std::string &path, CallArgs &args,
                                           ir::SourceLoc at);
  std::optional<Wrapper> buildAllocateConst(const std::string &name, const CallArgs &args,
                                            ir::SourceLoc where, ir::SourceLoc at);
  struct AttrParts {
    ir::NodeRef node;
    std::string key;
    ir::Expr value;
    ir::SourceLoc loc;
  };
  std::optional<AttrParts> buildAttr(CallArgs &args, ir::SourceLoc at);
  /// The attribute as a statement over the rest of the body.
  static std::optional<Wrapper> attrWrapper(std::optional<AttrParts> attr);
  class BodyBuilder;
  ir::Stmt buildStore(Grammar::SubscriptExprContext *target, Value value,
                      std::optional<ir::NodeKind> augmentedOp, ir::SourceLoc at);
  std::optional<Wrapper> buildCallStatement(Grammar::CallExprContext *call,
                                            std::vector<ir::Stmt> &out);
  NameList targetNames(Grammar::TargetlistContext *list);

  /// One level of statement nesting per loop, block, if/elif, while, let,
  /// assert, allocation or attribute that holds the rest of the program; see
  /// kMaxStatementNesting. False (after reporting, once per function) when the
  /// statement at `at` would go deeper than the limit: it is then not built.
  class Nesting {
  public:
    Nesting(FunctionBuilder &builder, size_t levels, ir::SourceLoc at);
    ~Nesting() { builder_.nesting_ -= levels_; }
    Nesting(const Nesting &) = delete;
    Nesting &operator=(const Nesting &) = delete;
    explicit operator bool() const { return withinLimit_; }

  private:
    FunctionBuilder &builder_;
    size_t levels_;
    bool withinLimit_;
  };
  bool nestingExceeded() const { return nestingExceeded_; }

  // Environment threads (Threads.cpp).
  bool bindEnvThread(const std::string &name, ir::SourceLoc where, CallArgs &args, ir::SourceLoc at);
  std::optional<AttrParts> buildLaunchThread(const std::string *name, ir::SourceLoc where,
                                             CallArgs &args, ir::SourceLoc at);

  // Blocks (Blocks.cpp).
  ir::Stmt buildBlock(CallArgs &args, Grammar::SuiteContext *body, ir::SourceLoc at);
  bool handleBlockDeclaration(const std::string &path, CallArgs &args, ir::SourceLoc at);
  void bindBlockAxes(const NameList &names, const std::string &path, CallArgs &args,
                     ir::SourceLoc at);
  BlockFrame *currentBlock();
  ir::Stmt wrapInRootBlock(ir::Stmt body);

private:
  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  std::vector<std::unordered_map<std::string, Value>> scopes_;
  // Extents of the loops in scope, by loop variable, for T.axis.remap.
  std::unordered_map<const ir::Var *, ir::Range> loopDomains_;
  std::vector<BlockFrame> blocks_;  // blocks_[0] is the implicit root block
  std::vector<ir::VarRef> params_;
  std::vector<std::pair<ir::VarRef, ir::BufferRef>> bufferMap_;
  ir::AttrMap attrs_;
  size_t nesting_ = 0;
  bool nestingExceeded_ = false;
  bool hasBlocks_ = false;
  bool inFunctionBody_ = false;
};

} // namespace vtac::frontend
