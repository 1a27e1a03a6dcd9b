// Module level of the frontend: decorators, the module class, and dispatching
// each def to the prim_func builder or the Relax function builder.
#include "vtac/frontend/Frontend.h"

#include "FunctionBuilder.h"
#include "RelaxFunctionBuilder.h"
#include "IntrinsicRegistration.h"
#include "ScheduleDefinition.h"
#include "SyntaxParser.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <unordered_map>

namespace vtac::frontend {

namespace {

enum class DecoratorKind { PrimFunc, RelaxFunction, IRModule, Unknown };

// Decorators are recognised by their dotted name; arguments such as
// `@T.prim_func(private=True)` do not change what the def is.
DecoratorKind classify(Grammar::DecoratorContext *decorator) {
  std::string text = decorator->expr()->getText();
  std::string name = text.substr(0, text.find('('));
  if (name == "T.prim_func" || name == "tvm.script.tir.prim_func")
    return DecoratorKind::PrimFunc;
  if (name == "R.function")
    return DecoratorKind::RelaxFunction;
  if (name == "I.ir_module" || name == "tvm.script.ir_module" || name == "ir_module")
    return DecoratorKind::IRModule;
  return DecoratorKind::Unknown;
}

// The built function (null after errors), private when the decorator says so.
template <class F> ir::FunctionRef markedPrivate(ir::Ref<F> func, bool isPrivate) {
  if (!func || !isPrivate) return func;
  F *copy = ir::copyNode(*func);
  copy->isPrivate = true;
  return ir::Ref<F>(copy);
}

class ModuleBuilder {
public:
  ModuleBuilder(const SourceFile &file, DiagnosticEngine &diagnostics)
      : file_(file), diagnostics_(diagnostics) {}

  std::optional<ParsedModule> build(SyntaxStream &syntax);

private:
  ir::SourceLoc loc(const antlr4::ParserRuleContext *context) const {
    return locationOf(file_, context);
  }
  void addDefinition(Grammar::StmtContext *stmt, bool insideClass);
  void beginClass(Grammar::Class_headerContext *header);
  void addFunction(Grammar::FuncdefContext *def, DecoratorKind kind, Grammar::DecoratorContext *decorator);
  std::optional<bool> decoratorFlag(Grammar::DecoratorContext *decorator, const std::string &name, bool absent);
  bool moduleStatement(Grammar::Small_stmtContext *small);
  bool claimName(const std::string &name, ir::SourceLoc at);
  void addSchedule(Grammar::FuncdefContext *def);
  std::optional<ir::relax::StructInfo> relaxSignature(const std::string &name);

  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  ParsedModule result_;
  std::vector<std::string> names_;
  bool sawModuleAttrs_ = false;
  bool sawGlobalInfos_ = false;
  bool signaturesRead_ = false;
  std::unordered_map<std::string, ir::relax::StructInfo> signatures_;
};

bool ModuleBuilder::claimName(const std::string &name, ir::SourceLoc at) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
    diagnostics_.error(at, "redefinition of function '" + name + "'");
    return false;
  }
  names_.push_back(name);
  return true;
}

// The flag `name` (`private=True` of `@T.prim_func(...)` / `@R.function(...)`, `pure=False` of
// `@R.function(...)`), `absent` when not given; other arguments (`check_well_formed=False`) do
// not change what vtac builds.
std::optional<bool> ModuleBuilder::decoratorFlag(Grammar::DecoratorContext *decorator, const std::string &name,
                                                 bool absent) {
  auto *call = dynamic_cast<Grammar::CallExprContext *>(decorator->expr());
  if (!call || !call->arglist()) return absent;
  bool flag = absent;
  for (Grammar::ArgumentContext *argument : call->arglist()->argument()) {
    auto *keyword = dynamic_cast<Grammar::KeywordArgumentContext *>(argument);
    if (!keyword || keyword->NAME()->getText() != name) continue;
    std::string value = keyword->expr()->getText();
    if (value != "True" && value != "False") {
      diagnostics_.error(loc(keyword->expr()), name + " must be True or False");
      return std::nullopt;
    }
    flag = value == "True";
  }
  return flag;
}

