#include "vtac/codegen/CEmitter.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "vtac/codegen/CNames.h"
#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Functor.h"

namespace vtac::codegen {

namespace {

using ir::DataType;
using ir::NodeKind;

std::string cString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string intLiteral(int64_t value, DataType dtype) {
  std::string digits = value == INT64_MIN ? "(-9223372036854775807 - 1)" : std::to_string(value);
  if (dtype.bits() == 64) return (dtype.isUInt() ? "UINT64_C(" : "INT64_C(") + digits + ")";
  if (dtype.isUInt() && dtype.bits() == 32) return std::to_string(uint32_t(value)) + "u";
  if (dtype.bits() == 32 && value == INT32_MIN) return "(-2147483647 - 1)";
  if (value < 0) digits = "(" + digits + ")";
  if (dtype.bits() < 32 && !dtype.isBool()) return "((" + cType(dtype) + ")" + digits + ")";
  return digits;
}

// "(a == b)" -> "a == b"; "(a) + (b)" stays as it is.
std::string withoutOuterParens(const std::string &text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) return text;  // the first parenthesis closes before the end
  }
  return text.substr(1, text.size() - 2);
}

std::string floatLiteral(double value, DataType dtype) {
  bool single = dtype.bits() == 32;
  if (std::isnan(value)) return single ? "NAN" : "((double)NAN)";
  if (std::isinf(value)) return std::string(value < 0 ? "-" : "") + (single ? "INFINITY" : "((double)INFINITY)");
  char text[64];
  std::snprintf(text, sizeof text, single ? "%.9g" : "%.17g", value);
  std::string literal = text;
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return single ? literal + "f" : literal;
}

// One function's C text (the entry or a micro-kernel body), written statement by statement.
class FunctionWriter : public ir::ExprFunctor<std::string>, public ir::StmtFunctor<void> {
public:
  FunctionWriter(const HostFunction &function, CNames &names, std::map<std::string, std::string> &helpers)
      : function_(function), names_(names), helpers_(helpers) {}

  llvm::Error takeError() { return std::move(error_); }
  std::string text() const { return out_.str(); }

  // From here on, every runtime call that returns nothing is followed by a check of the
  // runtime's error count. (Not in micro-kernels: the runtime checks what a kernel recorded
  // when its push returns.)
  void checkErrorCount() {
    line("int vtac_errors_at_entry = vtac_error_count();");
    checksErrorCount_ = true;
  }

  void line(const std::string &text) { out_ << std::string(indent_ * 2, ' ') << text << "\n"; }
  void indent() { ++indent_; }
  void dedent() { --indent_; }

  std::string type(DataType dtype, const ir::Node &at) {
    std::string name = cType(dtype);
    if (name.empty()) fail(at, "the C emitter cannot represent values of type " + dtype.str());
    return name;
  }

  // ---- expressions ------------------------------------------------------------------------
  std::string visitIntImm(const ir::IntImm &op) override { return intLiteral(op.value, op.dtype); }
  std::string visitFloatImm(const ir::FloatImm &op) override {
    type(op.dtype, op);
    return floatLiteral(op.value, op.dtype);
  }
  std::string visitStringImm(const ir::StringImm &op) override { return cString(op.value); }
  std::string visitVar(const ir::Var &op) override { return names_(op); }
  std::string visitCast(const ir::Cast &op) override {
    return "((" + type(op.dtype, op) + ")" + visitExpr(op.value) + ")";
  }
  std::string visitNot(const ir::Not &op) override { return "(!" + visitExpr(op.a) + ")"; }
  std::string visitSelect(const ir::Select &op) override {
    return "(" + visitExpr(op.condition) + " ? " + visitExpr(op.trueValue) + " : " + visitExpr(op.falseValue) + ")";
  }
  std::string visitBufferLoad(const ir::BufferLoad &op) override {
    return element(*op.buffer, op.indices, op, true);
  }
  std::string visitLet(const ir::Let &op) override {
    fail(op, "the C emitter does not support let expressions");
    return "0";
  }
  std::string visitRamp(const ir::Ramp &op) override {
    fail(op, "the C emitter does not support vector expressions (T.Ramp)");
    return "0";
  }
  std::string visitBroadcast(const ir::Broadcast &op) override {
    fail(op, "the C emitter does not support vector expressions (T.Broadcast)");
    return "0";
  }

