// The canonical TVMScript printer. It follows TVM's printer (src/script/printer/tir): the same
// syntax sugar (T.grid, T.axis.remap, T.Buffer parameters, concise scoping of the last
// statement of a body), the same naming (x, x_1, ... unique among the names in scope) and the
// same placement of declarations for variables and buffers nothing defines (at the innermost
// scope enclosing all their uses). Deliberate differences, so that everything printed parses
// back with vtac's frontend: attributes are printed as they are (global_symbol included; a
// private function is `@T.prim_func(private=True)`), an AttrStmt is `T.attr(...)` unless it
// launches a thread over [0, n) (then T.launch_thread, in TVM's three forms), new stride
// variables are declared on their own line (`s = T.int32()`), ramps print as `T.Ramp(...)`,
// loop bounds are printed before the loop's own variables are named, and comparisons nested in
// comparisons are parenthesized.
#include "vtac/ir/Printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "UseScopes.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Builtins.h"
#include "vtac/ir/CommReducer.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"

namespace vtac::ir {
namespace {

using detail::UseScopes;

// One printed statement: its line and, for compound statements, the lines indented under it.
struct DocLine {
  std::string text;
  std::vector<DocLine> body;
  bool compound = false;
};
using DocLines = std::vector<DocLine>;

DocLine simpleLine(std::string text) { return DocLine{std::move(text), {}, false}; }
DocLine compoundLine(std::string text, DocLines body) { return DocLine{std::move(text), std::move(body), true}; }

void renderLines(const DocLines &lines, int indent, llvm::raw_ostream &os) {
  for (const DocLine &line : lines) {
    os.indent(indent) << line.text << '\n';
    if (!line.compound) continue;
    if (line.body.empty()) os.indent(indent + 4) << "pass\n";
    else renderLines(line.body, indent + 4, os);
  }
}

// Python operator precedence, as TVM's doc printer ranks it.
enum Precedence : int {
  kPrecOr = 3,
  kPrecAnd = 4,
  kPrecNot = 5,
  kPrecCompare = 6,
  kPrecAdd = 11,
  kPrecMul = 12,
  kPrecAtom = 15,
};

void appendEscaped(std::string &out, llvm::StringRef text) {
  out += '"';
  for (char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

std::string quoted(llvm::StringRef text) {
  std::string out;
  appendEscaped(out, text);
  return out;
}

}  // namespace

void appendFloat(std::string &out, double value) {
  char buf[512];
  if (std::isinf(value) || std::isnan(value)) {
    out += std::isnan(value) ? "\"nan\"" : (value > 0 ? "\"inf\"" : "\"-inf\"");
    return;
  }
  if (std::nearbyint(value) == value) std::snprintf(buf, sizeof buf, "%.1f", value);
  else std::snprintf(buf, sizeof buf, "%.17g", value);
  out += buf;
}

namespace {

const char *sugarToken(NodeKind kind) {
  switch (kind) {
  case NodeKind::Add: return "+";
  case NodeKind::Sub: return "-";
  case NodeKind::Mul: return "*";
  case NodeKind::Div: return "/";
  case NodeKind::FloorDiv: return "//";
  case NodeKind::FloorMod: return "%";
  case NodeKind::EQ: return "==";
  case NodeKind::NE: return "!=";
  case NodeKind::LT: return "<";
  case NodeKind::LE: return "<=";
  case NodeKind::GT: return ">";
  case NodeKind::GE: return ">=";
  case NodeKind::And: return "and";
  case NodeKind::Or: return "or";
  default: return nullptr;
  }
}

const char *binaryCallName(NodeKind kind) {
  switch (kind) {
  case NodeKind::Add: return "T.Add";
  case NodeKind::Sub: return "T.Sub";
  case NodeKind::Mul: return "T.Mul";
  case NodeKind::Div: return "T.Div";
  case NodeKind::Mod: return "T.truncmod";
  case NodeKind::FloorDiv: return "T.FloorDiv";
  case NodeKind::FloorMod: return "T.FloorMod";
  case NodeKind::Min: return "T.min";
  case NodeKind::Max: return "T.max";
  case NodeKind::EQ: return "T.EQ";
  case NodeKind::NE: return "T.NE";
  case NodeKind::LT: return "T.LT";
  case NodeKind::LE: return "T.LE";
  case NodeKind::GT: return "T.GT";
  case NodeKind::GE: return "T.GE";
  case NodeKind::And: return "T.And";
  case NodeKind::Or: return "T.Or";
  default: return "T.Add";
  }
}

int sugarPrecedence(NodeKind kind) {
  switch (kind) {
  case NodeKind::Add:
  case NodeKind::Sub: return kPrecAdd;
  case NodeKind::Mul:
  case NodeKind::Div:
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: return kPrecMul;
  case NodeKind::And: return kPrecAnd;
  case NodeKind::Or: return kPrecOr;
  default: return kPrecCompare;
  }
}

// Whether `a op b` written as a Python operator re-parses into exactly this node: the
// operands already share a dtype and the operator would not fold (see Arith.h).
bool printsAsOperator(const BinaryExpr &op) {
  NodeKind kind = op.kind();
  if (!sugarToken(kind) || !op.a || !op.b) return false;
  if (op.a->dtype != op.b->dtype) return false;
  if (kind == NodeKind::Div && !op.a->dtype.isFloat()) return false;
  if (BinaryExpr::isLogical(kind) && !op.a->dtype.isBool()) return false;
  // The parser refuses an integer `x // 0` as TVM does; the node (T.floordiv(x, 0) in the
  // source, or what simplify folded) prints as its constructor, which it reads as written.
  if (kind != NodeKind::Add && kind != NodeKind::Sub && kind != NodeKind::Mul && !BinaryExpr::isComparison(kind) &&
      !BinaryExpr::isLogical(kind) && op.b->dtype.isIntOrUInt() && isZero(op.b))
    return false;
  return !tryConstFold(kind, op.a, op.b);
}

std::string typeAnnotation(const Var &var) {
  if (var.pointer) {
    std::string out = "T.handle(" + quoted(var.pointer->element.str());
    if (var.pointer->scope != "global") out += ", " + quoted(var.pointer->scope);
    return out + ")";
  }
  return "T." + var.dtype.str();
}

// `T.int32()`, `T.handle("int8", "local.acc_buffer")`: the expression that creates a variable.
std::string varCreation(const Var &var) {
  if (var.pointer) return typeAnnotation(var);
  return "T." + var.dtype.str() + "()";
}

std::string sanitizeName(llvm::StringRef hint) {
  std::string name = hint.str();
  for (char &c : name)
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class ScriptPrinter {
public:
  // Printing a whole function: the caller pushes the function frame.
  std::string exprText(const Expr &e) {
    std::string out;
    printExpr(e, out);
    return out;
  }
  std::string attrMapText(const AttrMap &attrs) {
    std::string out;
    printAttrMap(attrs, out);
    return out;
  }

  DocLines printFunction(const PrimFunc &func, llvm::StringRef name);
  DocLines printStandaloneStmt(const Stmt &stmt);
  void reserveName(const std::string &name) { names_.insert(name); }
  // Free variables and buffers print under their own names, without declarations before.
  void leaveFreeObjectsUndeclared() { declareFreeObjects_ = false; }

private:
  struct Frame {
    const Node *ir;  // the IR node this frame prints; null for a stand-alone statement
    DocLines stmts;
    std::vector<const Node *> defined;
    bool allowConcise = false;
  };

  // Pushes a frame for the lifetime of the guard; names defined in it go out of scope with it.
  class FrameGuard {
  public:
    FrameGuard(ScriptPrinter &p, const Node *ir) : p_(p) {
      p_.frames_.push_back(&frame_);
      frame_.ir = ir;
      if (ir) registered_ = p_.openFrames_.try_emplace(ir, &frame_).second;
    }
    ~FrameGuard() {
      for (const Node *obj : frame_.defined) p_.unbind(obj);
      if (registered_) p_.openFrames_.erase(frame_.ir);
      p_.frames_.pop_back();
    }
    Frame &operator*() { return frame_; }
    Frame *operator->() { return &frame_; }

  private:
    ScriptPrinter &p_;
    Frame frame_;
    bool registered_ = false;
  };

  // How a defined object prints: an identifier, or a field of a buffer (`A.data`).
  struct Binding {
    std::string name;
    const Buffer *owner = nullptr;
  };

  enum class BufferVarDefinition { None, DataPointer, MatchBuffer };

  struct BufferAttrs {
    std::string shape, dtype, data, strides, elemOffset, scope, align, offsetFactor, bufferType,
        axisSeparators;
  };

  // ---- names -----------------------------------------------------------------------------
  bool isDefined(const Node *obj) const { return bindings_.count(obj) != 0; }
  std::string define(const Node *obj, Frame &frame, llvm::StringRef hint);
  void defineField(const Node *obj, Frame &frame, const Buffer *owner, llvm::StringRef field);
  void unbind(const Node *obj);
  void appendBinding(const Node *obj, std::string &out);
  std::string defineVar(const Var &var, Frame &frame) {
    if (isDefined(&var)) return textOf(&var);
    return define(&var, frame, var.name.empty() ? "v" : var.name);
  }
  std::string defineBuffer(const Buffer &buffer, Frame &frame) {
    return define(&buffer, frame, buffer.name.empty() ? "buffer" : buffer.name);
  }
  std::string textOf(const Node *obj) {
    std::string out;
    appendBinding(obj, out);
    return out;
  }
  Frame *frameForFreeObject(const Node *obj);
  Frame *fallbackFrame();

  // ---- expressions -----------------------------------------------------------------------
  void printExpr(const Expr &e, std::string &out);
  void printChild(const Expr &child, int parentPrec, bool parensIfEqual, std::string &out);
  int precedenceOf(const Expr &e) const;
  void printVar(const Var &var, std::string &out);
  void printBufferName(const Buffer &buffer, std::string &out);
  void printIntImm(const IntImm &imm, std::string &out);
  void printCall(const Call &call, std::string &out);
  void printArgs(const std::vector<Expr> &args, std::string &out);
  void printIndices(const std::vector<Expr> &indices, std::string &out);
  void printRegion(const BufferRegion &region, std::string &out);
  void printAttrValue(const AttrValue &value, std::string &out);
  void printAttrMap(const AttrMap &attrs, std::string &out);
  std::string iterVarText(const IterVar &iv);
  std::string reducerText(const CommReducer &reducer);

  // ---- buffers ---------------------------------------------------------------------------
  BufferAttrs bufferAttrs(const Buffer &buffer, Frame &frame, BufferVarDefinition defs);
  std::string bufferDecl(const Buffer &buffer, llvm::StringRef method,
                         const std::vector<std::string> &leadingArgs, Frame &frame,
                         BufferVarDefinition defs);
  std::string bufferAnnotation(const Buffer &buffer, Frame &frame);

  // ---- statements ------------------------------------------------------------------------
  Frame &top() { return *frames_.back(); }
  bool allowConcise() const { return frames_.back()->allowConcise; }
  void printBody(const Stmt &stmt, Frame &frame);
  DocLines printStmt(const Stmt &stmt);
  DocLines printFor(const For &loop);
  DocLines printLetStmt(const LetStmt &let);
  DocLines printAttrStmt(const AttrStmt &attr);
  std::optional<DocLines> printLaunchThread(const AttrStmt &attr);
  DocLines printAssert(const AssertStmt &stmt);
  DocLines printAllocate(const Allocate &alloc);
  DocLines printDeclBuffer(const DeclBuffer &decl, BufferVarDefinition defs);
  DocLines printIfThenElse(const IfThenElse &stmt);
  DocLines printBlock(const Block &block, const BlockRealize *realize);
  // `lines` = [header] + frame body (concise) or one `with header:` line around it.
  static DocLines conciseOrScope(bool concise, std::string header, std::string scopeHeader,
                                 DocLines body);

  UseScopes uses_;
  bool declareFreeObjects_ = true;
  std::vector<Frame *> frames_;
  std::unordered_map<const Node *, Frame *> openFrames_;  // outermost frame per IR node
  std::unordered_map<const Node *, Binding> bindings_;
  std::unordered_set<std::string> names_;
};

// ---- names ---------------------------------------------------------------------------------

std::string ScriptPrinter::define(const Node *obj, Frame &frame, llvm::StringRef hint) {
  if (isDefined(obj)) return textOf(obj);
  std::string base = sanitizeName(hint);
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  bindings_.emplace(obj, Binding{name, nullptr});
  frame.defined.push_back(obj);
  return name;
}

void ScriptPrinter::defineField(const Node *obj, Frame &frame, const Buffer *owner, llvm::StringRef field) {
  bindings_.emplace(obj, Binding{field.str(), owner});
  frame.defined.push_back(obj);
}

void ScriptPrinter::unbind(const Node *obj) {
  auto it = bindings_.find(obj);
  if (it == bindings_.end()) return;
  if (!it->second.owner) names_.erase(it->second.name);
  bindings_.erase(it);
}

void ScriptPrinter::appendBinding(const Node *obj, std::string &out) {
  const Binding &b = bindings_.at(obj);
  if (b.owner) {
    const Buffer *owner = b.owner;
    std::string field = b.name;  // copied: printing the owner may rehash bindings_
    printBufferName(*owner, out);
    out += field;
    return;
  }
  out += b.name;
}

ScriptPrinter::Frame *ScriptPrinter::fallbackFrame() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (!(*it)->ir) return *it;
  return nullptr;
}

ScriptPrinter::Frame *ScriptPrinter::frameForFreeObject(const Node *obj) {
  if (!declareFreeObjects_) return nullptr;
  for (int scope = uses_.commonScope(obj); scope >= 0; scope = uses_.parentScope(scope)) {
    const Node *node = uses_.scopeNode(scope);
    if (!node) continue;
    auto it = openFrames_.find(node);
    if (it != openFrames_.end()) return it->second;
  }
  return uses_.commonScope(obj) >= 0 ? fallbackFrame() : nullptr;
}

// ---- expressions ---------------------------------------------------------------------------

int ScriptPrinter::precedenceOf(const Expr &e) const {
  if (!e) return kPrecAtom;
  if (const auto *bin = e.as<BinaryExpr>()) return printsAsOperator(*bin) ? sugarPrecedence(bin->kind()) : kPrecAtom;
  if (const auto *n = e.as<Not>()) return n->a.isa<IntImm>() || n->a.isa<FloatImm>() ? kPrecAtom : kPrecNot;
  return kPrecAtom;
}

void ScriptPrinter::printChild(const Expr &child, int parentPrec, bool parensIfEqual, std::string &out) {
  int prec = precedenceOf(child);
  bool chainedCompare = parentPrec == kPrecCompare && prec == kPrecCompare;
  if (prec < parentPrec || (parensIfEqual && prec == parentPrec) || chainedCompare) {
    out += '(';
    printExpr(child, out);
    out += ')';
  } else {
    printExpr(child, out);
  }
}

void ScriptPrinter::printVar(const Var &var, std::string &out) {
  if (!isDefined(&var)) {
    if (Frame *frame = frameForFreeObject(&var)) {
      std::string name = define(&var, *frame, var.name.empty() ? "v" : var.name);
      frame->stmts.push_back(simpleLine(name + " = " + varCreation(var)));
    } else {
      out += var.name;
      return;
    }
  }
  appendBinding(&var, out);
}

void ScriptPrinter::printBufferName(const Buffer &buffer, std::string &out) {
  if (!isDefined(&buffer)) {
    if (Frame *frame = frameForFreeObject(&buffer)) {
      std::string name = defineBuffer(buffer, *frame);
      std::string rhs = bufferDecl(buffer, "Buffer", {}, *frame, BufferVarDefinition::DataPointer);
      frame->stmts.push_back(simpleLine(name + " = " + rhs));
    } else {
      out += buffer.name;
      return;
    }
  }
  appendBinding(&buffer, out);
}

void ScriptPrinter::printIntImm(const IntImm &imm, std::string &out) {
  if (imm.dtype == DataType::int32()) {
    out += std::to_string(imm.value);
  } else if (imm.dtype == DataType::boolTy()) {
    out += imm.value ? "T.bool(True)" : "T.bool(False)";
  } else {
    out += "T." + imm.dtype.str() + "(" + std::to_string(imm.value) + ")";
  }
}

void ScriptPrinter::printArgs(const std::vector<Expr> &args, std::string &out) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    printExpr(args[i], out);
  }
}

void ScriptPrinter::printCall(const Call &call, std::string &out) {
  const BuiltinInfo *info = lookupBuiltin(call.op);
  if (info && info->rule == CallTypeRule::DtypeFirst) {
    out += "T.";
    out += info->scriptName;
    out += "(" + quoted(call.dtype.str());
    if (!call.args.empty()) out += ", ";
  } else if (info && defaultCallType(*info, call.args) == call.dtype) {
    out += "T.";
    out += info->scriptName;
    out += "(";
  } else {
    out += "T.call_intrin(" + quoted(call.dtype.str()) + ", " + quoted(call.op);
    if (!call.args.empty()) out += ", ";
  }
  printArgs(call.args, out);
  out += ")";
}

void ScriptPrinter::printIndices(const std::vector<Expr> &indices, std::string &out) {
  if (indices.empty()) {
    out += "[()]";
    return;
  }
  out += '[';
  printArgs(indices, out);
  out += ']';
}

void ScriptPrinter::printRegion(const BufferRegion &region, std::string &out) {
  printBufferName(*region.buffer, out);
  if (region.region.empty()) {
    out += "[()]";
    return;
  }
  out += '[';
  for (size_t i = 0; i < region.region.size(); ++i) {
    if (i) out += ", ";
    const Range &r = region.region[i];
    printExpr(r.min, out);
    if (!isOne(r.extent)) {
      out += ':';
      printExpr(addExpr(r.min, r.extent), out);
    }
  }
  out += ']';
}

void ScriptPrinter::printExpr(const Expr &expr, std::string &out) {
  // Ill-formed trees (a pass that left a field empty) still print, for debugging.
  if (!expr) {
    out += "None";
    return;
  }
  const ExprNode &e = *expr;
  switch (e.kind()) {
  case NodeKind::IntImm: printIntImm(static_cast<const IntImm &>(e), out); return;
  case NodeKind::FloatImm:
    out += "T." + e.dtype.str() + "(";
    appendFloat(out, static_cast<const FloatImm &>(e).value);
    out += ")";
    return;
  case NodeKind::StringImm: appendEscaped(out, static_cast<const StringImm &>(e).value); return;
  case NodeKind::Var: printVar(static_cast<const Var &>(e), out); return;
  case NodeKind::Cast:
    out += "T.Cast(" + quoted(e.dtype.str()) + ", ";
    printExpr(static_cast<const Cast &>(e).value, out);
    out += ")";
    return;
  case NodeKind::Not: {
    const auto &n = static_cast<const Not &>(e);
    if (precedenceOf(expr) == kPrecAtom) {
      out += "T.Not(";
      printExpr(n.a, out);
      out += ")";
    } else {
      out += "not ";
      printChild(n.a, kPrecNot, false, out);
    }
    return;
  }
  case NodeKind::Select: {
    const auto &s = static_cast<const Select &>(e);
    out += "T.Select(";
    printArgs({s.condition, s.trueValue, s.falseValue}, out);
    out += ")";
    return;
  }
  case NodeKind::BufferLoad: {
    const auto &load = static_cast<const BufferLoad &>(e);
    printBufferName(*load.buffer, out);
    printIndices(load.indices, out);
    return;
  }
  case NodeKind::Call: printCall(static_cast<const Call &>(e), out); return;
  case NodeKind::Let: {
    const auto &let = static_cast<const Let &>(e);
    out += "T.Let(";
    printExpr(let.body, out);
    out += ", where={";
    if (!isDefined(let.var.get()) && !frames_.empty()) defineVar(*let.var, top());
    if (isDefined(let.var.get())) appendBinding(let.var.get(), out);
    else out += let.var->name;
    out += ": ";
    printExpr(let.value, out);
    out += "})";
    return;
  }
  case NodeKind::Ramp: {
    const auto &ramp = static_cast<const Ramp &>(e);
    out += "T.Ramp(";
    printExpr(ramp.base, out);
    out += ", ";
    printExpr(ramp.stride, out);
    out += ", " + std::to_string(ramp.lanes) + ")";
    return;
  }
  case NodeKind::Broadcast: {
    const auto &bc = static_cast<const Broadcast &>(e);
    out += "T.Broadcast(";
    printExpr(bc.value, out);
    out += ", " + std::to_string(bc.lanes) + ")";
    return;
  }
  default: {
    const auto &bin = static_cast<const BinaryExpr &>(e);
    if (printsAsOperator(bin)) {
      int prec = sugarPrecedence(bin.kind());
      printChild(bin.a, prec, false, out);
      out += ' ';
      out += sugarToken(bin.kind());
      out += ' ';
      printChild(bin.b, prec, true, out);
    } else {
      out += binaryCallName(bin.kind());
      out += '(';
      printExpr(bin.a, out);
      out += ", ";
      printExpr(bin.b, out);
      out += ')';
    }
    return;
  }
  }
}

void ScriptPrinter::printAttrMap(const AttrMap &attrs, std::string &out) {
  out += '{';
  bool first = true;
  for (const auto &[key, value] : attrs) {
    if (!first) out += ", ";
    first = false;
    appendEscaped(out, key);
    out += ": ";
    printAttrValue(value, out);
  }
  out += '}';
}

void ScriptPrinter::printAttrValue(const AttrValue &value, std::string &out) {
  if (value.isNone()) out += "None";
  else if (value.isBool()) out += value.asBool() ? "True" : "False";
  else if (value.isInt()) out += std::to_string(value.asInt());
  else if (value.isFloat()) appendFloat(out, value.asFloat());
  else if (value.isString()) appendEscaped(out, value.asString());
  else if (value.isExpr()) printExpr(value.asExpr(), out);
  else if (value.isMap()) printAttrMap(value.asMap(), out);
  else {
    out += '[';
    const auto &array = value.asArray();
    for (size_t i = 0; i < array.size(); ++i) {
      if (i) out += ", ";
      printAttrValue(array[i], out);
    }
    out += ']';
  }
}

std::string ScriptPrinter::iterVarText(const IterVar &iv) {
  std::string out = "T.iter_var(";
  printExpr(iv.var, out);
  out += ", ";
  if (iv.dom.defined()) {
    out += "T.Range(";
    printExpr(iv.dom.min, out);
    out += ", ";
    printExpr(addExpr(iv.dom.extent, iv.dom.min), out);
    out += ")";
  } else {
    out += "None";
  }
  out += ", " + quoted(iterTypeName(iv.iterType)) + ", " + quoted(iv.threadTag) + ")";
  return out;
}

// `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`, several results as a tuple. The
// parameters (lhs, then rhs) are named in a frame of their own, as TVM's printer does, so the
// names are free again after the reducer.
std::string ScriptPrinter::reducerText(const CommReducer &reducer) {
  FrameGuard frame(*this, &reducer);
  std::string out = "T.comm_reducer(lambda ";
  const char *separator = "";
  for (const std::vector<VarRef> *parameters : {&reducer.lhs, &reducer.rhs})
    for (const VarRef &var : *parameters) {
      out += separator + defineVar(*var, *frame);
      separator = ", ";
    }
  out += ": ";
  bool tuple = reducer.result.size() != 1;
  if (tuple) out += "(";
  printArgs(reducer.result, out);
  if (tuple) out += ")";
  out += ", [";
  printArgs(reducer.identity, out);
  out += "])";
  return out;
}

// ---- buffers -------------------------------------------------------------------------------

ScriptPrinter::BufferAttrs ScriptPrinter::bufferAttrs(const Buffer &buffer, Frame &frame,
                                                      BufferVarDefinition defs) {
  // How often each variable occurs in the buffer's own fields: a new variable occurring once
  // is declared by the buffer itself (`A.data`), others on a line of their own.
  std::unordered_map<const Var *, int> useCount;
  std::vector<Expr> fields = buffer.shape;
  fields.insert(fields.end(), buffer.strides.begin(), buffer.strides.end());
  fields.push_back(buffer.data);
  if (buffer.elemOffset) fields.push_back(buffer.elemOffset);
  for (const Expr &f : fields) {
    std::vector<const ExprNode *> work{f.get()};
    while (!work.empty()) {
      const ExprNode *e = work.back();
      work.pop_back();
      if (!e) continue;
      if (const auto *v = e->as<Var>()) ++useCount[v];
      else if (const auto *bin = e->as<BinaryExpr>()) work.insert(work.end(), {bin->a.get(), bin->b.get()});
      else if (const auto *c = e->as<Cast>()) work.push_back(c->value.get());
      else if (const auto *call = e->as<Call>())
        for (const Expr &a : call->args) work.push_back(a.get());
    }
  }
  auto newVar = [&](const Expr &e) -> const Var * {
    const auto *v = e.as<Var>();
    return v && !isDefined(v) ? v : nullptr;
  };
  std::vector<std::string> declaredNames, declaredCreations;
  auto declareOutOfLine = [&](const Var &v) {
    declaredNames.push_back(defineVar(v, frame));
    declaredCreations.push_back(varCreation(v));
  };
  auto tryDeclareInline = [&](const Var &v, llvm::StringRef field) {
    if (useCount[&v] == 1) {
      defineField(&v, frame, &buffer, field);
      return true;
    }
    declareOutOfLine(v);
    return false;
  };

  // `(a, b)` / `(a,)`; new variables in it are declared on their own line first.
  auto tuple = [&](const std::vector<Expr> &exprs) {
    std::string text = "(";
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (const Var *v = newVar(exprs[i])) declareOutOfLine(*v);
      if (i) text += ", ";
      printExpr(exprs[i], text);
    }
    return text + (exprs.size() == 1 ? ",)" : ")");
  };

