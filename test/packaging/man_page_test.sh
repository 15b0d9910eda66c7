#!/usr/bin/env bash
# The manual page renders without roff warnings, and documents every command and option the
# binary's --help lists and every exit code.
# Usage: man_page_test.sh SILT_BINARY MAN_PAGE
set -euo pipefail
source "$(dirname "$0")/command_tree.sh"
silt=$1
page=$2
[[ -s $page ]] || fail "no manual page at $page"

warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff cannot render $page: $warnings"
[[ -z $warnings ]] || fail "groff warns about $page: $warnings"

# man-db's own rendering, as a user reads it; plain text since stdout is not a terminal.
rendered=$(MANWIDTH=120 man --warnings -l "$page" 2>"$page.man-errors") ||
  fail "man -l $page failed: $(cat "$page.man-errors")"
[[ ! -s $page.man-errors ]] || fail "man -l warns: $(cat "$page.man-errors")"
rm -f "$page.man-errors"
# Minus signs may come out as U+2212; compare with ASCII hyphens.
rendered=${rendered//−/-}

grep -q "^NAME" <<<"$rendered" || fail "no NAME section"
grep -q "^SYNOPSIS" <<<"$rendered" || fail "no SYNOPSIS section"
grep -q "silt $("$silt" --version | awk '{print $2}')" <<<"$rendered" || fail "no version in footer"

commands=$(silt_commands "$silt")
[[ -n $commands ]] || fail "silt --help lists no commands"
while IFS= read -r command; do
  grep -qF "silt $command" <<<"$rendered" || fail "the page does not describe 'silt $command'"
  # The command's own section lists each option its --help shows.
  section=$(awk -v heading="   silt $command" '$0 == heading {on = 1; print; next}
                                                on && /^   silt / {exit} on' <<<"$rendered")
  [[ -n $section ]] || fail "no section for 'silt $command'"
  for option in $(silt_options "$silt" $command); do
    grep -qE -- "(^|[ ,])$option([ ,]|$)" <<<"$section" ||
      fail "the section of 'silt $command' does not list $option"
  done
done <<<"$commands"
for option in $(silt_options "$silt"); do
  grep -qE -- "(^|[ ,])$option([ ,]|$)" <<<"$rendered" || fail "the page does not list $option"
done

exit_status=$(awk '/^EXIT STATUS/ {on = 1; next} /^[A-Z]/ {on = 0} on' <<<"$rendered")
for code in 0 1 2 3 4 70; do
  grep -qE "^ +$code( |$)" <<<"$exit_status" || fail "EXIT STATUS does not list exit code $code"
done
grep -q "retried" <<<"$exit_status" || fail "EXIT STATUS does not say a conflict may be retried"
echo "man page: $(wc -l <<<"$commands") commands documented"
