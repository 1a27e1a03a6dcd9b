// The Relax-like graph level of the IR: a `RelaxFunction` (an @R.function) whose body is a
// sequence of binding blocks, most of them dataflow blocks (`with R.dataflow():`), each binding
// a variable to a destination-passing call (`R.call_tir(cls.f, (args,), out_sinfo=...)`,
// `R.call_dps_packed("name", (args,), R.Tensor(...))`) or to another variable
// (`gv: R.Tensor(...) = lv`), and which returns a variable (or a tuple of them).
//
// Tensors carry struct info `R.Tensor(shape, dtype)` whose dimensions are int64 TIR
// expressions: constants or the function's symbolic sizes (`"m"` in a parameter annotation,
// `m = T.int64()` in the body), so shapes flow through the graph as in TVM. Parameters bound
// to data (relax.transform.BindParams) become constants, printed as TVM prints them:
// `metadata["relax.expr.Constant"][i]`.
//
// Unlike TIR nodes, graph variables, calls and bindings are plain values owned by their
// function; only the function itself is an IR node, stored in an IRModule beside PrimFuncs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>

#include "vtac/ir/Function.h"

namespace vtac::ir {

namespace relax {

// `R.Tensor((1, n), "float32")`. An absent shape means "rank `ndim`, sizes unknown" (-1: rank
// unknown too); a void dtype means the element type is unknown.
struct TensorStructInfo {
  std::optional<std::vector<Expr>> shape;
  int ndim = -1;
  DataType dtype;
  SourceLoc loc;
  // `vdevice="llvm:0"`: the module's virtual device it lives on, named by target kind and
  // index among that kind's (the form TVM prints); empty when not given.
  std::string vdevice;

  static TensorStructInfo known(std::vector<Expr> dims, DataType dtype, SourceLoc loc = {});
  bool hasShape() const { return shape.has_value(); }
  int rank() const { return shape ? int(shape->size()) : ndim; }
};

// The struct info of any Relax value, as TVM's StructInfo: a tensor; a tuple
// (`R.Tuple(R.Tensor(...), R.Object)`); a shape value (`R.Shape([n, 4])`, `R.Shape(ndim=2)`); a
// scalar (`R.Prim("int64")`, `R.Prim(value=n)`); any object (`R.Object`); or a function
// (`R.Callable((params,), ret, purity)`, or opaque: `R.Callable(ret=..., purity=...)`).
// The graph executor and `vtac compile` run tensors only and refuse the other kinds.
struct StructInfo {
  enum class Kind { Tensor, Tuple, Shape, Prim, Object, Callable };
  Kind kind = Kind::Object;
  TensorStructInfo tensor;                  // Tensor
  std::optional<std::vector<Expr>> values;  // Shape: the values when known, else `ndim`
  int ndim = -1;
  DataType dtype;                           // Prim: the type, and `value` when known
  Expr value;
  std::vector<StructInfo> fields;           // Tuple: the fields; Callable: the parameters
  std::shared_ptr<const StructInfo> result; // Callable: the result (null: R.Object)
  bool opaque = false;                      // Callable: parameters unknown
  bool pure = true;                         // Callable
  SourceLoc loc;