  BufferAttrs attrs;
  attrs.shape = tuple(buffer.shape);
  if (buffer.dtype != DataType::float32()) attrs.dtype = quoted(buffer.dtype.str());

  bool dataInline = false;
  if (const Var *data = newVar(buffer.data)) {
    if (defs != BufferVarDefinition::None) dataInline = tryDeclareInline(*data, ".data");
    else declareOutOfLine(*data);
  }
  if (!dataInline) printExpr(buffer.data, attrs.data);

  if (!buffer.strides.empty()) attrs.strides = tuple(buffer.strides);

  bool needsFactor = false;
  if (buffer.elemOffset) {
    if (const Var *v = newVar(buffer.elemOffset)) {
      needsFactor = true;
      if (!tryDeclareInline(*v, ".elem_offset")) printExpr(buffer.elemOffset, attrs.elemOffset);
    } else {
      printExpr(buffer.elemOffset, attrs.elemOffset);
    }
  }
  if (buffer.scope() != "global") attrs.scope = quoted(buffer.scope());
  if (buffer.dataAlignment != Buffer::kDefaultAlignment) attrs.align = std::to_string(buffer.dataAlignment);
  if (needsFactor || buffer.offsetFactor != 1) attrs.offsetFactor = std::to_string(buffer.offsetFactor);
  if (buffer.autoBroadcast) attrs.bufferType = quoted("auto");
  if (!buffer.axisSeparators.empty()) {
    attrs.axisSeparators = "[";
    for (size_t i = 0; i < buffer.axisSeparators.size(); ++i)
      attrs.axisSeparators += (i ? ", " : "") + std::to_string(buffer.axisSeparators[i]);
    attrs.axisSeparators += "]";
  }

