// Prints Relax functions as TVM's printer does: struct info `R.Tensor((1, n), dtype="float32")`
// with the function's symbolic sizes quoted in the signature and declared (`n = T.int64()`) at
// the top of the body in order of first appearance (return type first), `cls = Module` before
// the first use of a module function (`R.call_tir(cls.f, ...)`, `cls.f(x)`, `cls.f`), call
// bindings without annotations, alias bindings with one, `R.output(...)` closing each dataflow
// block, constants as metadata references, `if`/`else`
// with the If's annotated variable on each branch's last line, local functions where they are
// bound (names unique across the enclosing function's).
#include <unordered_map>
#include <unordered_set>

#include "vtac/ir/Printer.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/RelaxBuiltins.h"
#include "vtac/ir/RelaxOperators.h"

namespace vtac::ir::relax {

namespace {

int precedence(NodeKind kind) {
  if (BinaryExpr::isComparison(kind)) return 0;
  switch (kind) {
  case NodeKind::Add:
  case NodeKind::Sub: return 1;
  case NodeKind::Mul:
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: return 2;
  default: return 3;
  }
}

const char *binaryOperator(NodeKind kind) {
  switch (kind) {
  case NodeKind::Add: return " + ";
  case NodeKind::Sub: return " - ";
  case NodeKind::Mul: return " * ";
  case NodeKind::FloorDiv: return " // ";
  case NodeKind::FloorMod: return " % ";
  case NodeKind::EQ: return " == ";
  case NodeKind::NE: return " != ";
  case NodeKind::LT: return " < ";
  case NodeKind::LE: return " <= ";
  case NodeKind::GT: return " > ";
  case NodeKind::GE: return " >= ";
  default: return nullptr;
  }
}

// Shape dimensions: integers print bare (Relax shapes are int64 by definition), variables by
// name, arithmetic with Python precedence.
void writeDim(const Expr &dim, llvm::raw_ostream &os, int parentPrecedence = 0) {
  if (const auto *imm = dim.as<IntImm>()) {
    // A bool scalar, `R.prim_value(True)`, prints as TVM prints a bool IntImm in Relax.
    if (imm->dtype.isBool()) os << (imm->value ? "True" : "False");
    else os << imm->value;
  } else if (const auto *var = dim.as<ir::Var>()) {
    os << var->name;
  } else if (const auto *bin = dim.as<BinaryExpr>()) {
    if (const char *op = binaryOperator(bin->kind())) {
      int p = precedence(bin->kind());
      if (p < parentPrecedence) os << '(';
      writeDim(bin->a, os, p);
      os << op;
      writeDim(bin->b, os, p + 1);  // left-associative
      if (p < parentPrecedence) os << ')';
    } else {
      os << (bin->kind() == NodeKind::Min ? "T.min(" : "T.max(");
      writeDim(bin->a, os);
      os << ", ";
      writeDim(bin->b, os);
      os << ')';
    }
  } else {
    os << "<?>";
  }
}

bool usesAny(const Expr &dim, const std::vector<VarRef> &vars) {
  if (const auto *bin = dim.as<BinaryExpr>()) return usesAny(bin->a, vars) || usesAny(bin->b, vars);
  return dim.isa<ir::Var>() && std::find(vars.begin(), vars.end(), cast<ir::Var>(dim)) != vars.end();
}

void collectVars(const Expr &dim, std::vector<VarRef> &out) {
  if (const auto *bin = dim.as<BinaryExpr>()) {
    collectVars(bin->a, out);
    collectVars(bin->b, out);
  } else if (dim.isa<ir::Var>() && std::find(out.begin(), out.end(), cast<ir::Var>(dim)) == out.end()) {
    out.push_back(cast<ir::Var>(dim));
  }
}

void collectVars(const TensorStructInfo &sinfo, std::vector<VarRef> &out) {
  if (sinfo.shape)
    for (const Expr &dim : *sinfo.shape) collectVars(dim, out);
}

// In TVM's order: fields and parameters before a callable's result.
void collectVars(const StructInfo &sinfo, std::vector<VarRef> &out) {
  collectVars(sinfo.tensor, out);
  if (sinfo.values)
    for (const Expr &dim : *sinfo.values) collectVars(dim, out);
  if (sinfo.value) collectVars(sinfo.value, out);
  for (const StructInfo &field : sinfo.fields) collectVars(field, out);
  if (sinfo.result) collectVars(*sinfo.result, out);
}

// A dimension, quoted when it uses a variable the signature defines (TVM's PrintShapeVar).
void writeSignatureDim(const Expr &dim, const std::vector<VarRef> &quoted, llvm::raw_ostream &os) {
  bool quote = usesAny(dim, quoted);
  if (quote) os << '"';
  writeDim(dim, os);
  if (quote) os << '"';
}

class FunctionPrinter {
public:
  FunctionPrinter(const RelaxFunction &func, RelaxPrintState &state, llvm::raw_ostream &os)
      : func_(func), state_(state), os_(os), read_(varsRead(func)) {}

