#include "vtac/codegen/CEmitter.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "vtac/codegen/CNames.h"
#include "vtac/codegen/HostWalker.h"
#include "vtac/codegen/RuntimeApi.h"
#include "vtac/codegen/VectorLanes.h"
#include "vtac/ir/Visitor.h"

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
  // INT64_C's argument is pasted to a suffix, so it must be digits: INT64_MIN has its macro.
  if (dtype.bits() == 64 && dtype.isUInt()) return "UINT64_C(" + std::to_string(uint64_t(value)) + ")";
  if (dtype.bits() == 64) return value == INT64_MIN ? "INT64_MIN" : "INT64_C(" + std::to_string(value) + ")";
  std::string digits = std::to_string(value);
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

// A function the emitted code's runtime calls go through: its name and C definition.
struct RuntimeHelper {
  std::string name, definition;
};
// Reports `message` when the runtime can (TVM's has no error functions) and returns the status.
const RuntimeHelper kFail{"vtac_fail", "static inline int32_t vtac_fail(const char *message) {\n"
                                       "  if (VTARuntimeReportError) VTARuntimeReportError(message);\n"
                                       "  return " + std::to_string(kStatusArgumentError) + ";\n}"};
const RuntimeHelper kErrorCount{
    "vtac_error_count", "static inline int vtac_error_count(void) { return VTARuntimeErrorCount ? VTARuntimeErrorCount() : 0; }"};

// Drops the commands a failing call queued when the runtime can (VTARuntimeDiscardCommands, not
// in TVM's runtime) and returns the status.
const RuntimeHelper kFailed{"vtac_failed", "static inline int32_t vtac_failed(int32_t status) {\n"
                                           "  if (VTARuntimeDiscardCommands) VTARuntimeDiscardCommands();\n"
                                           "  return status;\n}"};

// hostop::kVtaBufferBytes.
const RuntimeHelper kVtaBufferBytes{
    "vtac_vta_buffer_bytes",
    "static inline int64_t vtac_vta_buffer_bytes(void *buffer) {\n"
    "  return VTABufferSize ? (int64_t)VTABufferSize(buffer) : INT64_MAX;\n}"};

// One function's C text (the entry or a micro-kernel body), written statement by statement.
class FunctionWriter : public HostWalker<std::string> {
public:
  FunctionWriter(const HostFunction &function, CNames &names, std::map<std::string, std::string> &helpers)
      : HostWalker(function, "C"), names_(names), helpers_(helpers) {}

  std::string text() const { return out_.str(); }
  bool usesStatus() const { return usesStatus_; }

  void checkErrorCount() {
    line("int vtac_errors_at_entry = " + runtimeHelper(kErrorCount) + "();");
    checkErrorCountFromHere();
  }

  // The entry of a VTA function: each failure it returns drops the commands it queued
  // (vtac_failed), so that the caller's next call does not find them in its program.
  void discardCommandsOnFailure() { discardsCommands_ = true; }

  void line(const std::string &text) { out_ << std::string(indent_ * 2, ' ') << text << "\n"; }

  // `return status;` (a failure), indented under the condition written before it.
  void returnFailure(const std::string &status) {
    line("  return " + (discardsCommands_ ? runtimeHelper(kFailed) + "(" + status + ")" : status) + ";");
  }
  void indent() { ++indent_; }
  void dedent() { --indent_; }

  std::string type(DataType dtype, const ir::Node &at) {
    std::string name = cType(dtype);
    if (name.empty()) fail(at, "the C emitter cannot represent values of type " + dtype.str());
    return name;
  }

