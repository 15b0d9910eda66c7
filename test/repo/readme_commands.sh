#!/usr/bin/env bash
# Runs every ```sh block of README.md, in order, from one scratch folder that holds build/silt
# (the binary under test), so the README shows only commands that work. Each block runs in its
# own `bash -e -o pipefail`; the first failing block fails the test with its output.
#   test/repo/readme_commands.sh README.md SILT_BINARY
#
# Marker convention: a block that must not run here (`make demo` would rebuild and recurse)
# opens with ```sh no-run instead of ```sh. It still renders as shell code; keep such blocks
# few. Blocks in other languages (```sql, ``` ...) are not run either.
set -euo pipefail
readme=${1:?usage: readme_commands.sh README.md SILT_BINARY}
silt=${2:?usage: readme_commands.sh README.md SILT_BINARY}
readme=$(cd "$(dirname "$readme")" && pwd)/$(basename "$readme")
silt=$(cd "$(dirname "$silt")" && pwd)/$(basename "$silt")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/silt-readme-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/build" "$scratch/blocks"
ln -s "$silt" "$scratch/build/silt"

# Splits the runnable blocks into blocks/NNN.sh (indentation of list items removed), each
# starting with a comment naming its first line in the README.
awk -v out="$scratch/blocks" '
  function strip(line) { return substr(line, indent + 1) }
  !inside && /^[ \t]*```/ {
    fence = $0
    sub(/^[ \t]*/, "", fence)
    indent = length($0) - length(fence)
    info = substr(fence, 4)
    gsub(/[ \t]+$/, "", info)
    inside = 1
    if (info == "sh") {
      file = sprintf("%s/%03d.sh", out, ++count)
      printf "# README.md line %d\n", NR + 1 > file
    } else {
      file = ""
    }
    next
  }
  inside && /^[ \t]*```[ \t]*$/ { if (file != "") close(file); inside = 0; next }
  inside && file != "" { print strip($0) > file }
' "$readme"

blocks=("$scratch"/blocks/*.sh)
if [[ ! -e "${blocks[0]}" ]]; then
  echo "README.md has no runnable sh block"
  exit 1
fi
cd "$scratch"
for block in "${blocks[@]}"; do
  where=$(head -n 1 "$block")
  if ! output=$(bash -e -o pipefail "$block" 2>&1); then
    printf 'FAIL %s:\n' "${where#\# }"
    sed 's/^/  | /' "$block"
    printf 'output:\n%s\n' "$output"
    exit 1
  fi
  printf 'PASS %s\n' "${where#\# }"
done
echo "${#blocks[@]} README blocks ran"