void ModuleBuilder::addFunction(Grammar::FuncdefContext *def, DecoratorKind kind,
                                Grammar::DecoratorContext *decorator) {
  std::string name = def->NAME()->getText();
  ir::SourceLoc at = locationOf(file_, def->NAME()->getSymbol());
  std::optional<bool> isPrivate = decoratorFlag(decorator, "private", false);
  std::optional<bool> isPure = decoratorFlag(decorator, "pure", true);
  if (!isPrivate || !isPure || !claimName(name, at))
    return;
  ir::FunctionRef func;
  if (kind == DecoratorKind::RelaxFunction) {
    ir::RelaxFunctionRef relaxFunc = RelaxFunctionBuilder(file_, diagnostics_, result_.className,
                                                          [this](const std::string &callee) { return relaxSignature(callee); },
                                                          &result_.module.vdevices)
                                         .build(def);
    if (relaxFunc && !*isPure) {
      ir::RelaxFunction *impure = ir::copyNode(*relaxFunc);
      impure->isPure = false;
      relaxFunc = ir::RelaxFunctionRef(impure);
    }
    func = markedPrivate(relaxFunc, *isPrivate);
  } else
    func = markedPrivate(FunctionBuilder(file_, diagnostics_).build(def), *isPrivate);
  if (func)
    result_.module.add(name, func);
}

// A statement of the module class besides its functions: `I.module_attrs({...})`, the
// module's attributes (literals), or `I.module_global_infos({"vdevice": [...]})`, its virtual
// devices. True when `small` is one.
bool ModuleBuilder::moduleStatement(Grammar::Small_stmtContext *small) {
  auto *exprStmt = small->expr_stmt();
  if (!exprStmt || exprStmt->annassign() || exprStmt->augassign() || exprStmt->ASSIGN() ||
      exprStmt->testlist(0)->expr().size() != 1)
    return false;
  auto *call = dynamic_cast<Grammar::CallExprContext *>(exprStmt->testlist(0)->expr(0));
  if (!call) return false;
  std::string callee = call->expr()->getText();
  if (callee == "I.module_global_infos") {
    if (sawGlobalInfos_) {
      diagnostics_.error(loc(call), "the module's global infos are given twice");
      return true;
    }
    sawGlobalInfos_ = true;
    readModuleGlobalInfos(file_, diagnostics_, call, result_.module.vdevices);
    return true;
  }
  if (callee != "I.module_attrs") return false;
  auto *args = call->arglist();
  auto *argument = args && args->argument().size() == 1
                       ? dynamic_cast<Grammar::PositionalArgumentContext *>(args->argument(0))
                       : nullptr;
  auto *atom = argument ? dynamic_cast<Grammar::AtomExprContext *>(argument->expr()) : nullptr;
  if (!atom || !dynamic_cast<Grammar::DictAtomContext *>(atom->atom())) {
    diagnostics_.error(loc(call), "I.module_attrs takes one dictionary");
    return true;
  }
  if (sawModuleAttrs_) {
    diagnostics_.error(loc(call), "the module's attributes are given twice");
    return true;
  }
  sawModuleAttrs_ = true;
  if (std::optional<ir::AttrValue> attrs = readAttrLiteral(file_, diagnostics_, argument->expr()))
    result_.module.attrs = attrs->asMap();
  return true;
}