  if (declaredNames.size() == 1) {
    frame.stmts.push_back(simpleLine(declaredNames[0] + " = " + declaredCreations[0]));
  } else if (declaredNames.size() > 1) {
    std::string lhs, rhs;
    for (size_t i = 0; i < declaredNames.size(); ++i) {
      lhs += (i ? ", " : "") + declaredNames[i];
      rhs += (i ? ", " : "") + declaredCreations[i];
    }
    frame.stmts.push_back(simpleLine(lhs + " = " + rhs));
  }
  return attrs;
}

std::string ScriptPrinter::bufferDecl(const Buffer &buffer, llvm::StringRef method,
                                      const std::vector<std::string> &leadingArgs, Frame &frame,
                                      BufferVarDefinition defs) {
  BufferAttrs attrs = bufferAttrs(buffer, frame, defs);
  std::string out = "T." + method.str() + "(";
  bool first = true;
  auto arg = [&](const std::string &text, const char *keyword) {
    if (text.empty()) return;
    if (!first) out += ", ";
    first = false;
    if (keyword) out += std::string(keyword) + "=";
    out += text;
  };
  for (const std::string &a : leadingArgs) arg(a, nullptr);
  arg(attrs.shape, nullptr);
  arg(attrs.dtype, nullptr);
  arg(attrs.data, "data");
  arg(attrs.strides, "strides");
  arg(attrs.elemOffset, "elem_offset");
  arg(attrs.scope, "scope");
  arg(attrs.align, "align");
  arg(attrs.offsetFactor, "offset_factor");
  arg(attrs.bufferType, "buffer_type");
  arg(attrs.axisSeparators, "axis_separators");
  return out + ")";
}

std::string ScriptPrinter::bufferAnnotation(const Buffer &buffer, Frame &frame) {
  BufferAttrs attrs = bufferAttrs(buffer, frame, BufferVarDefinition::DataPointer);
  std::string dtype = attrs.dtype.empty() ? quoted(buffer.dtype.str()) : attrs.dtype;
  return "T.Buffer(" + attrs.shape + ", " + dtype + ")";
}

// ---- statements ----------------------------------------------------------------------------

DocLines ScriptPrinter::conciseOrScope(bool concise, std::string header, std::string scopeHeader,
                                       DocLines body) {
  if (concise) {
    body.insert(body.begin(), simpleLine(std::move(header)));
    return body;
  }
  DocLines out;
  out.push_back(compoundLine(std::move(scopeHeader), std::move(body)));
  return out;
}

void ScriptPrinter::printBody(const Stmt &stmt, Frame &frame) {
  auto append = [&](DocLines lines) {
    for (DocLine &l : lines) frame.stmts.push_back(std::move(l));
  };
  if (const auto *seqStmt = stmt.as<SeqStmt>()) {
    size_t n = seqStmt->stmts.size();
    for (size_t i = 0; i < n; ++i) {
      frame.allowConcise = i + 1 == n;
      append(printStmt(seqStmt->stmts[i]));
    }
    return;
  }
  frame.allowConcise = true;
  append(printStmt(stmt));
}

DocLines ScriptPrinter::printStmt(const Stmt &stmt) {
  if (!stmt) return {};
  const StmtNode &s = *stmt;
  switch (s.kind()) {
  case NodeKind::BufferStore: {
    const auto &store = static_cast<const BufferStore &>(s);
    std::string lhs;
    printBufferName(*store.buffer, lhs);
    std::string value;
    printExpr(store.value, value);
    printIndices(store.indices, lhs);
    return {simpleLine(lhs + " = " + value)};
  }
  case NodeKind::Evaluate: {
    const auto &eval = static_cast<const Evaluate &>(s);
    std::string text = exprText(eval.value);
    if (!eval.value.isa<Call>()) text = "T.evaluate(" + text + ")";
    return {simpleLine(std::move(text))};
  }
  case NodeKind::LetStmt: return printLetStmt(static_cast<const LetStmt &>(s));
  case NodeKind::AttrStmt: return printAttrStmt(static_cast<const AttrStmt &>(s));
  case NodeKind::AssertStmt: return printAssert(static_cast<const AssertStmt &>(s));
  case NodeKind::For: return printFor(static_cast<const For &>(s));
  case NodeKind::While: {
    const auto &loop = static_cast<const While &>(s);
    std::string header = "while " + exprText(loop.condition) + ":";
    FrameGuard frame(*this, &s);
    printBody(loop.body, *frame);
    return {compoundLine(std::move(header), std::move(frame->stmts))};
  }
  case NodeKind::IfThenElse: return printIfThenElse(static_cast<const IfThenElse &>(s));
  case NodeKind::SeqStmt: {
    FrameGuard frame(*this, &s);
    printBody(stmt, *frame);
    return std::move(frame->stmts);
  }
  case NodeKind::Allocate: return printAllocate(static_cast<const Allocate &>(s));
  case NodeKind::DeclBuffer:
    return printDeclBuffer(static_cast<const DeclBuffer &>(s), BufferVarDefinition::None);
  case NodeKind::Block: return printBlock(static_cast<const Block &>(s), nullptr);
  case NodeKind::BlockRealize: {
    const auto &realize = static_cast<const BlockRealize &>(s);
    return printBlock(*realize.block, &realize);
  }
  default: return {simpleLine("# unprintable statement")};
  }
}

DocLines ScriptPrinter::printFor(const For &loop) {
  // Perfect nests of plain serial loops from 0 print as one `T.grid`.
  std::vector<const For *> grid;
  std::unordered_set<const Var *> gridVars;
  auto usesGridVar = [&](const Expr &e) {
    bool found = false;
    std::vector<const ExprNode *> work{e.get()};
    while (!work.empty() && !found) {
      const ExprNode *n = work.back();
      work.pop_back();
      if (!n) continue;
      if (const auto *v = n->as<Var>()) found = gridVars.count(v) != 0;
      else if (const auto *bin = n->as<BinaryExpr>()) work.insert(work.end(), {bin->a.get(), bin->b.get()});
      else if (const auto *c = n->as<Cast>()) work.push_back(c->value.get());
      else if (const auto *call = n->as<Call>())
        for (const Expr &a : call->args) work.push_back(a.get());
      else if (const auto *load = n->as<BufferLoad>())
        for (const Expr &a : load->indices) work.push_back(a.get());
    }
    return found;
  };
  for (const For *l = &loop; l; l = l->body.as<For>()) {
    if (l->forKind != ForKind::Serial || !isZero(l->min) || !l->annotations.empty() || usesGridVar(l->extent))
      break;
    grid.push_back(l);
    gridVars.insert(l->loopVar.get());
  }

  if (grid.size() > 1) {
    std::string extents;
    for (size_t i = 0; i < grid.size(); ++i) {
      if (i) extents += ", ";
      printExpr(grid[i]->extent, extents);
    }
    FrameGuard frame(*this, &loop);
    std::string vars;
    for (size_t i = 0; i < grid.size(); ++i) {
      if (i) vars += ", ";
      vars += defineVar(*grid[i]->loopVar, *frame);
    }
    printBody(grid.back()->body, *frame);
    return {compoundLine("for " + vars + " in T.grid(" + extents + "):", std::move(frame->stmts))};
  }

  std::string args;
  if (isZero(loop.min) || !loop.min || !loop.extent) {
    printExpr(loop.extent, args);
  } else {
    printExpr(loop.min, args);
    args += ", ";
    printExpr(addExpr(loop.min, loop.extent), args);
  }
  if (loop.forKind == ForKind::ThreadBinding)
    args += ", thread=" + quoted(loop.threadBinding ? loop.threadBinding->threadTag : "");
  if (!loop.annotations.empty()) {
    args += ", annotations=";
    printAttrMap(loop.annotations, args);
  }
  std::string callee;
  switch (loop.forKind) {
  case ForKind::Serial: callee = loop.annotations.empty() ? "range" : "T.serial"; break;
  case ForKind::Parallel: callee = "T.parallel"; break;
  case ForKind::Vectorized: callee = "T.vectorized"; break;
  case ForKind::Unrolled: callee = "T.unroll"; break;
  case ForKind::ThreadBinding: callee = "T.thread_binding"; break;
  }
  FrameGuard frame(*this, &loop);
  std::string var = defineVar(*loop.loopVar, *frame);
  printBody(loop.body, *frame);
  return {compoundLine("for " + var + " in " + callee + "(" + args + "):", std::move(frame->stmts))};
}

DocLines ScriptPrinter::printLetStmt(const LetStmt &let) {
  bool concise = allowConcise();
  std::string type = typeAnnotation(*let.var);
  std::string value = exprText(let.value);
  FrameGuard frame(*this, &let);
  bool alreadyDefined = isDefined(let.var.get());
  std::string var = defineVar(*let.var, *frame);
  printBody(let.body, *frame);
  if (alreadyDefined) {
    return {compoundLine("with T.LetStmt(" + value + ", var=" + var + "):", std::move(frame->stmts))};
  }
  std::string scopeArgs = value + (let.var->pointer ? ", " + type : "");
  return conciseOrScope(concise, var + ": " + type + " = " + value,
                        "with T.LetStmt(" + scopeArgs + ") as " + var + ":", std::move(frame->stmts));
}

// A thread launch: the AttrStmt that T.launch_thread builds (thread_extent or virtual_thread,
// as the tag asks, over an int32 ThreadIndex IterVar with domain [0, n)). As TVM's printer:
// `T.launch_thread(bx, n)` when bx is already named; `bx = T.launch_thread("tag", n)` when every
// use of bx lies inside the launch; otherwise `bx = T.env_thread("tag")` first, where the
// variable's uses meet. Anything else prints as T.attr.
std::optional<DocLines> ScriptPrinter::printLaunchThread(const AttrStmt &attr) {
  const auto *iv = attr.node.as<IterVar>();
  if (!iv || iv->iterType != IterType::ThreadIndex || iv->var->dtype != DataType::int32() ||
      attr.key != threadLaunchKey(iv->threadTag) || !iv->dom.defined() || !isZero(iv->dom.min) ||
      !structuralEqual(iv->dom.extent, attr.value))
    return std::nullopt;
  bool concise = allowConcise();
  const Var &var = *iv->var;
  std::string extent = exprText(attr.value);
  bool usedOnlyInside = false;
  for (int scope = uses_.commonScope(&var); scope >= 0 && !usedOnlyInside; scope = uses_.parentScope(scope))
    usedOnlyInside = uses_.scopeNode(scope) == &attr;
  if (!isDefined(&var) && !usedOnlyInside) {
    Frame *outer = frameForFreeObject(&var);
    Frame &frame = outer ? *outer : top();
    std::string name = define(&var, frame, var.name.empty() ? "v" : var.name);
    frame.stmts.push_back(simpleLine(name + " = T.env_thread(" + quoted(iv->threadTag) + ")"));
  }
  FrameGuard frame(*this, &attr);
  if (isDefined(&var)) {
    std::string call = "T.launch_thread(" + textOf(&var) + ", " + extent + ")";
    printBody(attr.body, *frame);
    return conciseOrScope(concise, call, "with " + call + ":", std::move(frame->stmts));
  }
  std::string name = defineVar(var, *frame);
  std::string call = "T.launch_thread(" + quoted(iv->threadTag) + ", " + extent + ")";
  printBody(attr.body, *frame);
  return conciseOrScope(concise, name + " = " + call, "with " + call + " as " + name + ":",
                        std::move(frame->stmts));
}

DocLines ScriptPrinter::printAttrStmt(const AttrStmt &attr) {
  if (std::optional<DocLines> launch = printLaunchThread(attr)) return std::move(*launch);
  bool concise = allowConcise();
  std::string node;
  if (!attr.node) node = "None";
  else if (const auto *iv = attr.node.as<IterVar>()) node = iterVarText(*iv);
  else if (const auto *buffer = attr.node.as<Buffer>()) printBufferName(*buffer, node);
  else if (const auto *reducer = attr.node.as<CommReducer>()) node = reducerText(*reducer);
  else if (const auto *e = attr.node.as<ExprNode>()) printExpr(Expr(e), node);
  else node = "None";
  std::string call = "T.attr(" + node + ", " + quoted(attr.key) + ", " + exprText(attr.value) + ")";
  FrameGuard frame(*this, &attr);
  printBody(attr.body, *frame);
  return conciseOrScope(concise, call, "with " + call + ":", std::move(frame->stmts));
}

DocLines ScriptPrinter::printAssert(const AssertStmt &stmt) {
  bool concise = allowConcise();
  std::string condition = exprText(stmt.condition), message = exprText(stmt.message);
  FrameGuard frame(*this, &stmt);
  printBody(stmt.body, *frame);
  return conciseOrScope(concise, "assert " + condition + ", " + message,
                        "with T.Assert(" + condition + ", " + message + "):", std::move(frame->stmts));
}

// An Allocate whose body declares exactly the buffer it allocates prints as one
// `B = T.decl_buffer(shape, dtype, scope=...)`.
static bool isAllocateDeclBufferPair(const Allocate &alloc) {
  const auto *decl = alloc.body.as<DeclBuffer>();
  if (!decl) return false;
  const Buffer &buffer = *decl->buffer;
  if (buffer.data != alloc.bufferVar || buffer.dtype != alloc.dtype || alloc.condition ||
      !alloc.annotations.empty() || alloc.extents.size() != buffer.shape.size())
    return false;
  for (size_t i = 0; i < alloc.extents.size(); ++i)
    if (!structuralEqual(alloc.extents[i], buffer.shape[i])) return false;
  return true;
}

// `T.allocate_const`'s arguments: the data as a list of plain literals, dtype, extents.
static std::string constantAllocationArgs(const Allocate &alloc) {
  std::string args = "[";
  const ConstantData &data = *alloc.constantData;
  for (size_t i = 0; i < data.size(); ++i) {
    if (i) args += ", ";
    Expr element = data.element(i);
    if (const auto *f = element.as<FloatImm>()) appendFloat(args, f->value);
    else args += std::to_string(element.as<IntImm>()->value);
  }
  return args + "], " + quoted(alloc.dtype.str()) + ", [";
}

DocLines ScriptPrinter::printAllocate(const Allocate &alloc) {
  bool concise = allowConcise();
  if (!alloc.constantData && isAllocateDeclBufferPair(alloc))
    return printDeclBuffer(*alloc.body.as<DeclBuffer>(), BufferVarDefinition::DataPointer);
  std::string args = alloc.constantData ? constantAllocationArgs(alloc) : "[";
  printArgs(alloc.extents, args);
  args += "]";
  if (!alloc.constantData) args += ", " + quoted(alloc.dtype.str()) + ", " + quoted(alloc.scope());
  if (alloc.condition) args += ", " + exprText(alloc.condition);
  if (!alloc.annotations.empty()) {
    args += ", annotations=";
    printAttrMap(alloc.annotations, args);
  }
  // TVM names the allocation in the enclosing frame.
  std::string var = defineVar(*alloc.bufferVar, top());
  std::string call = std::string(alloc.constantData ? "T.allocate_const(" : "T.allocate(") + args + ")";
  FrameGuard frame(*this, &alloc);
  printBody(alloc.body, *frame);
  return conciseOrScope(concise, var + " = " + call, "with " + call + " as " + var + ":",
                        std::move(frame->stmts));
}

DocLines ScriptPrinter::printDeclBuffer(const DeclBuffer &decl, BufferVarDefinition defs) {
  bool concise = allowConcise();
  std::string call = bufferDecl(*decl.buffer, "decl_buffer", {}, top(), defs);
  FrameGuard frame(*this, &decl);
  std::string name = defineBuffer(*decl.buffer, *frame);
  printBody(decl.body, *frame);
  return conciseOrScope(concise, name + " = " + call, "with " + call + " as " + name + ":",
                        std::move(frame->stmts));
}

// An else holding just another if prints as `elif`, so a long chain stays flat
// (as it was written) instead of nesting one indentation level per branch.
DocLines ScriptPrinter::printIfThenElse(const IfThenElse &stmt) {
  DocLines out;
  const IfThenElse *branch = &stmt;
  for (const char *keyword = "if "; branch; keyword = "elif ") {
    std::string condition = exprText(branch->condition);
    FrameGuard frame(*this, branch->thenCase.get());
    printBody(branch->thenCase, *frame);
    out.push_back(compoundLine(keyword + condition + ":", std::move(frame->stmts)));
    const Stmt &elseCase = branch->elseCase;
    branch = elseCase ? elseCase.as<IfThenElse>() : nullptr;
    if (elseCase && !branch) {
      FrameGuard elseFrame(*this, elseCase.get());
      printBody(elseCase, *elseFrame);
      out.push_back(compoundLine("else:", std::move(elseFrame->stmts)));
    }
  }
  return out;
}

DocLines ScriptPrinter::printBlock(const Block &block, const BlockRealize *realize) {
  FrameGuard frame(*this, &block);
  // Loop variables of the enclosing loops, for T.axis.remap.
  std::unordered_map<const Var *, const For *> loopVars;
  for (Frame *f : frames_) {
    const auto *loop = f->ir ? f->ir->as<For>() : nullptr;
    for (; loop; loop = loop->body.as<For>()) loopVars.emplace(loop->loopVar.get(), loop);
  }

  std::vector<size_t> remapped;
  auto isRemappable = [&](size_t i) {
    if (!realize) return false;
    const IterVar &iv = *block.iterVars[i];
    if (iv.iterType != IterType::DataPar && iv.iterType != IterType::CommReduce) return false;
    const auto *var = realize->iterValues[i].as<Var>();
    if (!var) return false;
    auto it = loopVars.find(var);
    return it != loopVars.end() && iv.dom.defined() && structuralEqual(it->second->min, iv.dom.min) &&
           structuralEqual(it->second->extent, iv.dom.extent);
  };
  auto printSingle = [&](size_t i) {
    const IterVar &iv = *block.iterVars[i];
    std::string rhs = "T.axis.";
    switch (iv.iterType) {
    case IterType::DataPar: rhs += "spatial"; break;
    case IterType::CommReduce: rhs += "reduce"; break;
    case IterType::Ordered: rhs += "scan"; break;
    default: rhs += "opaque"; break;
    }
    rhs += "(";
    if (!iv.dom.defined()) {
      rhs += "None";
    } else if (isZero(iv.dom.min)) {
      printExpr(iv.dom.extent, rhs);
    } else {
      rhs += "(";
      printExpr(iv.dom.min, rhs);
      rhs += ", ";
      printExpr(addExpr(iv.dom.min, iv.dom.extent), rhs);
      rhs += ")";
    }
    if (realize) {
      rhs += ", ";
      printExpr(realize->iterValues[i], rhs);
    }
    rhs += ")";
    std::string lhs = defineVar(*iv.var, *frame);
    frame->stmts.push_back(simpleLine(lhs + " = " + rhs));
  };
  auto flushRemapped = [&]() {
    if (remapped.empty()) return;
    if (remapped.size() == 1) {
      printSingle(remapped[0]);
      remapped.clear();
      return;
    }
    std::string lhs, kinds, values;
    for (size_t k = 0; k < remapped.size(); ++k) {
      size_t i = remapped[k];
      if (k) {
        lhs += ", ";
        values += ", ";
      }
      lhs += defineVar(*block.iterVars[i]->var, *frame);
      printExpr(realize->iterValues[i], values);
      kinds += block.iterVars[i]->iterType == IterType::DataPar ? 'S' : 'R';
    }
    frame->stmts.push_back(simpleLine(lhs + " = T.axis.remap(" + quoted(kinds) + ", [" + values + "])"));
    remapped.clear();
  };
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    if (isRemappable(i)) {
      remapped.push_back(i);
    } else {
      flushRemapped();
      printSingle(i);
    }
  }
  flushRemapped();