  std::string visitBinary(const ir::BinaryExpr &op) override {
    std::string a = visitExpr(op.a), b = visitExpr(op.b);
    DataType dtype = op.a->dtype;
    std::string t = type(dtype, op);
    bool isFloat = dtype.isFloat();
    auto infix = [&](const char *symbol) { return "(" + a + " " + symbol + " " + b + ")"; };
    // Narrow integers wrap at their width, as the IR's arithmetic does (C promotes to int).
    auto wrapped = [&](const char *symbol) {
      std::string result = infix(symbol);
      return dtype.isIntOrUInt() && dtype.bits() < 32 ? "((" + t + ")" + result + ")" : result;
    };
    switch (op.kind()) {
    case NodeKind::Add: return wrapped("+");
    case NodeKind::Sub: return wrapped("-");
    case NodeKind::Mul: return wrapped("*");
    case NodeKind::Div: return wrapped("/");
    case NodeKind::Mod:
      if (isFloat) return (dtype.bits() == 32 ? "fmodf(" : "fmod(") + a + ", " + b + ")";
      return wrapped("%");
    case NodeKind::FloorDiv:
      if (isFloat) return (dtype.bits() == 32 ? "floorf(" : "floor(") + infix("/") + ")";
      return helper("floordiv", t, dtype.isUInt() ? "return a / b;" : t + " q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;") +
             "(" + a + ", " + b + ")";
    case NodeKind::FloorMod:
      if (isFloat) return "(" + a + " - " + (dtype.bits() == 32 ? "floorf(" : "floor(") + infix("/") + ") * " + b + ")";
      return helper("floormod", t, dtype.isUInt() ? "return a % b;" : t + " r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;") +
             "(" + a + ", " + b + ")";
    case NodeKind::Min: return helper("min", t, "return a < b ? a : b;") + "(" + a + ", " + b + ")";
    case NodeKind::Max: return helper("max", t, "return a > b ? a : b;") + "(" + a + ", " + b + ")";
    case NodeKind::EQ: return infix("==");
    case NodeKind::NE: return infix("!=");
    case NodeKind::LT: return infix("<");
    case NodeKind::LE: return infix("<=");
    case NodeKind::GT: return infix(">");
    case NodeKind::GE: return infix(">=");
    case NodeKind::And: return infix("&&");
    case NodeKind::Or: return infix("||");
    default: fail(op, "unknown binary operator"); return "0";
    }
  }

