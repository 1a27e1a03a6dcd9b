// The diagnostics engine and source files: rendering, the error limit, UTF-8
// validation and reading files.
#include "TestSupport.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/ir/Diagnostic.h"

#include <catch2/catch.hpp>

using namespace vtac::frontend;

TEST_CASE("a diagnostic shows file, line, column, the source line and a caret", "[frontend][diagnostics]") {
  SourceFile file("d.tvm", "first line\n    second line\n");
  DiagnosticEngine diagnostics;
  diagnostics.error(file.at(2, 5), "something is wrong");
  CHECK(diagnostics.render() == "d.tvm:2:5: error: something is wrong\n"
                                "    second line\n"
                                "    ^\n");
  CHECK(diagnostics.errorCount() == 1);
}

TEST_CASE("errors beyond the limit are dropped with one note", "[frontend][diagnostics]") {
  SourceFile file("d.tvm", "x\n");
  DiagnosticEngine diagnostics(3);
  for (int i = 0; i < 10; ++i)
    diagnostics.error(file.at(1, 1), "error " + std::to_string(i));
  std::string text = diagnostics.render();
  CHECK_THAT(text, Catch::Contains("error 2"));
  CHECK_THAT(text, !Catch::Contains("error 3"));
  CHECK(diagnostics.errorCount() == 3);
  CHECK_THAT(text, Catch::Contains("too many errors (limit 3), stopping"));
  CHECK(diagnostics.limitReached());
}

TEST_CASE("the diagnostics as an error value render as the engine renders them", "[frontend][diagnostics]") {
  SourceFile file("d.tvm", "x\ny\n");
  DiagnosticEngine diagnostics(2);
  llvm::Error none = diagnostics.toError();
  CHECK_FALSE(static_cast<bool>(none));
  diagnostics.error(file.at(1, 1), "first");
  diagnostics.error(file.at(2, 1), "second");  // reaches the limit: a note follows
  std::string rendered = vtac::ir::renderError(diagnostics.toError());
  CHECK(rendered == diagnostics.render());
  CHECK_THAT(rendered, Catch::Contains("note: too many errors (limit 2), stopping"));
  CHECK(vtac::ir::renderError(vtac::ir::fileError("a b.py", "cannot read file: gone")) ==
        "a b.py: error: cannot read file: gone\n");
}

TEST_CASE("a file with twenty-five independent errors reports twenty", "[frontend][diagnostics]") {
  std::string body;
  for (int i = 0; i < 25; ++i)
    body += "A[0] = undefined_" + std::to_string(i) + "\n";
  testing::ParseOutcome outcome = testing::parseText(testing::functionWithBody(body));
  CHECK_FALSE(outcome.parsed);
  CHECK_THAT(outcome.diagnostics, Catch::Contains("undefined name 'undefined_19'"));
  CHECK_THAT(outcome.diagnostics, !Catch::Contains("undefined name 'undefined_20'"));
  CHECK_THAT(outcome.diagnostics, Catch::Contains("too many errors (limit 20)"));
}

TEST_CASE("invalid UTF-8 is found at its line and column", "[frontend][diagnostics]") {
  SourceFile valid("v.tvm", "caf\xc3\xa9\n");
  CHECK_FALSE(valid.firstInvalidUtf8().isKnown());
  SourceFile invalid("i.tvm", "ok\nab\xff\n");
  vtac::ir::SourceLoc at = invalid.firstInvalidUtf8();
  CHECK(at.line == 2);
  CHECK(at.column == 3);
  SourceFile overlong("o.tvm", "\xc0\xaf");
  CHECK(overlong.firstInvalidUtf8().isKnown());
}

TEST_CASE("reading a missing file reports the system's reason", "[frontend][diagnostics]") {
  std::string contents, error;
  CHECK_FALSE(readSourceFile("/nonexistent/file.tvm", contents, error));
  CHECK(error == "No such file or directory");
  CHECK_FALSE(readSourceFile("/", contents, error));
  CHECK(error == "Is a directory");
}