  if (realize && realize->predicate) frame->stmts.push_back(simpleLine("T.where(" + exprText(realize->predicate) + ")"));
  auto regions = [&](const char *callee, const std::vector<BufferRegion> &list) {
    std::string text = callee;
    text += "(";
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) text += ", ";
      printRegion(list[i], text);
    }
    frame->stmts.push_back(simpleLine(text + ")"));
  };
  regions("T.reads", block.reads);
  regions("T.writes", block.writes);
  if (!block.annotations.empty()) {
    std::string text = "T.block_attr(";
    printAttrMap(block.annotations, text);
    frame->stmts.push_back(simpleLine(text + ")"));
  }
  for (const BufferRef &buffer : block.allocBuffers) {
    std::string lhs = defineBuffer(*buffer, *frame);
    std::string rhs = bufferDecl(*buffer, "alloc_buffer", {}, *frame, BufferVarDefinition::DataPointer);
    frame->stmts.push_back(simpleLine(lhs + " = " + rhs));
  }
  for (const MatchBufferRegion &match : block.matchBuffers) {
    std::string lhs = defineBuffer(*match.buffer, *frame);
    std::string source;
    printRegion(match.source, source);
    std::string rhs = bufferDecl(*match.buffer, "match_buffer", {source}, *frame, BufferVarDefinition::MatchBuffer);
    frame->stmts.push_back(simpleLine(lhs + " = " + rhs));
  }
  if (block.init) {
    FrameGuard initFrame(*this, block.init.get());
    printBody(block.init, *initFrame);
    frame->stmts.push_back(compoundLine("with T.init():", std::move(initFrame->stmts)));
  }
  printBody(block.body, *frame);
  std::string header = "with T.block(" + quoted(block.name) + (realize ? "" : ", no_realize=True") + "):";
  return {compoundLine(std::move(header), std::move(frame->stmts))};
}