  StructInfo() = default;
  StructInfo(TensorStructInfo sinfo) : kind(Kind::Tensor), tensor(std::move(sinfo)), loc(tensor.loc) {}
  static StructInfo of(Kind kind, SourceLoc loc = {}) {
    StructInfo sinfo;
    sinfo.kind = kind;
    sinfo.loc = loc;
    return sinfo;
  }
  bool isTensor() const { return kind == Kind::Tensor; }
};

// The data of a bound constant: C-order little-endian bytes.
struct TensorData {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// A graph variable. `dataflow` variables live inside one dataflow block; the others (params,
// R.output'ed variables, bindings outside dataflow blocks) are visible in the whole function.
struct Var {
  std::string name;
  StructInfo sinfo;
  bool dataflow = false;
  SourceLoc loc;
};
using VarPtr = std::shared_ptr<Var>;

// A constant argument: `metadata["relax.expr.Constant"][i]`, or a scalar written inline,
// `R.const(2, "int32")` (`scalar`, its value as an IntImm/FloatImm of the dtype: printed so,
// never as metadata). `data` is null when the text only named a metadata slot (the metadata
// section was omitted).
struct Constant {
  TensorStructInfo sinfo;
  std::shared_ptr<const TensorData> data;
  Expr scalar;
  SourceLoc loc;
};
using ConstantPtr = std::shared_ptr<const Constant>;

// An argument of a call or the value of an alias binding: a variable, a constant, a scalar or
// shape value of symbolic sizes (R.Prim / R.Shape struct info); as a
// field of a tuple or returned value also a tuple itself, `(a, (b, c))` (`fields` set, TVM
// prints nested tuples inline).
struct Arg {
  VarPtr var;
  ConstantPtr constant;
  std::shared_ptr<const std::vector<Arg>> fields;
  Expr prim;                                // `R.prim_value(n % 16 == 0)`: a scalar of sizes
  std::optional<std::vector<Expr>> shape;   // `R.shape([n, 4])`: a shape value
  std::optional<std::string> text;          // `R.str("global")`: a string (an argument of a builtin)
  std::optional<DataType> dtypeValue;       // `R.dtype("float32")`: a data type (of a builtin)
  // A function of the module used as a value, `cls.f` (TVM's GlobalVar): unbound, it holds the
  // function's name and R.Callable signature, as Call::calleeVar does for `cls.f(x)`.
  VarPtr moduleFunction;
  SourceLoc loc;  // of the use

