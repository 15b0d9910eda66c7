#!/usr/bin/env bash
# Runs every ```sh block of README.md, in order, from one scratch folder that holds build/silt
# (the binary under test) and build/python (the Python module, when built), so the README shows
# only commands that work. Each block runs in its
# own `bash -e -o pipefail`; the first failing block fails the test with its output.
#   test/repo/readme_commands.sh README.md SILT_BINARY [PYTHON_MODULE_DIR]
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
if [[ -n ${3:-} ]]; then ln -s "$(cd "$3" && pwd)" "$scratch/build/python"; fi

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
  # Builds without the Python module (sanitizer and fuzz builds) cannot run its block.
  if [[ ! -e build/python ]] && grep -q 'build/python' "$block"; then
    printf 'SKIP %s (no Python module in this build)\n' "${where#\# }"
    continue
  fi
  if ! output=$(bash -e -o pipefail "$block" 2>&1); then
    printf 'FAIL %s:\n' "${where#\# }"
    sed 's/^/  | /' "$block"
    printf 'output:\n%s\n' "$output"
    exit 1
  fi
  printf 'PASS %s\n' "${where#\# }"
done
echo "${#blocks[@]} README blocks ran"