  // Keeps the text of `binding` when print() meets it (see capturedText).
  void capture(const Binding &binding) { captured_ = &binding; }
  const std::string &capturedText() const { return capturedText_; }

  void print(llvm::StringRef name, unsigned indent) {
    std::string pad(indent, ' ');
    // The signature defines the symbolic sizes it mentions, return type first (as TVM).
    std::vector<VarRef> signatureVars;
    collectVars(func_.retSinfo, signatureVars);
    for (const VarPtr &param : func_.params) collectVars(param->sinfo, signatureVars);

    // TVM's decorator: purity first, then privacy.
    std::string flags = std::string(func_.isPure ? "" : "pure=False") + (func_.isPure || !func_.isPrivate ? "" : ", ") +
                        (func_.isPrivate ? "private=True" : "");
    os_ << pad << "@R.function" << (flags.empty() ? "" : "(" + flags + ")") << "\n" << pad << "def " << name << '(';
    for (size_t i = 0; i < func_.params.size(); ++i) {
      if (i) os_ << ", ";
      os_ << define(func_.params[i]) << ": " << printStructInfo(func_.params[i]->sinfo, signatureVars);
    }
    os_ << ") -> " << printStructInfo(func_.retSinfo, signatureVars) << ":\n";

    std::string bodyPad = pad + "    ";
    bodyPad_ = bodyPad;
    for (const VarRef &sym : signatureVars) declareSymbolic(sym, bodyPad);
    // After the signature's sizes, as TVM prints it.
    if (!func_.attrs.empty()) preamble_ += bodyPad + "R.func_attr(" + printAttrMap(func_.attrs) + ")\n";
    for (const BindingBlock &block : func_.blocks) printBlock(block, bodyPad);
    body_ += bodyPad + "return " + returnValue() + "\n";
    os_ << preamble_ << body_;
  }

private:
  // The variables the function reads (in calls, aliases, tuples, conditions, results), its
  // branches' and local functions' included.
  static std::unordered_set<const Var *> varsRead(const RelaxFunction &func) {
    std::unordered_set<const Var *> read;
    auto note = [&](const Arg &arg) { forEachVarRead(arg, [&](const VarPtr &var) { read.insert(var.get()); }); };
    for (const Arg &result : func.results) note(result);
    forEachBinding(func.blocks, [&](const Binding &binding) {
      if (binding.call) {
        for (const Arg &arg : binding.call->args) note(arg);
        if (binding.call->calleeVar) read.insert(binding.call->calleeVar.get());
      }
      note(binding.alias);
      if (binding.tuple)
        for (const Arg &field : *binding.tuple) note(field);
      if (const IfElse *ifElse = binding.ifElse.get()) {
        note(ifElse->condition);
        note(ifElse->thenBranch.result);
        note(ifElse->elseBranch.result);
      }
      if (const RelaxFunction *inner = asRelaxFunction(binding.function))
        for (const Arg &result : inner->results) note(result);
    });
    return read;
  }

  std::string returnValue() {
    return func_.resultIsTuple ? tuple(func_.results) : use(func_.results.front());
  }

