#!/usr/bin/env bash
# The zsh completion function completes silt's commands, options and option values in a real
# interactive zsh: a pseudo-terminal (zsh/zpty) types a command line and a Tab, and compadd
# reports the candidates the completion system offers.
# Usage: zsh_completion_test.sh SILT_BINARY COMPLETION_FILE
set -euo pipefail
source "$(dirname "$0")/command_tree.sh"
silt=$1
file=$2
[[ -s $file ]] || fail "no completion file at $file"
[[ $(basename "$file") == _silt ]] || fail "zsh finds completion functions by name; the file is $(basename "$file")"
[[ $(head -n 1 "$file") == "#compdef silt" ]] || fail "the file does not start with '#compdef silt'"
zsh -n "$file" || fail "zsh cannot parse $file"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/data folder"
touch "$work/data.parquet"

# Prints the candidates zsh offers for the command line $1 (completed at its end), sorted.
completions() {
  zsh -f "$(dirname "$0")/zsh_complete.zsh" "$(dirname "$file")" "$1" | sort
}

expect() {
  local expected=$1 line=$2 actual
  actual=$(completions "$line")
  [[ $actual == "$expected" ]] || fail "completing '$line': expected [${expected//$'\n'/ }], got [${actual//$'\n'/ }]"
}

expect_includes() {
  local wanted=$1 line=$2
  completions "$line" | grep -qxF -- "$wanted" || fail "completing '$line' does not offer $wanted"
}

expect sql "silt s"
while IFS= read -r command; do
  words=($command)
  last=${words[${#words[@]} - 1]}
  parent=${command% *}
  [[ $parent == "$command" ]] && parent=""
  expect_includes "$last" "silt $parent${parent:+ }"
done < <(silt_commands "$silt")
expect_includes --format "silt sql --"
expect_includes --warehouse "silt sql --"
expect_includes --no-truncate "silt parquet cat --"
expect $'csv\njson\ntable' "silt sql --format "
expect $'csv\njson\ntable' "silt sql --format="
# Folders only (compadd reports the name quoted for the command line).
expect 'data\ folder' "silt sql --warehouse $work/"
expect_includes data.parquet "silt parquet cat $work/"
echo "zsh completion: ok"
