# The two commands a new user needs: `make demo` and `make test`. Both install what is missing
# (scripts/setup), build the release preset into build/, then run.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60

DUCKDB ?= ../shared/tools/duckdb/duckdb

.PHONY: all setup build duckdb-peer test demo debug-test fuzz bench format clean

all: build

setup:
	@bash scripts/setup

build: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The DuckDB peer installs itself from the npm registry on first use; do that once, before tests
# that run in parallel would race to install it.
duckdb-peer:
	@$(DUCKDB) --quiet "SELECT 1" >/dev/null

test: build duckdb-peer
	@ctest --preset release -j $(JOBS)

demo: build duckdb-peer
	@bash scripts/demo

# Every suite under ASan + UBSan: the unit tests beside the code and the integration suites
# under test/ (SQL logic files, interop with the DuckDB peer, golden tables, the log's process
# tests, and the CLI tests, which run the sanitized binary). Test timeouts are scaled for the
# slower build (cmake/SiltTesting.cmake).
debug-test: setup duckdb-peer
	@cmake --preset debug >/dev/null
	@cmake --build --preset debug -j $(JOBS)
	@ctest --preset debug -j $(JOBS) -L 'unit|integration'

fuzz: setup
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)
	@bash scripts/run_fuzzers build-fuzz $(FUZZ_SECONDS)

bench: build duckdb-peer
	@bash scripts/run_benchmarks build

format:
	@find src include tools test bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf build build-debug build-fuzz
