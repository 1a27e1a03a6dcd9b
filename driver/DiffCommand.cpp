#include "vtac/driver/DiffCommand.h"

#include <iostream>
#include <memory>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "vtac/frontend/Commands.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::driver {

namespace {

// A node in TVMScript, shortened to its first line (a loop's header, not its body). Printing a
// statement on its own declares its free variables first (`i = T.int32()`); those lines are
// skipped.
std::string firstLine(const ir::NodeRef &node) {
  std::string text;
  if (auto *stmt = node.as<ir::StmtNode>())
    text = ir::printStmt(ir::Stmt(stmt));
  else if (auto *expr = node.as<ir::ExprNode>())
    return ir::printExpr(ir::Expr(expr));
  else
    return node ? ir::nodeKindName(node->kind()) : "nothing";
  static const std::regex declaration(R"(^\w+ = T\.\w+\(\)$)");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (!std::regex_match(line, declaration)) return line;
  return text;
}

// Where one side differs: the node's own source line and caret when the parser located it;
// otherwise (a node built by a pass) the enclosing statement's, and the node printed.
void describeSide(std::ostream &out, const char *side, const ir::NodeRef &node,
                  const ir::Stmt &enclosing) {
  if (node && node->loc().isKnown()) {
    out << ir::formatDiagnostic(node->loc(), ir::Severity::Note,
                                std::string(side) + " side: " + firstLine(node));
    return;
  }
  ir::SourceLoc loc = enclosing ? enclosing->loc() : ir::SourceLoc{};
  out << ir::formatDiagnostic(loc, ir::Severity::Note,
                              std::string(side) + " side, inside this statement: " + firstLine(node));
}

}  // namespace

int runDiff(const std::string &left, const std::string &right, std::ostream &out,
            std::ostream &errors) {
  auto a = frontend::loadModule(left, errors);
  auto b = frontend::loadModule(right, errors);
  if (!a || !b) return support::kExitUsageError;
  bool equal = true;
  for (const auto &entry : a->module.functions()) {
    const std::string &name = entry.name->name;
    ir::FunctionRef other = b->module.lookup(name);
    if (!other) {
      out << left << ": function '" << name << "' is not in " << right << "\n";
      equal = false;
      continue;
    }
    auto *fa = entry.function->as<ir::PrimFunc>();
    auto *fb = other->as<ir::PrimFunc>();
    if (!fa || !fb) {
      ir::IRModule oneA, oneB;
      oneA.add(name, entry.function);
      oneB.add(name, other);
      if (!ir::structuralEqual(oneA, oneB)) {
        out << "function '" << name << "' differs\n";
        equal = false;
      }
      continue;
    }
    if (auto difference = ir::findStructuralDifference(*fa, *fb)) {
      out << "function '" << name << "' differs: " << difference->what << "\n";
      describeSide(out, "left", difference->lhs, difference->lhsStmt);
      describeSide(out, "right", difference->rhs, difference->rhsStmt);
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
              "blocks are ignored, as TVM's assert_structural_equal does). Exit status 0 when\n"
              "equal, 1 with the first difference of each function, 2 when a file cannot be read.");
  auto files = std::make_shared<std::vector<std::string>>();
  command->add_option("FILES", *files, "The two modules: A.tvm B.tvm")->required()->expected(2);
  command->callback([&action, files] {
    action = [files] { return runDiff((*files)[0], (*files)[1], std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