  std::string visitCall(const ir::Call &op) override {
    const std::string &name = op.op;
    auto arg = [&](size_t i) { return i < op.args.size() ? visitExpr(op.args[i]) : std::string("0"); };
    auto needs = [&](size_t count) {
      if (op.args.size() == count) return true;
      fail(op, "'" + name + "' takes " + std::to_string(count) + " arguments, got " + std::to_string(op.args.size()));
      return false;
    };
    if (name == "tir.call_extern" || name == "tir.call_pure_extern") return externCall(op);
    if (name == hostop::kPushMicroKernel) {
      fail(op, "a micro-kernel push inside an expression");
      return "0";
    }
    if (llvm::StringRef(name).starts_with("vtac.dltensor_")) return tensorField(op);
    if ((name == "tir.likely" || name == "tir.tvm_thread_context") && needs(1)) return arg(0);
    if (name == "tir.if_then_else" && needs(3)) return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
    static const std::map<std::string, const char *> infixOps = {
        {"tir.shift_right", ">>"}, {"tir.shift_left", "<<"}, {"tir.bitwise_and", "&"},
        {"tir.bitwise_or", "|"}, {"tir.bitwise_xor", "^"}};
    if (auto found = infixOps.find(name); found != infixOps.end() && needs(2))
      return "((" + type(op.dtype, op) + ")(" + arg(0) + " " + found->second + " " + arg(1) + "))";
    if (name == "tir.bitwise_not" && needs(1)) return "((" + type(op.dtype, op) + ")~" + arg(0) + ")";
    if (name == "tir.isnullptr" && needs(1)) return "(" + arg(0) + " == NULL)";
    static const char *const mathOps[] = {"exp", "log", "sqrt", "tanh", "sin", "cos", "floor", "ceil",
                                          "round", "trunc", "fabs", "pow", "exp2", "log2", "erf"};
    for (const char *math : mathOps)
      if (name == std::string("tir.") + math) {
        std::string fn = math;
        if (op.dtype == DataType::float32()) fn += "f";
        else if (op.dtype != DataType::floatTy(64)) fail(op, "'" + name + "' of type " + op.dtype.str());
        std::string args;
        for (size_t i = 0; i < op.args.size(); ++i) args += (i ? ", " : "") + arg(i);
        return fn + "(" + args + ")";
      }
    if (name == "tir.abs" && needs(1)) {
      if (op.dtype.isFloat()) return std::string(op.dtype.bits() == 32 ? "fabsf(" : "fabs(") + arg(0) + ")";
      return helper("abs", type(op.dtype, op), "return a < 0 ? -a : a;", 1) + "(" + arg(0) + ")";
    }
    if (name == "tir.sigmoid" && needs(1)) {
      std::string one = op.dtype.bits() == 32 ? "1.0f" : "1.0";
      return "(" + one + " / (" + one + " + " + (op.dtype.bits() == 32 ? "expf(-" : "exp(-") + arg(0) + ")))";
    }
    fail(op, "the C emitter does not know the intrinsic '" + name + "'");
    return "0";
  }

  // ---- statements -------------------------------------------------------------------------
  void visitLetStmt(const ir::LetStmt &op) override {
    line(type(op.var->dtype, op) + spaced(op.var->dtype) + names_(*op.var) + " = " + visitExpr(op.value) + ";");
    visitStmt(op.body);
  }
  void visitAttrStmt(const ir::AttrStmt &op) override {
    auto *iterVar = op.node.as<ir::IterVar>();
    if (iterVar && (op.key == "thread_extent" || op.key == "virtual_thread")) {
      // A launched (virtual) thread runs its body once per index, one after another.
      loop(*iterVar->var, ir::intImm(0, iterVar->var->dtype), op.value, op.body, op.key.c_str());
      return;
    }
    if (op.key == "coproc_scope") {
      static const char *const queues[] = {"", "load", "compute", "store"};
      auto *queue = op.value.as<ir::IntImm>();
      bool named = queue && queue->value >= 1 && queue->value <= 3;
      line("/* VTA " + (named ? std::string(queues[queue->value]) : visitExpr(op.value)) + " queue */");
    }
    visitStmt(op.body);
  }
  void visitAssertStmt(const ir::AssertStmt &op) override {
    auto *message = op.message.as<ir::StringImm>();
    line("if (" + withoutOuterParens(negated(op.condition)) + ")");
    line("  return vtac_fail(" + cString(message ? message->value : "assertion failed") + ");");
    visitStmt(op.body);
  }
  void visitFor(const ir::For &op) override {
    const char *kind = op.forKind == ir::ForKind::Serial ? nullptr : ir::forKindName(op.forKind);
    loop(*op.loopVar, op.min, op.extent, op.body, kind);
  }
  void visitWhile(const ir::While &op) override {
    line("while (" + withoutOuterParens(visitExpr(op.condition)) + ") {");
    block(op.body);
  }
  void visitIfThenElse(const ir::IfThenElse &op) override {
    line("if (" + withoutOuterParens(visitExpr(op.condition)) + ") {");
    indent();
    visitStmt(op.thenCase);
    dedent();
    if (op.elseCase) {
      line("} else {");
      indent();
      visitStmt(op.elseCase);
      dedent();
    }
    line("}");
  }
  void visitSeqStmt(const ir::SeqStmt &op) override {
    for (const ir::Stmt &stmt : op.stmts) visitStmt(stmt);
  }
  void visitEvaluate(const ir::Evaluate &op) override {
    if (op.value.isa<ir::IntImm>()) return;
    auto *call = op.value.as<ir::Call>();
    if (call && call->op == hostop::kPushMicroKernel) return pushKernel(*call);
    std::string text = visitExpr(op.value);
    llvm::StringRef callee = externCallee(op.value);
    if (returnsStatus(callee)) {
      line("if (" + text + " != 0)");
      line("  return " + std::to_string(kStatusRuntimeError) + ";");
      return;
    }
    line(text + ";");
    if (checksErrorCount_ && reportsThroughErrorCount(callee)) {
      line("if (vtac_error_count() > vtac_errors_at_entry)");
      line("  return " + std::to_string(kStatusRuntimeError) + ";");
    }
  }
  void visitAllocate(const ir::Allocate &op) override {
    const std::string &scope = op.scope();
    if (scope != "global" && scope != "local") {
      fail(op, "the C emitter cannot allocate '" + op.bufferVar->name + "' in scope '" + scope + "'");
      return;
    }
    if (op.condition) fail(op, "the C emitter does not support conditional allocations");
    std::string t = type(op.dtype, op);
    std::string count = "(size_t)1";
    for (const ir::Expr &extent : op.extents) count += " * (size_t)" + visitExpr(extent);
    const std::string &name = names_(*op.bufferVar);
    line("void *" + name + " = malloc(" + count + " * sizeof(" + t + "));");
    line("if (" + name + " == NULL)");
    line("  return vtac_fail(" + cString(function_.symbol + ": cannot allocate '" + op.bufferVar->name + "'") + ");");
    visitStmt(op.body);
    line("free(" + name + ");");
  }
  void visitDeclBuffer(const ir::DeclBuffer &op) override { visitStmt(op.body); }
  void visitBufferStore(const ir::BufferStore &op) override {
    line(element(*op.buffer, op.indices, op, false) + " = " + visitExpr(op.value) + ";");
  }
  void visitBlock(const ir::Block &op) override { fail(op, "block '" + op.name + "' is not lowered"); }
  void visitBlockRealize(const ir::BlockRealize &op) override { visitBlock(*op.block); }

