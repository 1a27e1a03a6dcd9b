#include "vtac/driver/DiffCommand.h"

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::driver {

namespace {

std::string blockLabel(const ir::Block &block) { return "block \"" + block.name + "\""; }

// How a node reads in a note: a statement's first line, an expression, a variable or buffer by
// its name.
std::string quote(const ir::NodeRef &node) {
  // A block's first line would be the implicit root's `T.block("root", no_realize=True)`.
  if (auto *block = node.as<ir::Block>()) return blockLabel(*block);
  if (auto *stmt = node.as<ir::StmtNode>()) return ir::printStmtFirstLine(ir::Stmt(stmt));
  if (auto *expr = node.as<ir::ExprNode>()) return ir::printExpr(ir::Expr(expr));
  if (auto *buffer = node.as<ir::Buffer>()) return buffer->name;
  if (auto *iterVar = node.as<ir::IterVar>()) return iterVar->var->name;
  return ir::nodeKindName(node->kind());
}

std::string withoutColon(std::string line) {
  if (!line.empty() && line.back() == ':') line.pop_back();
  return line;
}

// The statements enclosing a difference, outermost first: loops by their variable, blocks by
// their name, the innermost statement as its first line (`for i / for j / C[j] = A[j] + 1`).
std::string statementPath(const std::vector<ir::NodeRef> &path) {
  // Sequences and the root block are not written in the source.
  auto written = [](const ir::StmtNode *stmt) {
    auto *realize = stmt->as<ir::BlockRealize>();
    return !stmt->isa<ir::SeqStmt>() && !(realize && realize->block->name == "root");
  };
  std::vector<const ir::StmtNode *> stmts;
  for (const ir::NodeRef &node : path)
    if (auto *stmt = node.as<ir::StmtNode>(); stmt && written(stmt)) stmts.push_back(stmt);
  std::string text;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const ir::StmtNode *stmt = stmts[i];
    text += i ? " / " : "";
    if (i + 1 == stmts.size()) text += withoutColon(ir::printStmtFirstLine(ir::Stmt(stmt)));
    else if (auto *loop = stmt->as<ir::For>()) text += "for " + loop->loopVar->name;
    else if (auto *realize = stmt->as<ir::BlockRealize>()) text += blockLabel(*realize->block);
    else text += withoutColon(ir::printStmtFirstLine(ir::Stmt(stmt)));
  }
  return text;
}

// Where a side of the difference shows: at the innermost statement or expression on its path
// that the parser located (a load rather than the buffer's declaration, a literal, a
// statement); else at the node itself (a parameter), else at the function.
ir::SourceLoc locate(const ir::StructuralDifference::Side &side) {
  for (auto it = side.path.rbegin(); it != side.path.rend(); ++it)
    if (!(*it)->isa<ir::Function>() && (*it)->loc().isKnown()) return (*it)->loc();
  if (side.node && side.node->loc().isKnown()) return side.node->loc();
  return side.path.empty() ? ir::SourceLoc{} : side.path.front()->loc();
}

void describeSide(std::ostream &out, const char *name, const ir::StructuralDifference::Side &side) {
  using Presence = ir::StructuralDifference::Side::Presence;
  std::string message = std::string(name) + " side";
  if (side.presence == Presence::MissingBefore) message += ": missing before this statement";
  else if (side.presence == Presence::MissingAfter) message += ": missing after this statement";
  else if (side.node && !side.node->isa<ir::Function>()) message += ": " + quote(side.node);
  out << ir::formatDiagnostic(locate(side), ir::Severity::Note, message);
  if (std::string path = statementPath(side.path); !path.empty()) out << "in: " << path << "\n";
}

// A graph difference shows the binding it is in, printed, and its source line.
void describeGraphSide(std::ostream &out, const char *name, const ir::RelaxFunction &func,
                       const ir::relax::GraphDifference::Side &side) {
  std::string message = std::string(name) + " side";
  if (side.missing) message += side.binding ? ": missing after this binding" : ": missing";
  else if (side.binding) message += ": " + ir::relax::printBinding(func, *side.binding);
  out << ir::formatDiagnostic(side.loc, ir::Severity::Note, message);
}

}  // namespace

