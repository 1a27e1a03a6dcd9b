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

# Everything (`vtac run` on its default engine, the JIT) but the engine comparison, which runs
# the suite again on the interpreter (label interp, `ctest -L interp`).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE interp
	$(MAKE) test-sanitize

# CI's sanitizer phase: the frontend unit tests and the lit suite under AddressSanitizer + UBSan
# (only what they need is built).
test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target vtac_frontend_tests
	cd $(ASAN_BUILD) && ctest --output-on-failure -L frontend

# The whole suite (but the tests labelled slow) under clang's AddressSanitizer + UBSan, built at
# -O1 with line tables only. Not yet in CI: it has not run end to end since its exclusions, and
# takes ~35 minutes on this 2-core machine (issue 12). The C programs of e2e/compile link the
# sanitizer runtimes now. Tests known to fail under the sanitizers go to SANITIZE_EXCLUDE (a
# ctest -E regex; none now: empty excludes nothing).
SANITIZE_FLAGS = -O1 -gline-tables-only
SANITIZE_EXCLUDE =
test-sanitize-full: deps
	cmake -S . -B $(ASAN_FULL_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  "-DCMAKE_C_FLAGS_DEBUG=$(SANITIZE_FLAGS)" "-DCMAKE_CXX_FLAGS_DEBUG=$(SANITIZE_FLAGS)" \
	  -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_FULL_BUILD) -j $(JOBS)
	cd $(ASAN_FULL_BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow -E '$(SANITIZE_EXCLUDE)'

bench: build
	cmake --build $(BUILD) --target bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(ASAN_FULL_BUILD)
