#pragma once

#include <cstdio>

#include "silt/session.h"

// Ctrl-C in `silt sql`. A SIGINT cancels the statement of the session set as the target (the
// statement then fails with OPERATION_CANCELED and cleans up after itself) and is remembered as
// pending, so that the shell can tell a Ctrl-C at its prompt from an end of input.
namespace silt::cli {

/// Installs the SIGINT handler (once per process).
void InstallInterruptHandler();

/// The session whose running statement a Ctrl-C cancels; nullptr: none (at the prompt).
void SetInterruptTarget(Session* session);

/// Whether a Ctrl-C arrived since the last TakeInterrupt; clears it.
bool TakeInterrupt();

/// A replacement for libedit's character reader (`rl_getc_function`): reads one byte of the
/// terminal, or returns EOF at end of input and as soon as a Ctrl-C is pending (a SIGINT, or the
/// ^C byte itself when the terminal does not raise signals), so that readline returns.
int ReadKeyOrInterrupt(FILE* ignored);

}  // namespace silt::cli
