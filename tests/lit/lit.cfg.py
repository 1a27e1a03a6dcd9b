# lit configuration for vtac's golden-file tests: each .tvm file under tests/lit
# carries its own RUN: and CHECK: lines.
import os
import sys
import lit.formats

config.name = "vtac"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tvm", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vtac_obj_root, "tests", "lit")

vtac = os.path.join(config.vtac_obj_root, "bin", "vtac")
# `lit --param engine=jit` runs every `vtac run` of the tests on that engine; an --engine the
# test gives itself comes later on the command line and wins (ctest's lit-interp, e2e-interp).
engine = lit_config.params.get("engine")
if engine:
    config.substitutions.append(("%vtac run", vtac + " run --engine=" + engine))
config.substitutions.append(("%vtac", vtac))
# Generators of large hostile inputs (tests/lit/*/Inputs/*.py) run with lit's own interpreter.
config.substitutions.append(("%python", sys.executable))
# numpy computes the reference results of the high-level Relax operators' runs; it lives in the
# system's Python, which lit's own interpreter need not be. Tests that use it say REQUIRES: numpy.
import subprocess
numpy_python = "/usr/bin/python3"
if os.path.exists(numpy_python) and subprocess.run([numpy_python, "-c", "import numpy"],
                                                   capture_output=True).returncode == 0:
    config.available_features.add("numpy")
    config.substitutions.append(("%numpy-python", numpy_python))
config.substitutions.append(("%samples", os.path.join(config.vtac_src_root, "samples")))
config.substitutions.append(("FileCheck", config.filecheck))
# split-file keeps a case's inputs in its one test file (LLVM's llvm-19-tools, beside FileCheck).
# A pattern, not the bare word: lit substitutes regular expressions into the expanded line, and a
# checkout whose path holds "split-file" (a worktree named after it) must keep its paths.
config.substitutions.append((r"(?<![\w/.-])split-file(?![\w/.-])", os.path.join(os.path.dirname(config.filecheck), "split-file")))
config.substitutions.append(("not ", config.llvm_not + " "))
config.environment["LC_ALL"] = "C"