// ---- functions -----------------------------------------------------------------------------

// TVM's test for a parameter buffer that can be written as `A: T.Buffer(shape, dtype)`.
bool isSimpleBuffer(const Buffer &buffer) {
  if (!buffer.strides.empty()) return false;
  for (const Expr &e : buffer.shape)
    if (!e.isa<IntImm>()) return false;
  if (buffer.elemOffset) return false;
  return buffer.scope() == "global" && buffer.dataAlignment == Buffer::kDefaultAlignment &&
         buffer.offsetFactor == 1 && buffer.axisSeparators.empty() && !buffer.autoBroadcast;
}

// The implicit root block TVM's parser wraps around a function body with blocks; printed as
// the comment `# with T.block("root"):`.
const Block *implicitRootBlock(const PrimFunc &func) {
  const auto *realize = func.body.as<BlockRealize>();
  if (!realize || !realize->iterValues.empty() || realize->predicate) return nullptr;
  const Block &root = *realize->block;
  if (!root.annotations.empty() || !root.matchBuffers.empty() || !root.reads.empty() ||
      !root.writes.empty() || root.init)
    return nullptr;
  if (!root.allocBuffers.empty()) return &root;
  if (const auto *inner = root.body.as<BlockRealize>()) return inner->block->iterVars.empty() ? nullptr : &root;
  bool containsBlock = false;
  preOrderVisit(root.body, [&](const Node &n) { containsBlock |= n.isa<BlockRealize>(); });
  return containsBlock ? &root : nullptr;
}