  // `(a, b)`, `(a,)`; the empty tuple is `R.tuple()`.
  std::string tuple(const std::vector<Arg> &fields) {
    if (fields.empty()) return "R.tuple()";
    return "(" + uses(fields) + (fields.size() == 1 ? ",)" : ")");
  }

  void declareSymbolic(const VarRef &sym, const std::string &pad) {
    if (!declared_.insert(sym).second) return;
    preamble_ += bodyPad_ + sym->name + " = T.int64()\n";  // at the top of the body, wherever used
  }

  // Body uses of sizes not in the signature declare them where TVM does: before the body.
  void declareUsedSymbolic(const StructInfo &sinfo, const std::string &pad) {
    std::vector<VarRef> vars;
    collectVars(sinfo, vars);
    for (const VarRef &var : vars) declareSymbolic(var, pad);
  }

  std::string define(const VarPtr &var) {
    // A name bound twice (Python rebinding) prints as name_1, name_2, ... as TVM does.
    std::string name = var->name.empty() ? "v" : var->name;
    std::string unique = name;
    for (unsigned suffix = 1; takenNames_.count(unique); ++suffix)
      unique = name + "_" + std::to_string(suffix);
    takenNames_.insert(unique);
    names_[var.get()] = unique;
    return unique;
  }

  std::string use(const Arg &arg) {
    if (arg.fields) return tuple(*arg.fields);
    if (arg.prim) return "R.prim_value(" + printDim(arg.prim) + ")";
    if (arg.shape) {
      std::string text = "R.shape([";
      for (size_t i = 0; i < arg.shape->size(); ++i) text += (i ? ", " : "") + printDim((*arg.shape)[i]);
      return text + "])";
    }
    if (arg.text) return "R.str(\"" + *arg.text + "\")";
    if (arg.moduleFunction) return moduleAlias() + "." + arg.moduleFunction->name;
    if (arg.dtypeValue) return "R.dtype(\"" + arg.dtypeValue->str() + "\")";
    if (arg.constant && arg.constant->scalar) return printScalarConstant(*arg.constant);
    if (arg.constant)
      return "metadata[\"relax.expr.Constant\"][" +
             std::to_string(state_.constantIndex(arg.constant.get())) + "]";
    auto it = names_.find(arg.var.get());
    return it != names_.end() ? it->second : arg.var->name;
  }

  // `R.const(2, "int32")`, `R.const(0.5, "float32")`, `R.const(True, "bool")`.
  static std::string printScalarConstant(const Constant &constant) {
    std::string value;
    if (const auto *f = constant.scalar.as<FloatImm>()) appendFloat(value, f->value);
    else if (constant.scalar->dtype.isBool()) value = static_cast<const IntImm &>(*constant.scalar).value ? "True" : "False";
    else value = std::to_string(static_cast<const IntImm &>(*constant.scalar).value);
    return "R.const(" + value + ", \"" + constant.scalar->dtype.str() + "\")";
  }

  std::string uses(const std::vector<Arg> &args) {
    std::string text;
    for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + use(args[i]);
    return text;
  }

  // The right-hand side of a binding that is not a call.
  std::string value(const Binding &binding, const std::string &pad) {
    if (binding.tuple) return tuple(*binding.tuple);
    if (binding.index) return use(binding.alias) + "[" + std::to_string(*binding.index) + "]";
    if (binding.matchCast) {
      declareUsedSymbolic(*binding.matchCast, pad);
      return "R.match_cast(" + use(binding.alias) + ", " + printStructInfo(*binding.matchCast) + ")";
    }
    return use(binding.alias);
  }

