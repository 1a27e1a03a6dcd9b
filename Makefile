# The README's two commands: `make demo` and `make test`. Everything else is CMake.
BUILD      ?= build
ASAN_BUILD ?= build-asan
ASAN_FULL_BUILD ?= build-asan-clang
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
DEMO       ?= samples/conv2d_vta_lowered.tvm
DEMO_REFERENCE ?= samples/conv2d_default_schedule.tvm

.PHONY: deps configure build demo test test-sanitize test-sanitize-full bench clean

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# Print seed 001's lowered conv2d in canonical form, then run it on the VTA simulator against
# the CPU program of the default schedule, with the simulator's statistics.
demo: build
	$(BUILD)/bin/vtac print $(DEMO)
	$(BUILD)/bin/vtac run $(DEMO) --random-inputs --reference $(DEMO_REFERENCE) --stats

# CI's command (`.ci/run`): the release build runs the whole suite (`vtac run` on its default
# engine, the JIT), the slow tests included, but the engine comparison that runs it again on the
# interpreter (label interp, `ctest -L interp`); then test-sanitize-full runs it again, but the
# slow tests, under clang's ASan + UBSan.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE interp
	$(MAKE) test-sanitize-full

# The frontend unit tests and the lit suite under the default compiler's AddressSanitizer +
# UBSan (only what they need is built): `-DVTAC_SANITIZE` with GCC. No longer in CI, whose
# test-sanitize-full runs these tests and all the others under clang.
test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target vtac_frontend_tests
	cd $(ASAN_BUILD) && ctest --output-on-failure -L frontend

# CI's sanitizer phase: the whole suite but the tests labelled slow or interp, under clang's
# AddressSanitizer + UBSan, built at -O1 with line tables only. The C programs of e2e/compile
# link the sanitizer runtimes.
# Time (docs/design.md, Tests): cold on this 2-core machine shared with four engineers building
# (load 12-22) the build took 53.6 min wall, 1282 CPU-s (~11-12 min idle). Its first 65 tests
# (units, round trips) took 5.7x their release time under the same load; the simulator's
# instruction tests ~20x. So the phase leaves to the release phase, whose numerics are the same:
# the slow tests, the e2e tests of over 20 s in release, and the VNNI kernel's variants, which
# repeat the automatic run on a CPU that has VNNI. Estimated idle: tests ~22-32 min, CI ~62-72.
SANITIZE_RELEASE_ONLY = ^(e2e/(tir_lower_conv2d_scheduled|tir_lower_samples|conv2d_tensorir_vta|schedules|conv2d_vta_lower|conv2d_vta|vta_insn)\.test|e2e/compile/jit_samples\.test|vta_.*_avx512vnni)$$
# Tests known to fail under the sanitizers go to SANITIZE_EXCLUDE (a ctest -E regex; none now).
SANITIZE_FLAGS = -O1 -gline-tables-only
SANITIZE_EXCLUDE =
test-sanitize-full: deps
	cmake -S . -B $(ASAN_FULL_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  "-DCMAKE_C_FLAGS_DEBUG=$(SANITIZE_FLAGS)" "-DCMAKE_CXX_FLAGS_DEBUG=$(SANITIZE_FLAGS)" \
	  -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_FULL_BUILD) -j $(JOBS)
	cd $(ASAN_FULL_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|interp' \
	  -E '$(SANITIZE_RELEASE_ONLY)$(if $(SANITIZE_EXCLUDE),|$(SANITIZE_EXCLUDE))'

bench: build
	cmake --build $(BUILD) --target bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(ASAN_FULL_BUILD)
