# The README's two commands: `make demo` and `make test`. Everything else is CMake.
BUILD      ?= build
ASAN_BUILD ?= build-asan
ASAN_FULL_BUILD ?= build-asan-clang
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
DEMO       ?= samples/conv2d_vta_lowered.tvm
DEMO_REFERENCE ?= samples/conv2d_default_schedule.tvm

.PHONY: deps configure build demo test check-all test-sanitize test-sanitize-full bench clean

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

# The developer's check: the release build runs the whole suite (`vtac run` on its default
# engine, the JIT), the slow tests included, but the engine comparison that runs it again on the
# interpreter (label interp, `ctest -L interp`).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE interp

# CI's command (`.ci/run`): `make test`, then test-sanitize-full runs the suite again, but the
# slow tests, under clang's ASan + UBSan.
check-all: test
	$(MAKE) test-sanitize-full

# The frontend and driver unit tests and the lit suite under the default compiler's AddressSanitizer +
# UBSan (only what they need is built): `-DVTAC_SANITIZE` with GCC. No longer in CI, whose
# test-sanitize-full runs these tests and all the others under clang.
test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target vtac_frontend_tests vtac_driver_tests
	cd $(ASAN_BUILD) && ctest --output-on-failure -L "frontend|driver"

# CI's sanitizer phase: the whole suite but the tests labelled slow or interp, under clang's
# AddressSanitizer + UBSan, built at -O1 with line tables only. The C programs of e2e/compile
# link the sanitizer runtimes.
# Time (docs/design.md, Tests), fresh clone on this 2-core machine, quiet: `CI=true bash .ci/run`
# took 29.4 min with the sanitizer build cold (release objects from ccache): release ctest 9.0
# min, sanitizer ctest 8.1 min, both builds 12.3 min. The 12 tests then still left to the release
# phase (the e2e tests of over 20 s, the VNNI variants) passed in the same sanitizer build in
# 7.8 min at -j1, so they run here too; with a cold release build (~10 min) CI takes ~45-50 min.
# 2026-11-30: check-all 35.3 min (release ctest 6.3, sanitizer ctest 17.6); cold release build 11.9.
# Unity builds (VTAC_UNITY_BUILD, top-level CMakeLists.txt) halve the compile CPU time (bench/RESULTS.md):
# a cold `make test` (CCACHE_DISABLE=1, fresh clone, quiet machine) took 14 min 43 s (build 7.2, ctest 7.5).
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
	  $(if $(SANITIZE_EXCLUDE),-E '$(SANITIZE_EXCLUDE)')

bench: build
	cmake --build $(BUILD) --target bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(ASAN_FULL_BUILD)
