# lit configuration of the compiled-layer tests: the substitutions of tests/lit, plus
#   %cc          the C compiler
#   %vta_cflags  include paths of vta/runtime.h, vta/sim.h, vtac/parallel.h and the test harness
#                (Inputs/); in a sanitizer build also its -fsanitize flags
#   %vta_libs    -lvta_runtime -lvta_sim -lvtac_parallel from the build, with an rpath; in a
#                sanitizer build after the flags that link the sanitizer runtimes
import os

lit_config.load_config(config, os.path.join(config.vtac_src_root, "tests", "lit", "lit.cfg.py"))
config.name = "vtac-e2e-compile"
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vtac_obj_root, "tests", "e2e", "compile")

src, lib = config.vtac_src_root, os.path.join(config.vtac_obj_root, "lib")
config.substitutions.append(("%cc", config.cc))
config.substitutions.append(("%vta_cflags", " ".join(
    ["-I" + os.path.join(src, d) for d in ["runtime/include", "runtime/parallel/include", "simulator/include",
                                           "tests/e2e/compile/Inputs"]] + [config.sanitizer_cflags])))
config.substitutions.append(("%vta_libs", "{1} -L{0} -lvta_runtime -lvta_sim -lvtac_parallel -Wl,-rpath,{0} -lm -lpthread".format(
    lib, config.sanitizer_libs)))
