// Helpers of the backend tests: parse TVMScript text or a sample into a PrimFunc and run it.
#pragma once

#include <string>
#include <vector>

#include "vtac/backend/Interpreter.h"

namespace vtac::backend::test {

// The prim_func `name` of a module written in TVMScript (fails the test on a parse error).
ir::PrimFuncRef parseFunction(const std::string &text, const std::string &name = "main");
// The same from a file of samples/ (tests run in the source directory).
ir::PrimFuncRef loadSample(const std::string &file, const std::string &name = "main");

// Compiles `function` against `registry` (an empty one by default); fails the test on error.
std::unique_ptr<CompiledFunction> compile(const ir::PrimFuncRef &function, const ExternRegistry &registry = {});

// The error of compiling or running `function` on `arguments` ("" on success).
std::string runError(const ir::PrimFuncRef &function, std::vector<Tensor> &arguments,
                     const ExternRegistry &registry = {});

// A tensor of `dtype` and `shape` filled with fillRandom(seed, name).
Tensor randomTensor(ir::DataType dtype, std::vector<int64_t> shape, const std::string &name, uint64_t seed = 1);

// Tensors from values (C order).
Tensor tensorOf(ir::DataType dtype, std::vector<int64_t> shape, const std::vector<double> &values);

}  // namespace vtac::backend::test
