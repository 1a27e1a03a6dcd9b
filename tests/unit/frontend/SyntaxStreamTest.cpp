// The syntax stream: a file comes apart into top-level definitions, the header
// of a module class and its members, each parsed on its own.
#include "SyntaxParser.h"

#include <catch2/catch.hpp>

using namespace vtac::frontend;

namespace {

struct Pieces {
  std::vector<SyntaxPiece::Kind> kinds;
  std::vector<bool> insideClass;
  std::vector<bool> parsed;
  std::string diagnostics;
};

Pieces piecesOf(const std::string &text) {
  SourceFile file("pieces.tvm", text);
  DiagnosticEngine diagnostics;
  SyntaxStream stream(file, diagnostics);
  Pieces pieces;
  for (SyntaxPiece piece = stream.next(); piece.kind != SyntaxPiece::Kind::End; piece = stream.next()) {
    pieces.kinds.push_back(piece.kind);
    pieces.insideClass.push_back(piece.insideClass);
    pieces.parsed.push_back(piece.stmt || piece.header);
  }
  pieces.diagnostics = diagnostics.render();
  return pieces;
}

using Kind = SyntaxPiece::Kind;

} // namespace

TEST_CASE("a module class comes apart into its header and its members", "[frontend][syntax]") {
  Pieces pieces = piecesOf("# comment\n"
                           "@I.ir_module\n"
                           "class Module:\n"
                           "    @T.prim_func\n"
                           "    def f():\n"
                           "        if True:\n"
                           "            pass\n"
                           "\n"
                           "    @T.prim_func\n"
                           "    def g():\n"
                           "        pass\n");
  CHECK(pieces.diagnostics.empty());
  CHECK(pieces.kinds == std::vector<Kind>{Kind::ClassHeader, Kind::Statement, Kind::Statement});
  CHECK(pieces.insideClass == std::vector<bool>{false, true, true});
  CHECK(pieces.parsed == std::vector<bool>{true, true, true});
}

TEST_CASE("bare functions are top-level pieces; text after a class is outside it", "[frontend][syntax]") {
  Pieces pieces = piecesOf("@T.prim_func\n"
                           "def f():\n"
                           "    pass\n"
                           "@I.ir_module\n"
                           "class M:\n"
                           "    x = 1\n"
                           "y = 2\n");
  CHECK(pieces.kinds == std::vector<Kind>{Kind::Statement, Kind::ClassHeader, Kind::Statement, Kind::Statement});
  CHECK(pieces.insideClass == std::vector<bool>{false, false, true, false});
}

TEST_CASE("a piece with an error does not stop the pieces after it", "[frontend][syntax]") {
  Pieces pieces = piecesOf("def f() x:\n"
                           "    pass\n"
                           "def g():\n"
                           "    x = $\n"
                           "def h():\n"
                           "    pass\n");
  CHECK(pieces.parsed == std::vector<bool>{false, false, true});
  CHECK_THAT(pieces.diagnostics, Catch::Contains("pieces.tvm:1:9: error: invalid syntax"));
  CHECK_THAT(pieces.diagnostics, Catch::Contains("pieces.tvm:4:9: error: invalid character '$'"));
}
