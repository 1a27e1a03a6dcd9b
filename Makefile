# The README's two commands: `make demo` and `make test`. Everything else is CMake.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
DEMO       ?= samples/conv2d_vta_lowered.tvm
DEMO_REFERENCE ?= samples/conv2d_default_schedule.tvm

.PHONY: deps configure build demo test test-sanitize bench clean

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) test-sanitize

# The frontend tests again under AddressSanitizer + UBSan (only what they need is built).
test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVTAC_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target vtac_frontend_tests
	cd $(ASAN_BUILD) && ctest --output-on-failure -L frontend

bench: build
	cmake --build $(BUILD) --target bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