  void fail(const ir::Node &at, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(at.loc(), message);
  }

private:
  // The C text of !condition, without a double negation.
  std::string negated(const ir::Expr &condition) {
    if (auto *n = condition.as<ir::Not>()) return visitExpr(n->a);
    auto *binary = condition.as<ir::BinaryExpr>();
    if (binary && (binary->kind() == NodeKind::EQ || binary->kind() == NodeKind::NE))
      return "(" + visitExpr(binary->a) + (binary->kind() == NodeKind::EQ ? " != " : " == ") + visitExpr(binary->b) + ")";
    return "!" + visitExpr(condition);
  }

  static std::string spaced(DataType dtype) { return dtype.isHandle() ? "" : " "; }

  void block(const ir::Stmt &body) {
    indent();
    visitStmt(body);
    dedent();
    line("}");
  }

  void loop(const ir::Var &var, const ir::Expr &min, const ir::Expr &extent, const ir::Stmt &body, const char *kind) {
    std::string t = type(var.dtype, var);
    const std::string &name = names_(var);
    std::string first = visitExpr(min);
    auto *zero = min.as<ir::IntImm>();
    std::string end = zero && zero->value == 0 ? visitExpr(extent) : first + " + " + visitExpr(extent);
    std::string comment = kind ? std::string("  /* ") + kind + " */" : "";
    line("for (" + t + " " + name + " = " + first + "; " + name + " < " + end + "; ++" + name + ") {" + comment);
    block(body);
  }

  // `name(a, b)` of a static inline helper for type `t`, defined once per module.
  std::string helper(const std::string &what, const std::string &t, const std::string &body, int arity = 2) {
    std::string suffix = t;
    for (char &c : suffix)
      if (c == ' ' || c == '*') c = '_';
    std::string name = "vtac_" + what + "_" + suffix;
    if (!helpers_.count(name))
      helpers_[name] = "static inline " + t + " " + name + (arity == 2 ? "(" + t + " a, " + t + " b)" : "(" + t + " a)") +
                       " { " + body + " }";
    return name;
  }