void ModuleBuilder::addDefinition(Grammar::StmtContext *stmt, bool insideClass) {
  const char *expected = insideClass
                             ? "expected a @T.prim_func or @R.function def in the module class"
                             : "expected a @T.prim_func def or an @I.ir_module class";
  auto *compound = stmt->compound_stmt();
  if (!compound) {
    // Docstrings, `pass` and imports are harmless.
    auto *simple = stmt->simple_stmt();
    for (auto *small : simple->small_stmt()) {
      if (!insideClass && readIntrinsicRegistration(file_, diagnostics_, small, result_.intrinsics))
        continue;
      if (insideClass && moduleStatement(small))
        continue;
      auto *exprStmt = small->expr_stmt();
      bool harmless = small->PASS() || small->import_stmt() ||
                      (exprStmt && !exprStmt->annassign() && !exprStmt->augassign() &&
                       !exprStmt->ASSIGN() && small->getStart()->getType() == Grammar::STRING);
      if (!harmless) {
        diagnostics_.error(loc(small), expected);
        return;
      }
    }
    return;
  }
  auto *decorated = compound->decorated();
  if (!decorated) {
    diagnostics_.error(loc(compound), expected);
    return;
  }
  DecoratorKind kind = DecoratorKind::Unknown;
  Grammar::DecoratorContext *last = nullptr;
  for (auto *decorator : decorated->decorator()) {
    last = decorator;
    kind = classify(decorator);
    if (kind == DecoratorKind::Unknown) {
      diagnostics_.error(loc(decorator->expr()),
                         "unknown decorator '@" + decorator->expr()->getText() + "'");
      return;
    }
  }
  if (auto *def = decorated->funcdef()) {
    if (kind == DecoratorKind::IRModule) {
      diagnostics_.error(loc(def), "@I.ir_module decorates a class, not a def");
      return;
    }
    addFunction(def, kind, last);
    return;
  }
  // A class written on one line (`class M: pass`): its header was not split off.
  diagnostics_.error(loc(decorated->classdef()),
                     insideClass ? "a module class cannot contain another class"
                                 : "a module class needs an indented body");
}

// The signature of the module's Relax function `name` (for `cls.name(x)`): from the function
// when it is built already, else from its def, read in a first pass over the whole file the
// first time a later function is called (TVM's parser declares every function's signature
// before it reads the bodies). Errors of that pass are the second pass's to report.
std::optional<ir::relax::StructInfo> ModuleBuilder::relaxSignature(const std::string &name) {
  // A prim_func called directly (`cls.exp(x, alloc)`, TVM's lowered form) writes into its
  // arguments and returns nothing: R.Callable(ret=R.Tuple, purity=False), opaque.
  auto primFuncSignature = [] {
    auto sinfo = ir::relax::StructInfo::of(ir::relax::StructInfo::Kind::Callable);
    sinfo.opaque = true;
    sinfo.pure = false;
    sinfo.result = std::make_shared<const ir::relax::StructInfo>(ir::relax::StructInfo::of(ir::relax::StructInfo::Kind::Tuple));
    return sinfo;
  };
  if (ir::FunctionRef existing = result_.module.lookup(name); existing && !ir::asRelaxFunction(existing))
    return primFuncSignature();
  if (const ir::RelaxFunction *built = ir::asRelaxFunction(result_.module.lookup(name))) {
    auto sinfo = ir::relax::StructInfo::of(ir::relax::StructInfo::Kind::Callable, built->loc());
    for (const ir::relax::VarPtr &param : built->params) sinfo.fields.push_back(param->sinfo);
    sinfo.result = std::make_shared<const ir::relax::StructInfo>(built->retSinfo);
    return sinfo;
  }
  if (!signaturesRead_) {
    signaturesRead_ = true;
    DiagnosticEngine ignored;
    SyntaxStream syntax(file_, ignored);
    for (SyntaxPiece piece = syntax.next(); piece.kind != SyntaxPiece::Kind::End; piece = syntax.next()) {
      auto *compound = piece.insideClass && piece.stmt ? piece.stmt->compound_stmt() : nullptr;
      auto *decorated = compound ? compound->decorated() : nullptr;
      auto *def = decorated ? decorated->funcdef() : nullptr;
      DecoratorKind kind = def && !decorated->decorator().empty() ? classify(decorated->decorator().back())
                                                                  : DecoratorKind::Unknown;
      if (kind == DecoratorKind::PrimFunc) signatures_.emplace(def->NAME()->getText(), primFuncSignature());
      if (kind != DecoratorKind::RelaxFunction) continue;
      if (std::optional<ir::relax::StructInfo> sinfo = RelaxFunctionBuilder(file_, ignored, result_.className, {}, &result_.module.vdevices).signature(def))
        signatures_.emplace(def->NAME()->getText(), std::move(*sinfo));
    }
  }
  auto it = signatures_.find(name);
  return it == signatures_.end() ? std::nullopt : std::optional<ir::relax::StructInfo>(it->second);
}

