#!/usr/bin/env bash
# Fails when a tracked file of the repository refers to the sibling folder that once held the
# test data and the DuckDB peer: a fresh clone has only the repository, so everything the build,
# tests, benchmarks and scripts use must be inside it.
#   test/repo/no_outside_references.sh SOURCE_DIR
# Exits 77 (CTest: skipped) when SOURCE_DIR is not a git checkout, e.g. an unpacked tarball.
set -euo pipefail
source_dir=${1:?usage: no_outside_references.sh SOURCE_DIR}
if ! command -v git >/dev/null 2>&1 ||
   ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $source_dir is not a git checkout"
  exit 77
fi
# Spelled in two parts so that this file does not match itself.
folder='\.\./'"shared"
variable='SILT_'"SHARED_DIR"
matches=$(git -C "$source_dir" grep -n -I -E -e "$folder" -e "$variable" -- . || true)
if [[ -n "$matches" ]]; then
  echo "tracked files refer to a folder outside the repository:"
  printf '%s\n' "$matches"
  exit 1
fi
echo "no tracked file refers outside the repository ($(git -C "$source_dir" ls-files | wc -l) files)"