  std::string printCall(const Call &call, const std::string &pad) {
    if (call.kind == CallKind::Function) {
      Arg callee;
      callee.var = call.calleeVar;
      return (call.moduleCallee ? moduleAlias() + "." + call.callee : use(callee)) + "(" + uses(call.args) + ")";
    }
    if (call.kind == CallKind::CallPacked || call.kind == CallKind::CallPurePacked) {
      // TVM prints sinfo_args as a tuple.
      std::string text = callKindName(call.kind) + "(\"" + call.callee + "\"";
      for (const Arg &arg : call.args) text += ", " + use(arg);
      for (const StructInfo &sinfo : call.sinfoArgs) declareUsedSymbolic(sinfo, pad);
      if (call.sinfoArgs.empty()) return text + ")";  // R.call_packed of an R.Object
      text += ", sinfo_args=(";
      for (const StructInfo &sinfo : call.sinfoArgs) text += printStructInfo(sinfo) + ",";
      return text + "))";
    }
    if (call.kind == CallKind::Builtin) {
      if (lookupBuiltin(call.callee)->sinfoArgs) declareUsedSymbolic(call.sinfoArgs.front(), pad);
      return "R." + call.callee + "(" +
             printBuiltinArguments(
                 call, [&](const Arg &arg) { return use(arg); },
                 [&](const std::string &function) { return moduleAlias() + "." + function; }) +
             ")";
    }
    if (call.kind == CallKind::Operator) {
      // R.concat takes its tensors as one tuple.
      bool tupled = lookupOperator(call.callee)->family == OperatorFamily::Concat;
      return "R." + call.callee + "(" + (tupled ? tuple(call.args) : uses(call.args)) + printOperatorAttributes(call) + ")";
    }
    std::string text;
    if (call.kind == CallKind::CallTIR || call.kind == CallKind::CallTIRInplace) {
      text = callKindName(call.kind) + "(" + moduleAlias() + "." + call.callee;
    } else {
      text = "R.call_dps_packed(\"" + call.callee + "\"";
    }
    text += ", " + tuple(call.args);
    // Several outputs print as a list, as TVM prints them.
    std::string outputs;
    for (const TensorStructInfo &output : call.outputs()) {
      declareUsedSymbolic(output, pad);
      outputs += (outputs.empty() ? "" : ", ") + printStructInfo(output);
    }
    text += ", out_sinfo=" + (call.tupleOutSinfo.empty() ? outputs : "[" + outputs + "]");
    if (call.kind == CallKind::CallTIRInplace) {
      text += ", inplace_indices=[";
      for (size_t i = 0; i < call.inplaceIndices.size(); ++i) text += (i ? ", " : "") + std::to_string(call.inplaceIndices[i]);
      text += "]";
    }
    if (!call.tirVars.isNone()) {
      declareUsedSymbolic(call.tirVars.sinfo(), pad);
      text += ", tir_vars=" + use(call.tirVars);
    }
    return text + ")";
  }

  // `cls`, declared (`cls = Module`) before the body the first time.
  std::string moduleAlias() {
    if (!moduleAliasPrinted_) {
      preamble_ += bodyPad_ + "cls = Module\n";
      moduleAliasPrinted_ = true;
    }
    return "cls";
  }

  // `if cond:` and both branches, each ending in `name: sinfo = value` (TVM's PrintIfExpr).
  void printIf(const Binding &binding, const std::string &pad) {
    declareUsedSymbolic(binding.var->sinfo, pad);
    std::string condition = use(binding.ifElse->condition);
    std::string name = define(binding.var);
    std::string annotation = printStructInfo(binding.var->sinfo);
    body_ += pad + "if " + condition + ":\n";
    printBranch(binding.ifElse->thenBranch, pad + "    ", name, annotation);
    body_ += pad + "else:\n";
    printBranch(binding.ifElse->elseBranch, pad + "    ", name, annotation);
  }

  void printBranch(const IfBranch &branch, const std::string &pad, const std::string &name,
                   const std::string &annotation) {
    for (const BindingBlock &block : branch.blocks) printBlock(block, pad);
    body_ += pad + name + ": " + annotation + " = " + use(branch.result) + "\n";
  }

  // A local function, printed where it is bound under its variable's name; its names are
  // unique with the enclosing function's, as TVM's printer makes them.
  void printLocalFunction(const Binding &binding, const std::string &pad) {
    std::string name = define(binding.var);
    std::string text;
    llvm::raw_string_ostream os(text);
    FunctionPrinter inner(*asRelaxFunction(binding.function), state_, os);
    inner.names_ = names_;
    inner.takenNames_ = takenNames_;
    inner.captured_ = captured_;
    inner.print(name, unsigned(pad.size()));
    takenNames_ = inner.takenNames_;
    if (!inner.capturedText_.empty()) capturedText_ = inner.capturedText_;
    body_ += os.str();
  }

