// Round-trip check of one TVMScript file, registered as one CTest test per
// sample: x1 = print(parse(x)) and x2 = print(parse(x1)) must be byte-identical,
// and parse(x1) must be structurally equal to parse(x).
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/StructuralEqual.h"

#include <iostream>
#include <sstream>

using namespace vtac;

static std::optional<frontend::ParsedModule> parseText(const std::string &name, std::string text) {
  frontend::SourceFile file(name, std::move(text));
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  std::cerr << diagnostics.render();
  return parsed;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: frontend_roundtrip FILE.tvm\n";
    return 2;
  }
  std::string path = argv[1];
  llvm::Expected<frontend::ParsedModule> original = frontend::loadModule(path);
  if (!original) {
    std::cerr << ir::renderError(original.takeError()) << path << ": does not parse\n";
    return 1;
  }
  std::string printed = frontend::printParsedModule(*original);
  std::optional<frontend::ParsedModule> reparsed = parseText(path + " (printed)", printed);
  if (!reparsed) {
    std::cerr << "the printed form does not parse:\n" << printed;
    return 1;
  }
  std::string reprinted = frontend::printParsedModule(*reparsed);
  int status = 0;
  if (reprinted != printed) {
    std::cerr << "printing the re-parsed module changes the text.\nfirst print:\n"
              << printed << "\nsecond print:\n"
              << reprinted;
    status = 1;
  }
  if (!ir::structuralEqual(original->module, reparsed->module)) {
    std::cerr << "parse(print(parse(x))) is not structurally equal to parse(x)\n";
    for (size_t i = 0; i < original->module.size() && i < reparsed->module.size(); ++i) {
      auto *a = original->module.functions()[i].function.as<ir::PrimFunc>();
      auto *b = reparsed->module.functions()[i].function.as<ir::PrimFunc>();
      if (a && b)
        if (std::string difference = ir::firstStructuralDifference(*a, *b); !difference.empty())
          std::cerr << original->module.functions()[i].name->name << ": " << difference << "\n";
    }
    status = 1;
  }
  return status;
}