  // `TYPE NAME` of a variable.
  // A distinct buffer's data pointer (tir.noalias, HostFunction::distinctData) is `restrict`.
  std::string declaration(const ir::Var &var) {
    return type(var.dtype, var) + (function_.isDistinctData(var) ? "restrict " : spaced(var.dtype)) + names_(var);
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
    std::string condition = visitExpr(op.condition), trueValue = visitExpr(op.trueValue);  // see emitLet
    return "(" + condition + " ? " + trueValue + " : " + visitExpr(op.falseValue) + ")";
  }
  std::string visitBufferLoad(const ir::BufferLoad &op) override {
    return element(*op.buffer, op.indices, op, true);
  }
  std::string visitLet(const ir::Let &op) override { return invalid(op, "the C emitter does not support let expressions"); }
  std::string visitRamp(const ir::Ramp &op) override {
    return invalid(op, "the C emitter does not support vector expressions (T.Ramp) outside a buffer store");
  }
  std::string visitBroadcast(const ir::Broadcast &op) override {
    return invalid(op, "the C emitter does not support vector expressions (T.Broadcast) outside a buffer store");
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
    // + - * wrap in the IR; in C, signed overflow (and uint16 * uint16, promoted to int) is
    // undefined, so they are computed in the unsigned type of at least 32 bits.
    bool integer = dtype.isIntOrUInt() && !dtype.isBool();
    std::string unsignedType = dtype.bits() == 64 ? "uint64_t" : "uint32_t";
    auto modular = [&](const char *symbol) {
      if (!integer || (dtype.isUInt() && dtype.bits() >= 32)) return infix(symbol);
      return "((" + t + ")((" + unsignedType + ")" + a + " " + symbol + " (" + unsignedType + ")" + b + "))";
    };
    // MIN / -1 traps in C at 32 and 64 bits; the IR wraps it to MIN, remainder 0.
    bool trapsOnMinusOne = integer && !dtype.isUInt() && dtype.bits() >= 32;
    std::string negate = "return (" + t + ")(0 - (" + unsignedType + ")a);";
    switch (op.kind()) {
    case NodeKind::Add: return modular("+");
    case NodeKind::Sub: return modular("-");
    case NodeKind::Mul: return modular("*");
    case NodeKind::Div:
      if (trapsOnMinusOne) return helper("div", t, "if (b == -1) " + negate + " return a / b;") + "(" + a + ", " + b + ")";
      return wrapped("/");
    case NodeKind::Mod:
      if (isFloat) return (dtype.bits() == 32 ? "fmodf(" : "fmod(") + a + ", " + b + ")";
      if (trapsOnMinusOne) return helper("mod", t, "if (b == -1) return 0; return a % b;") + "(" + a + ", " + b + ")";
      return wrapped("%");
    case NodeKind::FloorDiv:
      if (isFloat) return (dtype.bits() == 32 ? "floorf(" : "floor(") + infix("/") + ")";
      return helper("floordiv", t, dtype.isUInt() ? "return a / b;" : (trapsOnMinusOne ? "if (b == -1) " + negate + " " : std::string()) + t + " q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;") +
             "(" + a + ", " + b + ")";
    case NodeKind::FloorMod:
      if (isFloat) return "(" + a + " - " + (dtype.bits() == 32 ? "floorf(" : "floor(") + infix("/") + ") * " + b + ")";
      return helper("floormod", t, dtype.isUInt() ? "return a % b;" : std::string(trapsOnMinusOne ? "if (b == -1) return 0; " : "") + t + " r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;") +
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
    default: return invalid(op, "unknown binary operator");
    }
  }