DocLines ScriptPrinter::printFunction(const PrimFunc &func, llvm::StringRef name) {
  uses_ = UseScopes();
  uses_.analyze(func);
  FrameGuard frame(*this, &func);

  std::unordered_map<const Var *, int> buffersPerDataVar;
  for (const auto &entry : func.bufferMap) ++buffersPerDataVar[entry.second->data.get()];

  std::vector<std::string> params;
  std::unordered_set<const Buffer *> inlined;
  for (const VarRef &param : func.params) {
    BufferRef buffer = func.bufferOf(param);
    // Occurring only as a parameter and as its buffer_map key: the handle is not used.
    if (buffer && uses_.occurrences(param.get()) == 2 && isSimpleBuffer(*buffer) &&
        buffersPerDataVar[buffer->data.get()] == 1) {
      std::string bufferName = defineBuffer(*buffer, *frame);
      params.push_back(bufferName + ": " + bufferAnnotation(*buffer, *frame));
      inlined.insert(buffer.get());
      continue;
    }
    std::string type = typeAnnotation(*param);
    params.push_back(defineVar(*param, *frame) + ": " + type);
  }
  if (!func.attrs.empty()) {
    std::string text = "T.func_attr(";
    printAttrMap(func.attrs, text);
    frame->stmts.push_back(simpleLine(text + ")"));
  }
  for (const VarRef &param : func.params) {
    BufferRef buffer = func.bufferOf(param);
    if (!buffer || inlined.count(buffer.get())) continue;
    std::string paramText = textOf(param.get());
    std::string lhs = defineBuffer(*buffer, *frame);
    std::string rhs = bufferDecl(*buffer, "match_buffer", {paramText}, *frame, BufferVarDefinition::MatchBuffer);
    frame->stmts.push_back(simpleLine(lhs + " = " + rhs));
  }
  if (const Block *root = implicitRootBlock(func)) {
    frame->stmts.push_back(simpleLine("# with T.block(\"root\"):"));
    for (const BufferRef &buffer : root->allocBuffers) {
      std::string lhs = defineBuffer(*buffer, *frame);
      std::string rhs = bufferDecl(*buffer, "alloc_buffer", {}, *frame, BufferVarDefinition::DataPointer);
      frame->stmts.push_back(simpleLine(lhs + " = " + rhs));
    }
    printBody(root->body, *frame);
  } else {
    printBody(func.body, *frame);
  }

  std::string header = "def " + name.str() + "(";
  for (size_t i = 0; i < params.size(); ++i) header += (i ? ", " : "") + params[i];
  header += ")";
  if (!func.retType.isVoid()) header += " -> T." + func.retType.str();
  header += ":";
  DocLines out;
  out.push_back(simpleLine(func.isPrivate ? "@T.prim_func(private=True)" : "@T.prim_func"));
  out.push_back(compoundLine(std::move(header), std::move(frame->stmts)));
  return out;
}

