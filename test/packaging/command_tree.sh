# Sourced by the packaging tests: the commands and options of a silt binary, read from its
# --help output (not from the generated documents under test).

# Prints every command path below the program, one per line ("sql", "parquet", "parquet cat").
# $1: the silt binary; further arguments: the path to list below (empty for the program).
silt_commands() {
  local silt=$1
  shift
  local name
  for name in $("$silt" "$@" --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF {print $1}'); do
    echo "$*${*:+ }$name"
    silt_commands "$silt" "$@" "$name"
  done
}

# Prints the option names (-e, --execute, ...) that `silt PATH --help` lists.
silt_options() {
  local silt=$1
  shift
  "$silt" "$@" --help |
    awk '/^(Options|Positionals):/ {on = 1; next} /^[^ ]/ {on = 0} on && $1 ~ /^-/ {print $1}' |
    tr ',' '\n' | grep -E '^--?[A-Za-z]'
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
