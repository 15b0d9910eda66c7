#!/usr/bin/env bash
# The bash completion script completes silt's commands, options, option values and file
# arguments, called as bash calls it (COMP_WORDS/COMP_CWORD, then the function).
# Usage: bash_completion_test.sh SILT_BINARY COMPLETION_SCRIPT
set -euo pipefail
source "$(dirname "$0")/command_tree.sh"
silt=$1
script=$2
[[ -s $script ]] || fail "no completion script at $script"

source "$script"
registered=$(complete -p silt) || fail "the script does not register a completion for silt"
function=$(awk '{print $(NF - 1)}' <<<"$registered")

# Prints the completions of the command line "$@" (the last word is the one being completed),
# sorted, one per line.
completions() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$function"
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort
}

expect() {
  local expected=$1
  shift
  local actual
  actual=$(completions "$@")
  [[ $actual == "$expected" ]] || fail "completing '$*': expected [${expected//$'\n'/ }], got [${actual//$'\n'/ }]"
}

expect_includes() {
  local wanted=$1
  shift
  completions "$@" | grep -qxF -- "$wanted" || fail "completing '$*' does not offer $wanted"
}

# The case every user tries first.
expect sql silt s

# Every command of the binary is offered by its first letters, and under its parent.
while IFS= read -r command; do
  words=($command)
  last=${words[${#words[@]} - 1]}
  parent=("${words[@]:0:${#words[@]}-1}")
  expect_includes "$last" silt "${parent[@]}" "${last:0:1}"
  expect_includes "$last" silt "${parent[@]}" ""
  # And each option of the command, by its name.
  for option in $(silt_options "$silt" $command); do
    expect_includes "$option" silt "${words[@]}" "$option"
  done
done < <(silt_commands "$silt")

expect $'--file\n--format' silt sql --f
expect $'csv\njson\ntable' silt sql --format ""
expect csv silt sql --format c
# bash splits --format=c at '=' into three words.
expect $'csv\njson\ntable' silt sql --format =
expect csv silt sql --format = c
# An option's value is not a command: -e takes "--format" here, and the next word is free.
expect "" silt sql -e --format ""
expect $'csv\njson\ntable' silt sql -e "SELECT 1" --format ""
# SQL text gets no suggestions.
expect "" silt sql -e ""
expect "" silt sql --conf ""

# Paths: file arguments complete files and folders; --warehouse only folders.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/data folder"
touch "$work/data.parquet" "$work/other.parquet"
expect "$work/data folder"$'\n'"$work/data.parquet" silt parquet cat "$work/da"
expect "$work/data folder"$'\n'"$work/data.parquet" silt sql -f "$work/da"
expect "$work/data folder" silt sql --warehouse "$work/da"
expect "$work/data folder" silt sql --warehouse = "$work/da"
expect "$work/other.parquet" silt parquet rewrite "$work/data.parquet" "$work/o"
echo "bash completion: ok"