  // ---- statements -------------------------------------------------------------------------
  void visitAssertStmt(const ir::AssertStmt &op) override {
    auto *message = op.message.as<ir::StringImm>();
    line("if (" + withoutOuterParens(negated(op.condition)) + ")");
    returnFailure(runtimeHelper(kFail) + "(" + cString(message ? message->value : "assertion failed") + ")");
    visitStmt(op.body);
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
  void visitBufferStore(const ir::BufferStore &op) override {
    int lanes = op.value->dtype.lanes();
    for (const ir::Expr &index : op.indices) lanes = std::max(lanes, index->dtype.lanes());
    // The target before the value, named, so that the first error reported does not depend on
    // the compiler's order of evaluating operands.
    if (lanes == 1) {
      std::string target = element(*op.buffer, op.indices, op, false);
      return line(target + " = " + visitExpr(op.value) + ";");
    }
    // A vector store, lane by lane: every lane's value first, as the vector is read before any
    // lane is written.
    line("{");
    indent();
    std::vector<std::string> values;
    for (int lane = 0; lane < lanes; ++lane) {
      auto value = vectorLane(op.value, lane);
      if (!value) return fail(value.takeError());
      values.push_back(names_.fresh("lane" + std::to_string(lane)));
      std::string laneType = type(op.buffer->dtype, op);
      line(laneType + " " + values.back() + " = " + visitExpr(*value) + ";");
    }
    for (int lane = 0; lane < lanes; ++lane) {
      std::vector<ir::Expr> indices;
      for (const ir::Expr &index : op.indices) {
        auto scalar = vectorLane(index, lane);
        if (!scalar) return fail(scalar.takeError());
        indices.push_back(*scalar);
      }
      line(element(*op.buffer, indices, op, false) + " = " + values[size_t(lane)] + ";");
    }
    dedent();
    line("}");
  }

private:
  // ---- what HostWalker asks for -------------------------------------------------------------
  std::string placeholder() override { return "0"; }

  void emitLoop(const ir::Node &, const ir::Var &var, const ir::Expr &min, const ir::Expr &extent, const ir::Stmt &body,
                const char *kind) override {
    std::string t = type(var.dtype, var);
    const std::string &name = names_(var);
    std::string first = visitExpr(min);
    auto *zero = min.as<ir::IntImm>();
    std::string end = zero && zero->value == 0 ? visitExpr(extent) : first + " + " + visitExpr(extent);
    std::string comment = kind ? std::string("  /* ") + kind + " */" : "";
    line("for (" + t + " " + name + " = " + first + "; " + name + " < " + end + "; ++" + name + ") {" + comment);
    block(body);
  }

  void emitAttr(const ir::AttrStmt &op) override {
    if (op.key != "coproc_scope") return;
    static const char *const queues[] = {"", "load", "compute", "store"};
    auto *queue = op.value.as<ir::IntImm>();
    bool named = queue && queue->value >= 1 && queue->value <= 3;
    line("/* VTA " + (named ? std::string(queues[queue->value]) : visitExpr(op.value)) + " queue */");
  }

  // The value first, in every compiler (the order of the operands of + is unspecified): its error (a vector
  // outside a store) is the one that explains the variable's type error too.
  void emitLet(const ir::Var &var, const ir::Expr &value) override {
    std::string initializer = visitExpr(value);
    line(declaration(var) + " = " + initializer + ";");
  }

  void emitReturnIfNonZero(const ir::Node &, llvm::StringRef, std::string status) override {
    line("if (" + status + " != 0)");
    returnFailure(std::to_string(kStatusRuntimeError));
  }
  void emitDiscard(std::string value) override { line(value + ";"); }
  void emitErrorCountCheck(const ir::Node &, llvm::StringRef) override {
    line("if (" + runtimeHelper(kErrorCount) + "() > vtac_errors_at_entry)");
    returnFailure(std::to_string(kStatusRuntimeError));
  }

  // The bytes `op` allocates, as a size_t expression.
  std::string allocationBytes(const ir::Allocate &op) {
    std::string count = "(size_t)1";
    for (const ir::Expr &extent : op.extents) count += " * (size_t)" + visitExpr(extent);
    return count + " * sizeof(" + type(op.dtype, op) + ")";
  }
  void emitVtaAllocate(const ir::Allocate &op) override {
    const std::string &name = names_(*op.bufferVar);
    if (!op.condition) {
      line("void *" + name + " = VTABufferAlloc(" + allocationBytes(op) + ");");
      line("if (" + name + " == NULL)");
      returnFailure(std::to_string(kStatusRuntimeError));
      visitStmt(op.body);
      line("VTABufferFree(" + name + ");");
      return;
    }
    line("void *" + name + " = NULL;");
    line("if (" + visitExpr(op.condition) + ") {");
    indent();
    line(name + " = VTABufferAlloc(" + allocationBytes(op) + ");");
    line("if (" + name + " == NULL)");
    returnFailure(std::to_string(kStatusRuntimeError));
    dedent();
    line("}");
    visitStmt(op.body);
    line("if (" + name + " != NULL)");
    line("  VTABufferFree(" + name + ");");
  }
  std::string emitVtaBufferBytes(std::string handle) override {
    return runtimeHelper(kVtaBufferBytes) + "(" + handle + ")";
  }
  void emitAllocate(const ir::Allocate &op) override {
    const std::string &name = names_(*op.bufferVar);
    line("void *" + name + " = malloc(" + allocationBytes(op) + ");");
    line("if (" + name + " == NULL)");
    returnFailure(runtimeHelper(kFail) + "(" + cString(function_.symbol + ": cannot allocate '" + op.bufferVar->name + "'") + ")");
    if (op.constantData && !op.constantData->bytes().empty()) {
      // The elements' bytes as they lie in memory (little-endian, as the targets are).
      const std::vector<uint8_t> &bytes = op.constantData->bytes();
      std::string data = names_.fresh(op.bufferVar->name + "_constant"), list;
      for (size_t i = 0; i < bytes.size(); ++i) list += (i ? ", " : "") + std::to_string(bytes[i]);
      line("static const uint8_t " + data + "[" + std::to_string(bytes.size()) + "] = {" + list + "};");
      line("memcpy(" + name + ", " + data + ", sizeof " + data + ");");
    }
    visitStmt(op.body);
    line("free(" + name + ");");
  }

  std::string emitIntrinsic(const ir::Call &op) override {
    const std::string &name = op.op;
    auto arg = [&](size_t i) { return visitExpr(op.args[i]); };
    if (name == "tir.if_then_else") return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
    static const std::map<std::string, const char *> infixOps = {
        {"tir.shift_right", ">>"}, {"tir.shift_left", "<<"}, {"tir.bitwise_and", "&"},
        {"tir.bitwise_or", "|"}, {"tir.bitwise_xor", "^"}};
    // A left shift of a negative value is undefined in C: shift its unsigned bits.
    if (name == "tir.shift_left" && op.dtype.isInt() && op.dtype.bits() > 1)
      return "((" + type(op.dtype, op) + ")((" + (op.dtype.bits() == 64 ? "uint64_t" : "uint32_t") + ")" + arg(0) +
             " << " + arg(1) + "))";
    if (auto found = infixOps.find(name); found != infixOps.end())
      return "((" + type(op.dtype, op) + ")(" + arg(0) + " " + found->second + " " + arg(1) + "))";
    if (name == "tir.bitwise_not") return "((" + type(op.dtype, op) + ")~" + arg(0) + ")";
    if (name == "tir.isnullptr") return "(" + arg(0) + " == NULL)";
    if (name == "tir.abs") {
      if (op.dtype.isFloat()) return std::string(op.dtype.bits() == 32 ? "fabsf(" : "fabs(") + arg(0) + ")";
      return helper("abs", type(op.dtype, op), "return a < 0 ? -a : a;", 1) + "(" + arg(0) + ")";
    }
    if (name == "tir.sigmoid" || name == "tir.rsqrt") {
      std::string one = op.dtype.bits() == 32 ? "1.0f" : "1.0", f = op.dtype.bits() == 32 ? "f(" : "(";
      if (name == "tir.rsqrt") return "(" + one + " / sqrt" + f + arg(0) + "))";
      return "(" + one + " / (" + one + " + exp" + f + "-" + arg(0) + ")))";
    }
    // The rest are libm functions of the same name (the float versions end in 'f').
    std::string fn = name.substr(4);
    if (op.dtype == DataType::float32()) fn += "f";
    else if (op.dtype != DataType::floatTy(64)) return invalid(op, "'" + name + "' of type " + op.dtype.str());
    std::string args;
    for (size_t i = 0; i < op.args.size(); ++i) args += (i ? ", " : "") + arg(i);
    return fn + "(" + args + ")";
  }

  // The C text of !condition, without a double negation.
  std::string negated(const ir::Expr &condition) {
    if (auto *n = condition.as<ir::Not>()) return visitExpr(n->a);
    auto *binary = condition.as<ir::BinaryExpr>();
    if (binary && (binary->kind() == NodeKind::EQ || binary->kind() == NodeKind::NE)) {
      std::string a = visitExpr(binary->a);  // before b in every compiler, as in emitLet
      return "(" + a + (binary->kind() == NodeKind::EQ ? " != " : " == ") + visitExpr(binary->b) + ")";
    }
    return "!" + visitExpr(condition);
  }

  static std::string spaced(DataType dtype) { return dtype.isHandle() ? "" : " "; }

  void block(const ir::Stmt &body) {
    indent();
    visitStmt(body);
    dedent();
    line("}");
  }

  // The name of one of the module's runtime helpers (kFail, kErrorCount), defined once per
  // module when a function uses it: clang's -Wunused-function rejects an unused one.
  std::string runtimeHelper(const RuntimeHelper &helper) {
    helpers_.emplace(helper.name, helper.definition);
    return helper.name;
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
    if (indices.size() != buffer.rank() && buffer.rank() != 0)
      return invalid(at, "buffer '" + buffer.name + "' indexed with " + std::to_string(indices.size()) + " indices");
    for (const ir::Expr &index : indices)
      if (!index->dtype.isScalar())
        fail(at, "the C emitter does not support vector loads of '" + buffer.name + "' outside a buffer store");
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

  std::string emitExternCall(const ir::Call &op, const std::string &callee) override {
    std::string args;
    for (size_t i = 1; i < op.args.size(); ++i) args += (i > 1 ? ", " : "") + visitExpr(op.args[i]);
    return callee + "(" + args + ")";
  }

  std::string emitAddressOf(const ir::Call &, const ir::BufferLoad &load) override {
    return "(&" + element(*load.buffer, load.indices, load, false) + ")";
  }

  std::string emitAccessPtr(const ir::Call &op, DataType elementType, const ir::Var &data) override {
    return "((void *)((char *)" + names_(data) + " + (int64_t)" + visitExpr(op.args[2]) + " * " +
           std::to_string(std::max(1, elementType.bytes())) + "))";
  }

  std::string emitTensorField(const ir::Call &op) override {
    std::string t = visitExpr(op.args[0]);
    std::string dim = op.args.size() > 1 ? visitExpr(op.args[1]) : "0";
    static const std::map<std::string, std::string> fields = {
        {hostop::kTensorIsNull, "(@ == NULL)"},
        {hostop::kTensorDeviceType, "(int32_t)@->device.device_type"},
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
    if (found == fields.end()) return invalid(op, "unknown tensor field '" + op.op + "'");
    std::string text = found->second;
    for (size_t at = text.find('@'); at != std::string::npos; at = text.find('@')) text.replace(at, 1, t);
    for (size_t at = text.find('#'); at != std::string::npos; at = text.find('#')) text.replace(at, 1, dim);
    return text;
  }

  void emitMakeTensor(const ir::Var &var, const ir::Call &call) override {
    const std::string &name = names_(var);
    std::string shape = names_.fresh(var.name + "_shape"), tensor = names_.fresh(var.name + "_tensor");
    std::string dims;
    for (size_t i = 4; i < call.args.size(); ++i) dims += (i > 4 ? ", " : "") + visitExpr(call.args[i]);
    size_t ndim = call.args.size() - 4;
    line("int64_t " + shape + "[" + std::to_string(std::max<size_t>(ndim, 1)) + "] = {" + (dims.empty() ? "0" : dims) + "};");
    std::string device = call.op == hostop::kMakeVtaTensor ? "kDLExtDev" : "kDLCPU";
    line("DLTensor " + tensor + " = {.data = " + visitExpr(call.args[0]) + ", .device = {" + device + ", 0}, .ndim = " +
         std::to_string(ndim) + ", .dtype = {" + visitExpr(call.args[1]) + ", " + visitExpr(call.args[2]) + ", " +
         visitExpr(call.args[3]) + "}, .shape = " + shape + ", .strides = NULL, .byte_offset = 0};");
    line("DLTensor *" + name + " = &" + tensor + ";");
  }

  void emitCallChecked(const ir::Call &, const std::string &symbol, const std::vector<std::string> &args) override {
    std::string list;
    for (const std::string &arg : args) list += (list.empty() ? "" : ", ") + arg;
    line("if ((vtac_status = " + symbol + "(" + list + ")) != 0)");
    returnFailure("vtac_status");
    usesStatus_ = true;
  }

  void emitPushKernel(const ir::Node &, size_t index) override {
    const MicroKernel &kernel = function_.kernels[index];
    std::string id = function_.symbol + "_uop_kernel" + std::to_string(index);
    std::string closure = kernel.closure.empty() ? "NULL, 0" : "&closure, (int)sizeof closure";
    line("{");
    indent();
    packClosure(id, kernel.closure);
    line("if (" + kernel.pushFunction + "(&" + id + "_handle, " + id + ", " + closure + ") != 0)");
    returnFailure(std::to_string(kStatusRuntimeError));
    dedent();
    line("}");
  }

  void emitParallelFor(size_t index, std::string extent) override {
    const ParallelTask &task = function_.tasks[index];
    std::string id = function_.symbol + "_parallel" + std::to_string(index);
    line("{");
    indent();
    packClosure(id, task.closure);
    line("if ((vtac_status = vtac_parallel_for(" + extent + ", " + id + ", " + (task.closure.empty() ? "NULL" : "&closure") +
         ")) != 0)");
    returnFailure("vtac_status");
    usesStatus_ = true;
    dedent();
    line("}");
  }

  // `closure`, the struct of an outlined function's captured variables, filled.
  void packClosure(const std::string &id, const std::vector<ir::VarRef> &vars) {
    if (vars.empty()) return;
    // Zeroed first: the runtime caches a micro-kernel by the closure's bytes, padding included.
    line("struct " + id + "_closure closure;");
    line("memset(&closure, 0, sizeof closure);");
    for (const ir::VarRef &var : vars) line("closure." + names_(*var) + " = " + names_(*var) + ";");
  }

  CNames &names_;
  std::map<std::string, std::string> &helpers_;
  std::ostringstream out_;
  int indent_ = 1;
  bool usesStatus_ = false;  // a checked call needs `vtac_status` declared
  bool discardsCommands_ = false;
};

// A function the runtime calls with a closure (a micro-kernel, a parallel task): the closure's
// struct, `comment`, then `signature` whose body unpacks the closure and runs `body`.
llvm::Expected<std::string> outlinedFunction(const HostFunction &function, CNames &names,
                                             std::map<std::string, std::string> &helpers, const std::string &id,
                                             const std::vector<ir::VarRef> &closure, const ir::Stmt &body,
                                             const std::string &comment, const std::string &signature) {
  std::ostringstream out;
  FunctionWriter writer(function, names, helpers);
  if (!closure.empty()) {
    out << "struct " << id << "_closure {\n";
    for (const ir::VarRef &var : closure) out << "  " << writer.declaration(*var) << ";\n";
    out << "};\n\n";
  }
  out << comment << signature << " {\n";
  if (closure.empty()) {
    writer.line("(void)closure_arg;");
  } else {
    writer.line("const struct " + id + "_closure *closure = (const struct " + id + "_closure *)closure_arg;");
    for (const ir::VarRef &var : closure) writer.line(writer.declaration(*var) + " = closure->" + names(*var) + ";");
  }
  writer.visitStmt(body);
  writer.line("return 0;");
  if (llvm::Error error = writer.takeError()) return error;
  if (writer.usesStatus()) out << "  int32_t vtac_status;\n";
  out << writer.text() << "}\n\n";
  return out.str();
}

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
      std::string comment = "/* Micro-kernel " + std::to_string(k) + " of " + function.symbol + ", pushed with " +
                            kernel.pushFunction + "; the runtime records it once per handle and closure value. */\n" +
                            "static void *" + id + "_handle;\n\n";
      auto text = outlinedFunction(function, names, helpers, id, kernel.closure, kernel.body, comment,
                                   "static int " + id + "(void *closure_arg)");
      if (!text) return text.takeError();
      definitions << *text;
    }
    // Parallel loops: closure struct, task function.
    for (size_t t = 0; t < function.tasks.size(); ++t) {
      const ParallelTask &task = function.tasks[t];
      std::string id = function.symbol + "_parallel" + std::to_string(t);
      std::string comment = "/* Parallel loop " + std::to_string(t) + " of " + function.symbol +
                            ": iterations [" + names(*task.begin) + ", " + names(*task.end) +
                            ") on a thread of vtac_parallel_for. */\n";
      auto text = outlinedFunction(function, names, helpers, id, task.closure, task.body, comment,
                                   "static int32_t " + id + "(int64_t " + names(*task.begin) + ", int64_t " +
                                       names(*task.end) + ", void *closure_arg)");
      if (!text) return text.takeError();
      definitions << *text;
    }
    FunctionWriter writer(function, names, helpers);
    std::string params;
    for (const HostParam &param : function.params) {
      if (!params.empty()) params += ", ";
      params += param.buffer ? "DLTensor *" + names(*param.var)
                             : writer.type(param.var->dtype, *param.var) + " " + names(*param.var);
    }
    if (params.empty()) params = "void";
    definitions << (function.internal ? "static int32_t " : "int32_t ") << function.symbol << "(" << params << ") {\n";
    if (function.commandHandle) {
      writer.checkErrorCount();
      writer.discardCommandsOnFailure();
    }
    writer.visitStmt(function.body);
    writer.line("return 0;");
    if (llvm::Error error = writer.takeError()) return error;
    if (writer.usesStatus()) definitions << "  int32_t vtac_status;\n";
    definitions << writer.text() << "}\n\n";
  }