  // None: an optional argument of a builtin left out (`R.memory.view(x, dtype=...)`'s shape).
  bool isNone() const {
    return !var && !constant && !fields && !prim && !shape && !text && !dtypeValue && !moduleFunction;
  }
  StructInfo sinfo() const;
};

enum class CallKind { CallTIR, CallDPSPacked, Operator, CallTIRInplace, CallPacked, CallPurePacked, Function, Builtin };

// The attributes of the window operators, as TVM's attrs nodes hold them after its Python
// wrappers normalised the arguments: two strides, dilations and window sizes (height, width),
// four paddings (top, left, bottom, right), layouts as strings.
// R.nn.conv2d (TVM's Conv2DAttrs); a void `outDtype` is `out_dtype="void"`: the data's.
struct Conv2DAttrs {
  std::vector<int64_t> strides{1, 1}, padding{0, 0, 0, 0}, dilation{1, 1};
  int64_t groups = 1;
  std::string dataLayout = "NCHW", kernelLayout = "OIHW", outLayout = "NCHW";
  DataType outDtype;
  auto tied() const { return std::tie(strides, padding, dilation, groups, dataLayout, kernelLayout, outLayout, outDtype); }
};
// R.nn.max_pool2d and R.nn.avg_pool2d (TVM's Pool2DAttrs; max_pool2d ignores countIncludePad).
struct Pool2DAttrs {
  std::vector<int64_t> poolSize{1, 1}, strides{1, 1}, dilation{1, 1}, padding{0, 0, 0, 0};
  bool ceilMode = false, countIncludePad = false;
  std::string layout = "NCHW", outLayout = "NCHW";
  auto tied() const { return std::tie(poolSize, strides, dilation, padding, ceilMode, countIncludePad, layout, outLayout); }
};
// R.nn.adaptive_avg_pool2d (TVM's AdaptivePool2DAttrs); no output size: the input's.
struct AdaptivePool2DAttrs {
  std::optional<std::vector<int64_t>> outputSize;
  std::string layout = "NCHW", outLayout = "NCHW";
  auto tied() const { return std::tie(outputSize, layout, outLayout); }
};
// R.clip's bounds (TVM passes them as PrimValue arguments: an int64 or a float32 value each).
struct ClipAttrs {
  std::variant<int64_t, double> min = int64_t(0), max = int64_t(0);
  auto tied() const { return std::tie(min, max); }
};
// R.strided_slice (TVM's StridedSliceAttrs with its axes/begin/end/strides tuples of constant
// PrimValues): a begin, end and stride per axis of `Call::axes`; strides all 1 when the call
// gives none (`stridesGiven` false, printed without them).
struct StridedSliceAttrs {
  std::vector<int64_t> begin, end, strides;
  bool stridesGiven = false, assumeInbound = false;
  auto tied() const { return std::tie(begin, end, strides, stridesGiven, assumeInbound); }
};
// R.nn.layer_norm (TVM's LayerNormAttrs besides its axes, which are `Call::axes`).
struct LayerNormAttrs {
  double epsilon = 1e-5;
  bool center = true, scale = true;
  auto tied() const { return std::tie(epsilon, center, scale); }
};
inline bool operator==(const Conv2DAttrs &a, const Conv2DAttrs &b) { return a.tied() == b.tied(); }
inline bool operator==(const StridedSliceAttrs &a, const StridedSliceAttrs &b) { return a.tied() == b.tied(); }
inline bool operator==(const Pool2DAttrs &a, const Pool2DAttrs &b) { return a.tied() == b.tied(); }
inline bool operator==(const AdaptivePool2DAttrs &a, const AdaptivePool2DAttrs &b) { return a.tied() == b.tied(); }
inline bool operator==(const ClipAttrs &a, const ClipAttrs &b) { return a.tied() == b.tied(); }
inline bool operator==(const LayerNormAttrs &a, const LayerNormAttrs &b) { return a.tied() == b.tied(); }
// R.split (TVM's SplitAttrs; the axis is `Call::axes`): a number of sections, or the indices
// the tensor is split at.
struct SplitAttrs {
  std::variant<int64_t, std::vector<int64_t>> indicesOrSections = int64_t(1);
  bool operator==(const SplitAttrs &other) const { return indicesOrSections == other.indicesOrSections; }
};
// An operator's attributes beyond `Call::axes`/`keepdims`/`outDtype`: one struct per operator
// family that has several (monostate: the call has none of these).
// R.nn.batch_norm (TVM's BatchNormAttrs; the axis is `Call::axes`). `training` is newer TVM's
// attribute (true: the statistics of the batch, as the TVM this follows always legalizes it).
struct BatchNormAttrs {
  double epsilon = 1e-5, momentum = 0.1;
  bool center = true, scale = true, training = true;
  auto tied() const { return std::tie(epsilon, momentum, center, scale, training); }
};
inline bool operator==(const BatchNormAttrs &a, const BatchNormAttrs &b) { return a.tied() == b.tied(); }
// R.tile (TVM's TileAttrs): how often each dimension repeats, aligned at the last one.
struct TileAttrs {
  std::vector<int64_t> repeats;
  bool operator==(const TileAttrs &other) const { return repeats == other.repeats; }
};
using OperatorAttrs = std::variant<std::monostate, Conv2DAttrs, Pool2DAttrs, AdaptivePool2DAttrs, ClipAttrs,
                                   StridedSliceAttrs, LayerNormAttrs, SplitAttrs, BatchNormAttrs, TileAttrs>;

// `R.call_tir(cls.callee, (args,), out_sinfo=...)` — callee a prim_func of the module — or
// `R.call_dps_packed("callee", (args,), out_sinfo)` — a prim_func of the module or a
// registered runtime function, resolved when the graph runs — or a high-level operator,
// `R.add(x, y)`, `R.matmul(x, w, out_dtype="void")` (callee "add", "nn.relu", "matmul": TVM's
// operator name without "relax."; RelaxOperators.h lists them), whose `outSinfo` is inferred
// from its arguments and which legalize-ops turns into R.call_tir. Also
// `R.call_tir_inplace(cls.f, (args,), inplace_indices=[..], out_sinfo=...)` (the outputs written
// into the arguments at those indices), `R.call_packed("name", args.., sinfo_args=...)` /
// `R.call_pure_packed(...)` (a runtime function called directly, its result's struct info given
// by `sinfoArgs`), and a call of a local function, `inner(x)` (`calleeVar`, its R.Callable), or
// of another function of the module, `cls.f(x)` (a prim_func called so writes into arguments
// the graph allocated, and returns R.Tuple()). Also a builtin of TVM's memory planning and VM
// lowering, `R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"),
// R.dtype("float32"))` (callee "memory.alloc_storage"; RelaxBuiltins.h lists them), its
// arguments in TVM's parameter order and its result's inferred struct info in `sinfoArgs`.
struct Call {
  CallKind kind = CallKind::CallDPSPacked;
  std::string callee;
  SourceLoc calleeLoc;
  std::vector<Arg> args;
  TensorStructInfo outSinfo;
  // A call of several outputs (`out_sinfo=[a, b]` of R.call_tir / R.call_dps_packed, R.split):
  // their struct info, two or more, and the call's value is an R.Tuple of them (`outSinfo`
  // unused). `out_sinfo=[a]` is one output, `outSinfo`, as TVM's call_tir reads it.
  std::vector<TensorStructInfo> tupleOutSinfo;
  // The attributes of an operator besides its tensors, as TVM's attrs nodes hold them;
  // R.reshape's shape is the result's (`outSinfo`), R.concat's tensors are `args`.
  // `axes`: permute_dims' permutation (nullopt: reversed, `axes=None`); the reduced axes of
  // sum/mean/max/min (nullopt: all); concat's one axis (nullopt: `axis=None`, flattened);
  // softmax's one axis; layer_norm's normalized axes; argmax/argmin's one axis (nullopt: all);
  // batch_norm's one axis.
  std::optional<std::vector<int64_t>> axes;
  bool keepdims = false;  // sum/mean/max/min, argmax/argmin
  DataType outDtype;      // matmul (void: the operands', "void"); astype's dtype
  std::vector<int64_t> inplaceIndices;  // call_tir_inplace, one per output
  // call_tir / call_tir_inplace: `tir_vars=R.shape([m])`, the values passed to the callee's
  // trailing scalar parameters after the outputs (a shape value or a variable of R.Shape
  // struct info; None when the call has none).
  Arg tirVars;
  std::vector<StructInfo> sinfoArgs;    // call_packed / call_pure_packed
  VarPtr calleeVar;                     // Function: the local function called (its R.Callable)
  bool moduleCallee = false;            // Function: `cls.callee(...)`, a Relax function of the
                                        // module (calleeVar, unbound, holds its signature)
  OperatorAttrs attrs;    // conv2d, the pools, clip, strided_slice, layer_norm, split, batch_norm, tile