void ModuleBuilder::addSchedule(Grammar::FuncdefContext *def) {
  ir::SourceLoc at = locationOf(file_, def->NAME()->getSymbol());
  if (result_.schedule) {
    diagnostics_.error(at, "a file holds one schedule def; the first is at line " +
                               std::to_string(result_.schedule->loc.line));
    return;
  }
  result_.schedule = buildTrace(file_, diagnostics_, def);
}

void ModuleBuilder::beginClass(Grammar::Class_headerContext *header) {
  bool isModule = !header->decorator().empty();
  for (auto *decorator : header->decorator())
    isModule &= classify(decorator) == DecoratorKind::IRModule;
  if (!isModule) {
    diagnostics_.error(loc(header), "a class must be decorated with @I.ir_module");
    return;
  }
  if (!result_.className.empty() || !result_.module.empty()) {
    diagnostics_.error(loc(header), "a file holds one module: one @I.ir_module class or bare functions");
    return;
  }
  result_.className = header->NAME()->getText();
  result_.module.loc = loc(header);
}

std::optional<ParsedModule> ModuleBuilder::build(SyntaxStream &syntax) {
  size_t errorsBefore = diagnostics_.errorCount();
  bool sawPiece = false;
  for (SyntaxPiece piece = syntax.next(); piece.kind != SyntaxPiece::Kind::End;
       piece = syntax.next()) {
    sawPiece = true;
    if (diagnostics_.limitReached())
      break;
    if (piece.kind == SyntaxPiece::Kind::ClassHeader) {
      if (piece.header)
        beginClass(piece.header);
      continue;
    }
    // A schedule def may sit anywhere at the top level (TraceReader.h).
    if (auto *def = piece.insideClass ? nullptr : scheduleDefinition(piece.stmt)) {
      addSchedule(def);
      continue;
    }
    if (!result_.className.empty() && !piece.insideClass) {
      diagnostics_.error(piece.loc, "a file holds one module: nothing may follow the module class");
      break;
    }
    if (piece.stmt)
      addDefinition(piece.stmt, piece.insideClass);
  }
  if (!sawPiece && !diagnostics_.hasErrors()) {
    diagnostics_.error(file_.at(1, 1), "empty module: expected a @T.prim_func def or an @I.ir_module class");
    return std::nullopt;
  }
  // Calls are checked against their callees once every function is known.
  if (diagnostics_.errorCount() == errorsBefore)
    checkRelaxCalls(result_.module, diagnostics_);
  if (diagnostics_.errorCount() != errorsBefore)
    return std::nullopt;
  return std::move(result_);
}

} // namespace

std::optional<ParsedModule> parseModule(const SourceFile &file, DiagnosticEngine &diagnostics) {
  auto start = std::chrono::steady_clock::now();
  SyntaxStream syntax(file, diagnostics);
  std::optional<ParsedModule> module = ModuleBuilder(file, diagnostics).build(syntax);
  spdlog::debug("{}: parsed and built in {:.1f} ms", file.name(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return module;
}

} // namespace vtac::frontend
