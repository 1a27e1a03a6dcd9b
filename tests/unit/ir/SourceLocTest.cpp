// Source registry and diagnostic formatting.
#include <catch2/catch.hpp>

#include "vtac/ir/SourceLoc.h"

using namespace vtac::ir;

TEST_CASE("diagnostics show file:line:col, the source line and a caret", "[ir][diag]") {
  uint32_t file = registerSourceFile("layer.tvm", "first line\n    A[i] = B[j]\nlast");
  CHECK(sourceFileName(file) == "layer.tvm");
  CHECK(sourceLine(file, 2) == "    A[i] = B[j]");
  CHECK(sourceLine(file, 3) == "last");
  CHECK(sourceLine(file, 4) == "");
  CHECK(formatDiagnostic({file, 2, 14}, Severity::Error, "undefined variable 'j'") ==
        "layer.tvm:2:14: error: undefined variable 'j'\n"
        "    A[i] = B[j]\n"
        "             ^\n");
}

TEST_CASE("diagnostics without a location have no prefix", "[ir][diag]") {
  CHECK(formatDiagnostic({}, Severity::Warning, "no location") == "warning: no location\n");
  CHECK(sourceFileName(0) == "<unknown>");
}