  std::string element(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices, const ir::Node &at, bool load) {
    if (indices.size() != buffer.rank() && buffer.rank() != 0) {
      fail(at, "buffer '" + buffer.name + "' indexed with " + std::to_string(indices.size()) + " indices");
      return "0";
    }
    for (const ir::Expr &index : indices)
      if (!index->dtype.isScalar()) fail(at, "the C emitter does not support vector accesses of '" + buffer.name + "'");
    // Row-major flattening with the buffer's strides when it has them.
    std::string flat;
    for (size_t i = 0; i < indices.size(); ++i) {
      std::string index = "(int64_t)" + visitExpr(indices[i]);
      if (!buffer.strides.empty()) {
        flat += (i ? " + " : "") + index + " * (int64_t)" + visitExpr(buffer.strides[i]);
        continue;
      }
      flat = i == 0 ? index : "(" + flat + ") * (int64_t)" + visitExpr(buffer.shape[i]) + " + " + index;
    }
    if (flat.empty()) flat = "0";
    if (buffer.elemOffset) flat = visitExpr(buffer.elemOffset) + " + " + flat;
    std::string t = type(buffer.dtype, at);
    return "((" + std::string(load ? "const " : "") + t + " *)" + names_(*buffer.data) + ")[" + flat + "]";
  }

  std::string externCall(const ir::Call &op) {
    auto *callee = op.args.empty() ? nullptr : op.args[0].as<ir::StringImm>();
    if (!callee) {
      fail(op, "'" + op.op + "' needs the callee's name as its first argument");
      return "0";
    }
    std::string args;
    for (size_t i = 1; i < op.args.size(); ++i) args += (i > 1 ? ", " : "") + visitExpr(op.args[i]);
    return callee->value + "(" + args + ")";
  }

  std::string tensorField(const ir::Call &op) {
    if (op.args.empty()) {
      fail(op, "'" + op.op + "' needs a tensor");
      return "0";
    }
    std::string t = visitExpr(op.args[0]);
    std::string dim = op.args.size() > 1 ? visitExpr(op.args[1]) : "0";
    static const std::map<std::string, std::string> fields = {
        {hostop::kTensorIsNull, "(@ == NULL)"},
        {hostop::kTensorNdim, "@->ndim"},
        {hostop::kTensorTypeCode, "@->dtype.code"},
        {hostop::kTensorTypeBits, "@->dtype.bits"},
        {hostop::kTensorTypeLanes, "@->dtype.lanes"},
        {hostop::kTensorShape, "@->shape[#]"},
        {hostop::kTensorStride, "@->strides[#]"},
        {hostop::kTensorHasStrides, "(@->strides != NULL)"},
        {hostop::kTensorByteOffset, "(int64_t)@->byte_offset"},
        {hostop::kTensorData, "(void *)((char *)@->data + @->byte_offset)"}};
    auto found = fields.find(op.op);
    if (found == fields.end()) {
      fail(op, "unknown tensor field '" + op.op + "'");
      return "0";
    }
    std::string text = found->second;
    for (size_t at = text.find('@'); at != std::string::npos; at = text.find('@')) text.replace(at, 1, t);
    for (size_t at = text.find('#'); at != std::string::npos; at = text.find('#')) text.replace(at, 1, dim);
    return text;
  }

  void pushKernel(const ir::Call &call) {
    auto *index = call.args.empty() ? nullptr : call.args[0].as<ir::IntImm>();
    if (!index || index->value < 0 || size_t(index->value) >= function_.kernels.size()) {
      fail(call, "push of an unknown micro-kernel");
      return;
    }
    const MicroKernel &kernel = function_.kernels[size_t(index->value)];
    std::string id = function_.symbol + "_uop_kernel" + std::to_string(index->value);
    std::string closure = kernel.closure.empty() ? "NULL, 0" : "&closure, (int)sizeof closure";
    line("{");
    indent();
    if (!kernel.closure.empty()) {
      // Zeroed first: the runtime caches the kernel by the closure's bytes, padding included.
      line("struct " + id + "_closure closure;");
      line("memset(&closure, 0, sizeof closure);");
      for (const ir::VarRef &var : kernel.closure) line("closure." + names_(*var) + " = " + names_(*var) + ";");
    }
    line("if (" + kernel.pushFunction + "(&" + id + "_handle, " + id + ", " + closure + ") != 0)");
    line("  return " + std::to_string(kStatusRuntimeError) + ";");
    dedent();
    line("}");
  }

