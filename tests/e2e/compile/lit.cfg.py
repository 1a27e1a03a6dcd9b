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

# arm_qemu.test (REQUIRES: arm-qemu): the VTA runtime + simulator cross-built for the PYNQ board
# (armhf) and run under qemu-arm, with the armhf libLLVM and spdlog that scripts/install-deps.sh
# unpacks into ARMHF_ROOT. Skipped, with a note saying why, where any of them is missing.
#   %arm_cc %arm_cxx  the cross compilers
#   %arm_vta_cflags   include paths and definitions of the runtime + simulator sources
#   %arm_vta_sources  those sources (CMake's, without the x86 GEMM kernels)
#   %arm_vta_libs     the armhf libraries they link
#   %qemu_arm         qemu-arm with the cross toolchain's loader and the armhf libraries
import shutil

ARMHF_ROOT = "/opt/vtac-armhf"  # as scripts/install-deps.sh makes it
armhf_libs = [os.path.join(ARMHF_ROOT, d, "arm-linux-gnueabihf") for d in ["usr/lib", "lib"]]
arm_missing = [tool for tool in ["arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-g++", "qemu-arm"]
               if not shutil.which(tool)]
if not os.path.exists(os.path.join(armhf_libs[0], "libLLVM-19.so")):
    arm_missing.append(ARMHF_ROOT)
if arm_missing:
    lit_config.note("arm_qemu.test skipped: no " + ", ".join(arm_missing) + " (scripts/install-deps.sh installs them)")
else:
    config.available_features.add("arm-qemu")
config.substitutions.append(("%arm_cc", "arm-linux-gnueabihf-gcc"))
config.substitutions.append(("%arm_cxx", "arm-linux-gnueabihf-g++"))
# /usr/include last: spdlog, fmt and dlpack.h are the host's headers, the C library the cross one's.
config.substitutions.append(("%arm_vta_cflags", " ".join(
    ["-I" + os.path.join(src, d) for d in ["runtime/include", "simulator/include", "simulator/src"]] +
    ["-I" + config.llvm_include_dir, config.vta_definitions, "-idirafter /usr/include", "-Wno-psabi"])))
config.substitutions.append(("%arm_vta_sources", config.vta_sources))
config.substitutions.append(("%arm_vta_libs", "-L{0} -lLLVM-19 -l:libspdlog.so.1.10 -l:libfmt.so.9 -Wl,-rpath-link,{1} "
                             "-lpthread -lm".format(armhf_libs[0], ":".join(armhf_libs))))
# (An RPATH would not reach libLLVM's own dependencies: its RUNPATH takes precedence.)
config.substitutions.append(("%qemu_arm", "qemu-arm -L /usr/arm-linux-gnueabihf -E LD_LIBRARY_PATH=" +
                             ":".join(armhf_libs)))