  void printBlock(const BindingBlock &block, const std::string &pad) {
    std::string inner = block.dataflow ? pad + "    " : pad;
    if (block.dataflow) body_ += pad + "with R.dataflow():\n";
    std::vector<std::string> outputs;
    for (const Binding &binding : block.bindings) {
      if (binding.ifElse) {
        printIf(binding, inner);
        continue;
      }
      if (binding.function) {
        printLocalFunction(binding, inner);
        if (block.dataflow && !binding.var->dataflow) outputs.push_back(names_.at(binding.var.get()));
        continue;
      }
      // A call without a result (R.Tuple) bound to a variable of none that nothing reads prints
      // alone, as TVM's syntax sugar has it.
      if (binding.call && returnsVoid(*binding.call) && isVoid(binding.var->sinfo) && !read_.count(binding.var.get()) &&
          (!block.dataflow || binding.var->dataflow)) {
        define(binding.var);
        body_ += inner + printCall(*binding.call, pad) + "\n";
        continue;
      }
      std::string rhs;
      std::string annotation;
      // TVM leaves out the annotation of a call_tir / call_dps_packed result only.
      if (binding.call && (binding.call->kind == CallKind::CallTIR || binding.call->kind == CallKind::CallDPSPacked)) {
        rhs = printCall(*binding.call, pad);
      } else {
        rhs = binding.call ? printCall(*binding.call, pad) : value(binding, pad);
        declareUsedSymbolic(binding.var->sinfo, pad);
        annotation = ": " + printStructInfo(binding.var->sinfo);
      }
      std::string name = define(binding.var);
      std::string line = name + annotation + " = " + rhs;
      if (&binding == captured_) capturedText_ = line;
      body_ += inner + line + "\n";
      if (block.dataflow && !binding.var->dataflow) outputs.push_back(name);
    }
    if (block.dataflow) {
      body_ += inner + "R.output(";
      for (size_t i = 0; i < outputs.size(); ++i) body_ += (i ? ", " : "") + outputs[i];
      body_ += ")\n";
    }
  }

  const RelaxFunction &func_;
  RelaxPrintState &state_;
  llvm::raw_ostream &os_;
  std::unordered_set<const Var *> read_;
  std::string preamble_, body_;
  std::string bodyPad_;  // the indentation of the function's body, where the preamble goes
  std::unordered_set<VarRef> declared_;
  std::unordered_map<const Var *, std::string> names_;
  std::unordered_set<std::string> takenNames_;
  bool moduleAliasPrinted_ = false;
  const Binding *captured_ = nullptr;
  std::string capturedText_;
};

}  // namespace

std::string printStructInfo(const TensorStructInfo &sinfo, const std::vector<VarRef> &quoted) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::vector<std::string> args;
  if (sinfo.shape) {
    std::string shape;
    llvm::raw_string_ostream shapeOs(shape);
    shapeOs << '(';
    for (size_t i = 0; i < sinfo.shape->size(); ++i) {
      if (i) shapeOs << ", ";
      writeSignatureDim((*sinfo.shape)[i], quoted, shapeOs);
    }
    if (sinfo.shape->size() == 1) shapeOs << ',';
    shapeOs << ')';
    args.push_back(shapeOs.str());
  }
  if (!sinfo.dtype.isVoid()) args.push_back("dtype=\"" + sinfo.dtype.str() + "\"");
  if (!sinfo.shape && sinfo.ndim >= 0) args.push_back("ndim=" + std::to_string(sinfo.ndim));
  if (!sinfo.vdevice.empty()) args.push_back("vdevice=\"" + sinfo.vdevice + "\"");
  os << "R.Tensor";
  if (args.empty()) return os.str();
  os << '(';
  for (size_t i = 0; i < args.size(); ++i) os << (i ? ", " : "") << args[i];
  os << ')';
  return os.str();
}