  // Prototypes of the functions the graph calls that this file does not define.
  std::set<std::string> defined;
  for (const HostFunction &function : functions) defined.insert(function.symbol);
  std::map<std::string, size_t> arities;
  for (const HostFunction &function : functions)
    ir::preOrderVisit(function.body, [&](const ir::Node &node) {
      auto *call = node.as<ir::Call>();
      auto *symbol = call && call->op == hostop::kCallChecked && !call->args.empty() ? call->args[0].as<ir::StringImm>() : nullptr;
      if (symbol && !defined.count(symbol->value)) arities[symbol->value] = call->args.size() - 1;
    });

  bool parallel = false;
  for (const HostFunction &function : functions) parallel |= !function.tasks.empty();
  std::ostringstream out;
  out << "/* Generated by vtac from " << sourceName << ". Do not edit. */\n"
      << "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
      << "#include <dlpack/dlpack.h>\n#include <vta/runtime.h>\n" << (parallel ? "#include <vtac/parallel.h>\n" : "") << "\n"
      << "/* Weak: TVM's VTA runtime has no error functions; the status code is returned all the same. */\n"
      << "#pragma weak VTARuntimeReportError\n#pragma weak VTARuntimeErrorCount\n"
      << (helpers.count(kVtaBufferBytes.name) ? "#pragma weak VTABufferSize\n" : "")
      << (helpers.count(kFailed.name) ? "#pragma weak VTARuntimeDiscardCommands\n" : "") << "\n";
  for (const auto &[name, text] : helpers) out << text << "\n";
  if (!helpers.empty()) out << "\n";
  if (!arities.empty()) out << "/* Provided by the program this code is linked into. */\n";
  for (const auto &[name, arity] : arities) {
    std::string params;
    for (size_t i = 0; i < arity; ++i) params += i ? ", DLTensor *" : "DLTensor *";
    out << "int32_t " << name << "(" << (params.empty() ? "void" : params) << ");\n";
  }
  if (!arities.empty()) out << "\n";
  std::string text = out.str() + definitions.str();
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

}  // namespace vtac::codegen