  // The struct info of the outputs: `tupleOutSinfo`, else `outSinfo` alone.
  std::vector<TensorStructInfo> outputs() const;
  // The value's struct info for a call of outputs (not R.call_packed or a function call): an
  // R.Tuple of `tupleOutSinfo`, else `outSinfo`.
  StructInfo outputSinfo() const;
};

// Void: the empty tuple, R.Tuple, what a call without a result gives (TVM's HasVoidType).
inline bool isVoid(const StructInfo &sinfo) { return sinfo.kind == StructInfo::Kind::Tuple && sinfo.fields.empty(); }
// Does the call give no result: a builtin or packed call of void struct info, a function (a
// prim_func called directly) returning R.Tuple?
bool returnsVoid(const Call &call);

// "R.call_tir", "R.call_packed", ...: how a call of the kind is written, for messages.
std::string callKindName(CallKind kind);

struct IfElse;

// What a variable is bound to: a call; else `alias` itself (`lv = x`), unless one of `tuple`
// (`(a, b)`, `R.tuple(a, b)`), `index` (`alias[index]`, a field of a tuple) or `matchCast`
// (`R.match_cast(alias, sinfo)`, which may define symbolic sizes), `ifElse` (TVM's relax.If:
// `if cond: ... else: ...`, both branches ending in a binding of the variable) or `function` (a
// local `@R.function def inner(...)`, bound to a variable of its name) is set.
struct Binding {
  VarPtr var;
  std::optional<Call> call;
  Arg alias;
  std::optional<std::vector<Arg>> tuple;
  std::optional<int64_t> index;
  std::optional<StructInfo> matchCast;
  std::shared_ptr<const IfElse> ifElse;
  FunctionRef function;  // a RelaxFunction
  SourceLoc loc;