// As TVM's printer writes each kind (src/script/printer/relax/struct_info.cc).
std::string printStructInfo(const StructInfo &sinfo, const std::vector<VarRef> &quoted) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto list = [&](const std::vector<StructInfo> &items) {
    for (size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << printStructInfo(items[i], quoted);
  };
  switch (sinfo.kind) {
  case StructInfo::Kind::Tensor: return printStructInfo(sinfo.tensor, quoted);
  case StructInfo::Kind::Object: return "R.Object";
  case StructInfo::Kind::Tuple:
    if (sinfo.fields.empty()) return "R.Tuple";
    os << "R.Tuple(";
    list(sinfo.fields);
    os << ')';
    break;
  case StructInfo::Kind::Shape:
    if (!sinfo.values) return "R.Shape(ndim=" + std::to_string(sinfo.ndim) + ")";
    os << "R.Shape([";
    for (size_t i = 0; i < sinfo.values->size(); ++i) {
      if (i) os << ", ";
      writeSignatureDim((*sinfo.values)[i], quoted, os);
    }
    os << "])";
    break;
  case StructInfo::Kind::Prim:
    if (!sinfo.value) return "R.Prim(\"" + sinfo.dtype.str() + "\")";
    os << "R.Prim(value=";
    writeSignatureDim(sinfo.value, quoted, os);
    os << ')';
    break;
  case StructInfo::Kind::Callable: {
    bool objectResult = !sinfo.result || sinfo.result->kind == StructInfo::Kind::Object;
    if (sinfo.opaque) {
      if (objectResult && !sinfo.pure) return "R.Callable";
      os << "R.Callable(";
      if (!objectResult) os << "ret=" << printStructInfo(*sinfo.result, quoted) << (sinfo.pure ? ", " : "");
      if (sinfo.pure) os << "purity=True";
      os << ')';
      break;
    }
    os << "R.Callable((";
    list(sinfo.fields);
    if (sinfo.fields.size() == 1) os << ',';
    os << "), " << (objectResult ? std::string("R.Object") : printStructInfo(*sinfo.result, quoted)) << ", "
       << (sinfo.pure ? "True" : "False") << ')';
    break;
  }
  }
  return os.str();
}

std::string printDim(const Expr &dim) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeDim(dim, os);
  return os.str();
}

size_t RelaxPrintState::constantIndex(const Constant *constant) {
  auto it = std::find(constants.begin(), constants.end(), constant);
  if (it != constants.end()) return size_t(it - constants.begin());
  constants.push_back(constant);
  return constants.size() - 1;
}

void printRelaxFunction(const RelaxFunction &func, llvm::StringRef name, unsigned indent,
                        RelaxPrintState &state, llvm::raw_ostream &os) {
  FunctionPrinter(func, state, os).print(name, indent);
}

std::string printBinding(const RelaxFunction &func, const Binding &binding) {
  // Printed within its function, so that names are the ones the whole printout uses.
  RelaxPrintState state;
  std::string ignored;
  llvm::raw_string_ostream os(ignored);
  FunctionPrinter printer(func, state, os);
  printer.capture(binding);
  printer.print("main", 0);
  return printer.capturedText();
}

}  // namespace vtac::ir::relax

namespace vtac::ir {

bool relaxFunctionUsesTir(const RelaxFunction &func) {
  std::vector<VarRef> vars;
  for (const relax::VarPtr &param : func.params) relax::collectVars(param->sinfo, vars);
  relax::collectVars(func.retSinfo, vars);
  relax::forEachBinding(func.blocks, [&](const relax::Binding &binding) {
    relax::collectVars(binding.var->sinfo, vars);
    if (binding.call) relax::collectVars(binding.call->outputSinfo(), vars);
    if (const RelaxFunction *inner = asRelaxFunction(binding.function)) {
      for (const relax::VarPtr &param : inner->params) relax::collectVars(param->sinfo, vars);
      relax::collectVars(inner->retSinfo, vars);
    }
  });
  return !vars.empty();
}

}  // namespace vtac::ir
