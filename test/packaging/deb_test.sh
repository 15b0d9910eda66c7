#!/usr/bin/env bash
# Builds the Debian package from the build tree (as `make deb` does), unpacks it into a scratch
# root (no system install), and runs the packaged silt command and Python module from there.
# Usage: deb_test.sh BUILD_DIR SILT_BINARY
set -euo pipefail
source "$(dirname "$0")/command_tree.sh"
build=$1
silt=$2
version=$("$silt" --version | awk '{print $2}')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$work/cpack.log")"
debs=("$work"/out/silt_*.deb)
((${#debs[@]} == 1)) && [[ -f ${debs[0]} ]] || fail "cpack made no single silt_*.deb: $(ls "$work/out")"
deb=${debs[0]}

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == silt ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$version" ]] || fail "Version is '$(field Version)', the binary says $version"
[[ -n $(field Maintainer) ]] || fail "no Maintainer"
[[ $(field Architecture) == "$(dpkg --print-architecture)" ]] || fail "Architecture is '$(field Architecture)'"
depends=$(field Depends)
# The runtime libraries silt links, found by dpkg-shlibdeps, the three it opens when first used
# (libcurl and libcrypto for object storage, libpq for the PostgreSQL source), and the Python
# the module needs.
depended=$(tr ',|' '\n\n' <<<"$depends" | awk '{print $1}')
for package in libc6 libstdc++6 libsnappy1v5 libzstd1 libedit2 libcurl4 libpq5 libssl3 python3; do
  grep -qxF "$package" <<<"$depended" || fail "Depends lacks $package: $depends"
done

dpkg-deb -x "$deb" "$work/root"
root=$work/root
for file in usr/bin/silt usr/share/man/man1/silt.1.gz usr/share/bash-completion/completions/silt \
            usr/share/zsh/vendor-completions/_silt usr/lib/python3/dist-packages/silt/__init__.py \
            usr/lib/python3/dist-packages/silt/errors.py usr/lib/python3/dist-packages/silt/sql/__init__.py \
            usr/lib/python3/dist-packages/silt/delta/tables.py; do
  [[ -f $root/$file ]] || fail "the package lacks /$file"
done
ls "$root"/usr/lib/python3/dist-packages/silt/_silt*.so >/dev/null || fail "the package lacks the extension"

# The packaged manual page, as man finds it on a MANPATH.
MANPATH="$root/usr/share/man" MANWIDTH=100 man silt 2>&1 | grep -q "^EXIT STATUS" ||
  fail "man does not show the packaged page"

# The packaged command, found on PATH.
export PATH="$root/usr/bin:$PATH"
[[ $(command -v silt) == "$root/usr/bin/silt" ]] || fail "silt on PATH is $(command -v silt)"
[[ $(silt --version) == "silt $version" ]] || fail "silt --version says '$(silt --version)'"
output=$(silt sql --warehouse "$work/warehouse" --format csv \
  -e "CREATE TABLE t (id BIGINT, name STRING)" \
  -e "INSERT INTO t VALUES (1, 'a'), (2, 'b')" \
  -e "SELECT count(*) AS n FROM t")
[[ $output == $'n\n2' ]] || fail "the packaged silt printed: $output"

# The packaged Python module, with nothing of the build tree on the path.
PYTHONPATH="$root/usr/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - \
  "$root" "$work/warehouse" "$version" <<'PYTHON' || fail "the packaged Python module failed"
import sys
import silt

root, warehouse, version = sys.argv[1:]
assert silt.__file__.startswith(root), silt.__file__
assert silt.__version__ == version, silt.__version__
result = silt.Session(warehouse=warehouse).sql("SELECT id, name FROM t ORDER BY id")
assert result.columns == ["id", "name"], result.columns
assert result.rows() == [(1, "a"), (2, "b")], result.rows()
try:
    silt.Session(warehouse=warehouse).sql("SELECT * FROM missing_table")
except silt.SiltError as error:
    assert error.error_class == "TABLE_OR_VIEW_NOT_FOUND", error.error_class
else:
    raise AssertionError("no error for a missing table")
from silt.sql import SparkSession
spark = SparkSession.builder.config("spark.sql.warehouse.dir", warehouse).getOrCreate()
assert spark.table("t").orderBy("id").collect()[1].name == "b"
PYTHON
echo "deb: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) installs and runs"