DocLines ScriptPrinter::printStandaloneStmt(const Stmt &stmt) {
  uses_ = UseScopes();
  uses_.analyze(stmt);
  FrameGuard frame(*this, nullptr);
  printBody(stmt, *frame);
  return std::move(frame->stmts);
}

// Names TVMScript itself uses; variables called like that get a suffix.
void reserveBuiltinNames(ScriptPrinter &printer) {
  for (const char *keyword : {"I", "T", "R", "cls"}) printer.reserveName(keyword);
}

const char *kIrHeader = "# from tvm.script import ir as I\n";
const char *kTirHeader = "# from tvm.script import tir as T\n";
const char *kRelaxHeader = "# from tvm.script import relax as R\n";

}  // namespace

void printModule(const IRModule &module, llvm::raw_ostream &os, const PrintOptions &options) {
  // TVM's order: prim_funcs, then Relax functions, each by name; `main` last.
  auto priority = [](const IRModule::Entry *e) {
    if (e->name->name == "main") return 1000;
    return e->function->isa<PrimFunc>() ? 1 : 3;
  };
  std::vector<const IRModule::Entry *> order;
  bool usesTir = false, usesRelax = false;
  for (const auto &entry : module.functions()) {
    if (entry.function->isa<PrimFunc>()) {
      usesTir = true;
    } else if (const RelaxFunction *relax = asRelaxFunction(entry.function)) {
      usesRelax = true;
      usesTir = usesTir || relaxFunctionUsesTir(*relax);
    } else {
      continue;
    }
    order.push_back(&entry);
  }
  std::stable_sort(order.begin(), order.end(), [&](const IRModule::Entry *a, const IRModule::Entry *b) {
    if (priority(a) != priority(b)) return priority(a) < priority(b);
    return a->name->name < b->name->name;
  });
  if (options.headerComments) {
    os << kIrHeader;
    if (usesTir) os << kTirHeader;
    if (usesRelax) os << kRelaxHeader;
    os << "\n";
  }
  os << "@I.ir_module\nclass Module:\n";
  if (!module.attrs.empty()) os << "    I.module_attrs(" << printAttrMap(module.attrs) << ")\n";
  if (!module.vdevices.empty()) os << "    I.module_global_infos(" << printVDevices(module.vdevices) << ")\n";
  if (module.attrs.empty() && module.vdevices.empty() && order.empty()) os << "    pass\n";
  relax::RelaxPrintState relaxState;  // numbers bound constants across the module
  for (size_t i = 0; i < order.size(); ++i) {
    if (i) os << "\n";
    const IRModule::Entry &entry = *order[i];
    if (const RelaxFunction *relax = asRelaxFunction(entry.function)) {
      relax::printRelaxFunction(*relax, entry.name->name, 4, relaxState, os);
      continue;
    }
    ScriptPrinter printer;
    reserveBuiltinNames(printer);
    printer.reserveName("Module");
    renderLines(printer.printFunction(*entry.function->as<PrimFunc>(), entry.name->name), 4, os);
  }
  if (!relaxState.constants.empty()) os << relax::kMetadataOmittedComment << "\n";
}

