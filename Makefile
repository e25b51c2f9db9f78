# Two commands: `make demo` and `make test`. Both install what is missing, build, then run.
PRESET ?= dev
BUILD  := build
JOBS   ?= $(shell nproc)

.PHONY: bootstrap build demo test perf clean

bootstrap:
	@bash scripts/bootstrap.sh

build: bootstrap
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET) -j $(JOBS)

demo: build
	@$(BUILD)/bin/pto demo

test: build
	@ctest --preset $(PRESET) -j $(JOBS)

perf: build
	@ctest --test-dir $(BUILD) -L perf --output-on-failure

clean:
	@rm -rf $(BUILD)