  bool isAlias() const { return !call && !tuple && !index && !matchCast && !ifElse && !function; }
};

struct BindingBlock {
  bool dataflow = true;
  std::vector<Binding> bindings;
  SourceLoc loc;
};

// A branch of an `if` (TVM's SeqExpr): its bindings, then the value the branch yields (a
// variable, a constant or a tuple; a call there is bound to a fresh variable first, as TVM's
// normalizer does).
struct IfBranch {
  std::vector<BindingBlock> blocks;
  Arg result;
  SourceLoc loc;  // of the branch's last binding, which names the If's variable
};

// `if cond:` on a bool scalar (`R.Tensor((), "bool")` or `R.Prim("bool")`); the bound variable's
// struct info is the least upper bound of the branches' (TVM's StructInfoLCA).
struct IfElse {
  Arg condition;
  IfBranch thenBranch, elseBranch;
};

// Every binding of `blocks` in order, those in if branches and local functions included (after
// the binding that holds them).
void forEachBinding(const std::vector<BindingBlock> &blocks, const std::function<void(const Binding &)> &visit);
// Every variable `arg` reads: its variable, or those of its tuple's fields.
void forEachVarRead(const Arg &arg, const std::function<void(const VarPtr &)> &visit);

}  // namespace relax

class RelaxFunction : public Function {
public:
  std::vector<relax::VarPtr> params;
  // Symbolic sizes (int64 TIR Vars) in order of declaration.
  std::vector<VarRef> symbolicVars;
  std::vector<relax::BindingBlock> blocks;
  // What `return` returns: one value, or several when `resultIsTuple` (`return (a, b)`).
  std::vector<relax::Arg> results;
  bool resultIsTuple = false;
  relax::StructInfo retSinfo;  // an R.Tuple when `resultIsTuple`
  bool isPure = true;          // false: `@R.function(pure=False)`, which may call impure builtins

