# The two commands a new user needs: `make demo` and `make test`. Both install what is missing
# (scripts/setup), build the release preset into build/, then run.
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local

# DuckDB, for the tests and benchmarks only (tools/duckdb-peer; needs node and npm).
DUCKDB_PEER ?= tools/duckdb-peer/duckdb

.PHONY: all setup build duckdb-peer s3-test-server test demo install deb debug-test fuzz bench format clean \
        stream-crash-test cdc-crash-test

all: build

setup:
	@bash scripts/setup

build: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The DuckDB peer installs its pinned npm packages on first use; do that once, up front, so that
# a failed download shows here rather than in the middle of the tests.
duckdb-peer: setup
	@$(DUCKDB_PEER) --quiet "SELECT 1" >/dev/null

# The servers of the object-storage tests (tools/s3-test-server, tools/azurite-test-server)
# install s3rver and Azurite from npm on first use; without them those tests are skipped, so a
# failure here does not stop.
s3-test-server: setup
	@tools/s3-test-server/s3-test-server --install-only || \
	  echo "s3-test-server: not installed; the S3 tests will be skipped" >&2
	@tools/azurite-test-server/azurite-test-server --install-only || \
	  echo "azurite-test-server: not installed; the Azure tests will be skipped" >&2

test: build duckdb-peer s3-test-server
	@ctest --preset release -j $(JOBS)

# The streaming crash test, nightly form: 125 random kill points for each of its 8 sinks (1,000
# in all) besides the kills at each step of a batch (make test runs a few).
STREAM_CRASH_TRIALS ?= 125
stream-crash-test: build
	@SILT_STREAM_CRASH_TRIALS=$(STREAM_CRASH_TRIALS) build/test/stream/silt_stream_crash_test

# The change data capture crash test with 1,000 killed mirror processes (make test runs 200).
CDC_CRASH_TRIALS ?= 1000
cdc-crash-test: build
	@SILT_CDC_CRASH_TRIALS=$(CDC_CRASH_TRIALS) build/test/cdc/silt_cdc_crash_test

demo: build
	@bash scripts/demo

# The silt binary, libsilt, the public headers and the CMake package (find_package(silt)) under
# PREFIX: bin/, lib/, include/silt/, lib/cmake/silt/.
install: build
	@cmake --install build --prefix $(PREFIX)

# The Debian package of the release build (binary, manual page, completions, Python module):
# build/silt_<version>_<arch>.deb. Install it with `apt install ./build/silt_*.deb`.
deb: build
	@cd build && cpack -G DEB

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
