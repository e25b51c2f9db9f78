# Two commands: `make demo` and `make test`. Both install what is missing, build, then run.
PRESET ?= dev
BUILD  := build
JOBS   ?= $(shell nproc)

.PHONY: bootstrap build demo test perf sanitize clean

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

# The sanitizer runs of CI: ThreadSanitizer on the stress test (8 threads x 1,000 launches on
# shared kernels and streams), AddressSanitizer + UBSan on the correctness suite.
sanitize: bootstrap
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS) --target stress_tests
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/stress/tsan.supp" PTO_CACHE_DIR=off build-tsan/bin/stress_tests
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target correctness_tests
	@ASAN_OPTIONS="detect_leaks=0" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" PTO_CACHE_DIR=off build-asan/bin/correctness_tests

clean:
	@rm -rf $(BUILD)