  const HostFunction &function_;
  CNames &names_;
  std::map<std::string, std::string> &helpers_;
  std::ostringstream out_;
  int indent_ = 1;
  bool checksErrorCount_ = false;
  llvm::Error error_ = llvm::Error::success();
};

}  // namespace

llvm::Expected<std::string> emitC(const std::vector<HostFunction> &functions, const std::string &sourceName) {
  std::map<std::string, std::string> helpers;
  std::ostringstream definitions;
  for (const HostFunction &function : functions) {
    CNames names = functionNames(function);
    // Micro-kernels: closure struct, static handle, static function.
    for (size_t k = 0; k < function.kernels.size(); ++k) {
      const MicroKernel &kernel = function.kernels[k];
      std::string id = function.symbol + "_uop_kernel" + std::to_string(k);
      FunctionWriter writer(function, names, helpers);
      if (!kernel.closure.empty()) {
        definitions << "struct " << id << "_closure {\n";
        for (const ir::VarRef &var : kernel.closure)
          definitions << "  " << writer.type(var->dtype, *var) << " " << names(*var) << ";\n";
        definitions << "};\n\n";
      }
      definitions << "/* Micro-kernel " << k << " of " << function.symbol << ", pushed with " << kernel.pushFunction
                  << "; the runtime records it once per handle and closure value. */\n";
      definitions << "static void *" << id << "_handle;\n\n";
      definitions << "static int " << id << "(void *closure_arg) {\n";
      if (kernel.closure.empty()) {
        writer.line("(void)closure_arg;");
      } else {
        writer.line("const struct " + id + "_closure *closure = (const struct " + id + "_closure *)closure_arg;");
        for (const ir::VarRef &var : kernel.closure)
          writer.line(writer.type(var->dtype, *var) + " " + names(*var) + " = closure->" + names(*var) + ";");
      }
      writer.visitStmt(kernel.body);
      writer.line("return 0;");
      if (llvm::Error error = writer.takeError()) return error;
      definitions << writer.text() << "}\n\n";
    }
    FunctionWriter writer(function, names, helpers);
    std::string params;
    for (const HostParam &param : function.params) {
      if (!params.empty()) params += ", ";
      params += param.buffer ? "DLTensor *" + names(*param.var)
                             : writer.type(param.var->dtype, *param.var) + " " + names(*param.var);
    }
    if (params.empty()) params = "void";
    definitions << "int32_t " << function.symbol << "(" << params << ") {\n";
    if (function.commandHandle) writer.checkErrorCount();
    writer.visitStmt(function.body);
    writer.line("return 0;");
    if (llvm::Error error = writer.takeError()) return error;
    definitions << writer.text() << "}\n\n";
  }

  std::ostringstream out;
  out << "/* Generated by vtac from " << sourceName << ". Do not edit. */\n"
      << "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
      << "#include <dlpack/dlpack.h>\n#include <vta/runtime.h>\n\n"
      << "/* Weak: TVM's VTA runtime has no error functions; the status code is returned all the same. */\n"
      << "#pragma weak VTARuntimeReportError\n#pragma weak VTARuntimeErrorCount\n\n"
      << "static inline int32_t vtac_fail(const char *message) {\n"
      << "  if (VTARuntimeReportError) VTARuntimeReportError(message);\n"
      << "  return " << kStatusArgumentError << ";\n}\n\n"
      << "static inline int vtac_error_count(void) { return VTARuntimeErrorCount ? VTARuntimeErrorCount() : 0; }\n\n";
  for (const auto &[name, text] : helpers) out << text << "\n";
  if (!helpers.empty()) out << "\n";
  std::string text = out.str() + definitions.str();
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

}  // namespace vtac::codegen