int runDiff(const std::string &left, const std::string &right, std::ostream &out,
            std::ostream &errors) {
  llvm::Expected<frontend::ParsedModule> a = frontend::loadModule(left);
  llvm::Expected<frontend::ParsedModule> b = frontend::loadModule(right);
  if (!a || !b) {
    if (!a) errors << ir::renderError(a.takeError());
    if (!b) errors << ir::renderError(b.takeError());
    return support::kExitUsageError;
  }
  bool equal = true;
  std::string leftAttrs = ir::printAttrMap(a->module.attrs), rightAttrs = ir::printAttrMap(b->module.attrs);
  if (leftAttrs != rightAttrs) {
    out << "module attributes differ: " << leftAttrs << " vs " << rightAttrs << "\n";
    equal = false;
  }
  std::string leftDevices = ir::printVDevices(a->module.vdevices), rightDevices = ir::printVDevices(b->module.vdevices);
  if (leftDevices != rightDevices) {
    out << "module virtual devices differ: " << leftDevices << " vs " << rightDevices << "\n";
    equal = false;
  }
  for (const auto &entry : a->module.functions()) {
    const std::string &name = entry.name->name;
    ir::FunctionRef other = b->module.lookup(name);
    if (!other) {
      out << left << ": function '" << name << "' is not in " << right << "\n";
      equal = false;
      continue;
    }
    const auto *relaxLeft = ir::asRelaxFunction(entry.function), *relaxRight = ir::asRelaxFunction(other);
    if (relaxLeft && relaxRight && relaxLeft->isPure != relaxRight->isPure) {
      out << "function '" << name << "' differs: pure=False on the " << (relaxLeft->isPure ? "right" : "left")
          << " side only\n";
      out << ir::formatDiagnostic(entry.function->loc(), ir::Severity::Note, "left side");
      out << ir::formatDiagnostic(other->loc(), ir::Severity::Note, "right side");
      equal = false;
      continue;
    }
    if (entry.function->isPrivate != other->isPrivate) {
      // TVM compares global_symbol, which a private function lacks.
      out << "function '" << name << "' differs: private on the " << (entry.function->isPrivate ? "left" : "right")
          << " side only\n";
      out << ir::formatDiagnostic(entry.function->loc(), ir::Severity::Note, "left side");
      out << ir::formatDiagnostic(other->loc(), ir::Severity::Note, "right side");
      equal = false;
      continue;
    }
    if (const ir::RelaxFunction *ga = ir::asRelaxFunction(entry.function)) {
      if (const ir::RelaxFunction *gb = ir::asRelaxFunction(other)) {
        if (auto difference = ir::relax::findStructuralDifference(*ga, *gb)) {
          out << "function '" << name << "' differs: " << difference->what << "\n";
          describeGraphSide(out, "left", *ga, difference->lhs);
          describeGraphSide(out, "right", *gb, difference->rhs);
          equal = false;
        }
        continue;
      }
    }
    auto *fa = entry.function->as<ir::PrimFunc>();
    auto *fb = other->as<ir::PrimFunc>();
    if (!fa || !fb) {
      out << "function '" << name << "' differs: a prim_func against a graph function\n";
      out << ir::formatDiagnostic(entry.function->loc(), ir::Severity::Note, "left side");
      out << ir::formatDiagnostic(other->loc(), ir::Severity::Note, "right side");
      equal = false;
      continue;
    }
    if (auto difference = ir::findStructuralDifference(*fa, *fb)) {
      out << "function '" << name << "' differs: " << difference->what << "\n";
      describeSide(out, "left", difference->lhs);
      describeSide(out, "right", difference->rhs);
      equal = false;
    }
  }
  for (const auto &entry : b->module.functions())
    if (!a->module.lookup(entry.name->name)) {
      out << right << ": function '" << entry.name->name << "' is not in " << left << "\n";
      equal = false;
    }
  return equal ? support::kExitSuccess : support::kExitInputError;
}

void registerDiffCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "diff", "Compare two TVMScript modules structurally (names of variables, buffers and\n"
              "blocks are ignored, as TVM's assert_structural_equal does). For each function\n"
              "that differs, shows the first difference in both files: file:line:col of the\n"
              "differing use (a load, a literal, a statement; for a graph function the binding),\n"
              "its source line, and the enclosing statements (`in: for i / for j / C[j] = ...`);\n"
              "a statement on one side only is shown where it would be on the other. Exit status\n"
              "0 when equal, 1 when different, 2 when a file cannot be read.");
  auto files = std::make_shared<std::vector<std::string>>();
  command->add_option("FILES", *files, "The two modules: A.tvm B.tvm")->required()->expected(2);
  command->callback([&action, files] {
    action = [files] { return runDiff((*files)[0], (*files)[1], std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