void printPrimFunc(const PrimFunc &func, llvm::StringRef name, llvm::raw_ostream &os,
                   const PrintOptions &options) {
  if (options.headerComments) os << kTirHeader << "\n";
  ScriptPrinter printer;
  reserveBuiltinNames(printer);
  renderLines(printer.printFunction(func, name), 0, os);
}

std::string printModule(const IRModule &module, const PrintOptions &options) {
  std::string out;
  llvm::raw_string_ostream os(out);
  printModule(module, os, options);
  return os.str();
}

std::string printPrimFunc(const PrimFunc &func, llvm::StringRef name, const PrintOptions &options) {
  std::string out;
  llvm::raw_string_ostream os(out);
  printPrimFunc(func, name, os, options);
  return os.str();
}

std::ostream &operator<<(std::ostream &os, const IRModule &module) { return os << printModule(module); }

std::string printExpr(const Expr &expr) {
  ScriptPrinter printer;
  return printer.exprText(expr);
}

std::string printVDevices(const std::vector<VDevice> &vdevices) {
  std::string text = "{\"vdevice\": [";
  for (size_t i = 0; i < vdevices.size(); ++i)
    text += (i ? ", " : "") + std::string("I.vdevice(\"") + vdevices[i].target + "\", " +
            std::to_string(vdevices[i].id) + ", \"" + vdevices[i].memoryScope + "\")";
  return text + "]}";
}

std::string printAttrMap(const AttrMap &attrs) {
  ScriptPrinter printer;
  return printer.attrMapText(attrs);
}

namespace {

std::string printStandalone(const Stmt &stmt, bool declareFreeObjects) {
  ScriptPrinter printer;
  reserveBuiltinNames(printer);
  if (!declareFreeObjects) printer.leaveFreeObjectsUndeclared();
  std::string out;
  llvm::raw_string_ostream os(out);
  renderLines(printer.printStandaloneStmt(stmt), 0, os);
  return os.str();
}

}  // namespace

std::string printStmt(const Stmt &stmt) { return printStandalone(stmt, /*declareFreeObjects=*/true); }

std::string printStmtFirstLine(const Stmt &stmt) {
  std::string text = printStandalone(stmt, /*declareFreeObjects=*/false);
  return text.substr(0, text.find('\n'));
}

}  // namespace vtac::ir