  RelaxFunction(std::vector<relax::VarPtr> params, std::vector<VarRef> symbolicVars,
                std::vector<relax::BindingBlock> blocks, std::vector<relax::Arg> results,
                bool resultIsTuple, relax::StructInfo retSinfo, AttrMap attrs = {},
                SourceLoc loc = {})
      : Function(NodeKind::RelaxFunction, std::move(attrs), loc), params(std::move(params)),
        symbolicVars(std::move(symbolicVars)), blocks(std::move(blocks)),
        results(std::move(results)), resultIsTuple(resultIsTuple), retSinfo(std::move(retSinfo)) {}
  static bool classof(NodeKind k) { return k == NodeKind::RelaxFunction; }
};
using RelaxFunctionRef = Ref<RelaxFunction>;

// The RelaxFunction a module entry holds, or null.
const RelaxFunction *asRelaxFunction(const FunctionRef &function);
bool moduleHasRelaxFunction(const IRModule &module);
// Does the function print anything from `T.` (symbolic sizes)? (The module printer's header.)
bool relaxFunctionUsesTir(const RelaxFunction &func);

namespace relax {

// ---- Symbolic shapes -------------------------------------------------------------------------

// Values of symbolic sizes, by variable.
using ShapeBindings = std::unordered_map<VarRef, int64_t>;

// The value of a dimension given the bindings; nullopt when it uses an unbound variable or is
// not an integer expression.
std::optional<int64_t> evaluateDim(const Expr &dim, const ShapeBindings &bindings);

// Why `dim` is no size (for a message): a variable no binding gives ("'m' is not known from the
// inputs"), arithmetic that overflows or divides by zero, or its value ("it is -3").
std::string whyNoSize(const Expr &dim, const ShapeBindings &bindings);

// Matches a concrete shape against declared struct info: binds unbound symbolic variables that
// appear as whole dimensions, and checks every other dimension. On a mismatch returns a message
// such as "dimension 1 is 10 but 'n' is 128 (from an earlier binding)".
std::optional<std::string> unifyShape(const TensorStructInfo &declared,
                                      llvm::ArrayRef<int64_t> actual, ShapeBindings &bindings);

// Why struct info `actual` cannot be used where `declared` is expected, or nullopt: element
// types or ranks differ, or a dimension differs (two different constants, or two different
// symbolic sizes). A constant against a symbolic size is not a conflict here; shapes are
// checked again when the graph runs.
std::optional<std::string> structInfoConflict(const TensorStructInfo &declared,
                                              const TensorStructInfo &actual);
// The same for any struct info: kinds differ (R.Object accepts every kind), tuples differ in
// length or a field, shapes in rank or a value, scalars in type; functions are not compared.
std::optional<std::string> structInfoConflict(const StructInfo &declared, const StructInfo &actual);
// The struct info a value of `a` or `b` has (TVM's StructInfoLCA, for the result of an `if`):
// equal parts are kept, a shape that differs becomes the rank (`R.Tensor(ndim=2)`), a differing
// dtype or rank unknown; values of different kinds are R.Object.
StructInfo structInfoUnion(const StructInfo &a, const StructInfo &b);
// Whether two dimensions are certainly different (see structInfoConflict).
bool dimsConflict(const Expr &a, const Expr &b);
// "1", "n", "n * 2": a dimension as printed in a Relax body.
std::string printDim(const Expr &dim);

// The struct info with every bound symbolic variable replaced by its value.
TensorStructInfo substitute(const TensorStructInfo &sinfo, const ShapeBindings &bindings);
StructInfo substitute(const StructInfo &sinfo, const ShapeBindings &bindings);

// What `vtac run` and `vtac compile` cannot execute yet, as a located error: the first
// parameter, binding or result that is not a tensor or a tuple of tensors kept as its
// fields' tensors (a call of several outputs, a tuple written out, an
// alias of one, their fields `t[i]`, a returned one) ("the graph executor supports tensors
// only: 'x' is R.Tuple(...)", at its definition), or the first binding that is neither a call
// nor an alias of a tensor nor an if/else (a field of another tuple, R.match_cast: "... does
// not support R.match_cast yet", at the binding; an if's branches are checked as the
// function's blocks) or a high-level operator (at its name: legalize-ops first); nullopt when
// the graph runs.
struct RelaxDiagnostic {
  SourceLoc loc;
  std::string message;
};
// `graphExecutor`: the caller is the graph executor, which also runs tir_vars, R.call_tir_inplace and
// local functions called directly (inlined: tensor parameters, no symbolic sizes of their own;
// their bodies are checked as the function's).
std::optional<RelaxDiagnostic> firstUnsupported(const RelaxFunction &func, llvm::StringRef what, bool graphExecutor = false);

// ---- Printing (TVMScript, as TVM prints Relax) ----------------------------------------------

// "R.Tensor((1, n), dtype=\"float32\")"; dims using a variable in `quoted` print as strings,
// as TVM prints a function's signature.
std::string printStructInfo(const TensorStructInfo &sinfo,
                            const std::vector<VarRef> &quoted = {});
std::string printStructInfo(const StructInfo &sinfo, const std::vector<VarRef> &quoted = {});

struct RelaxPrintState {
  // Constants in order of first printing: their index in metadata["relax.expr.Constant"].
  std::vector<const Constant *> constants;
  size_t constantIndex(const Constant *constant);
};

// Prints `@R.function` + `def name(...)` + body at `indent` spaces. The module printer calls
// this for each Relax function; `state` numbers constants across the module.
void printRelaxFunction(const RelaxFunction &func, llvm::StringRef name, unsigned indent,
                        RelaxPrintState &state, llvm::raw_ostream &os);
// One binding of `func` as the function's printout shows it:
// `lv1 = R.call_tir(cls.add, (x, w), out_sinfo=R.Tensor((1, n), dtype="float32"))`.
std::string printBinding(const RelaxFunction &func, const Binding &binding);
// The comment TVM writes after a module that has constants.
inline constexpr llvm::StringLiteral kMetadataOmittedComment =
    "# Metadata omitted. Use show_meta=True in script() method to show it.";

// ---- Comparison ------------------------------------------------------------------------------

// Same graph, callees, struct info and constants; variables and symbolic sizes are matched by
// position of definition (names and locations are ignored), as for PrimFuncs.
bool structuralEqual(const RelaxFunction &a, const RelaxFunction &b);

// The first difference of two graph functions, for showing it in both sources (`vtac diff`).
struct GraphDifference {
  struct Side {
    // The differing part (an argument, a callee, a struct info), else its binding or function.
    SourceLoc loc;
    // The binding it is in; null for a parameter or the returned value.
    const Binding *binding = nullptr;
    // A binding missing on this side: `binding`, when set, is the one it would follow.
    bool missing = false;
  };
  std::string what;  // e.g. "callees differ (relu0 vs linear0)"
  Side lhs, rhs;
};
std::optional<GraphDifference> findStructuralDifference(const RelaxFunction &a, const RelaxFunction &b);

// ---- Transformations -----------------------------------------------------------------------

// relax.transform.BindParams: replaces each parameter whose name is in `params` by a constant
// holding that data, binds the symbolic sizes the data determines, and substitutes them in
// every struct info of the function. Returns null and sets `diagnostic` when a tensor's dtype
// or shape conflicts with its parameter's annotation (located at the annotation).
RelaxFunctionRef
bindParams(const RelaxFunction &func,
           const std::vector<std::pair<std::string, std::shared_ptr<const TensorData>>> &params,
           RelaxDiagnostic &diagnostic);

}  // namespace relax
}  // namespace vtac::ir
