// How the vtac driver runs a subcommand's work, whatever stack limit and signal dispositions
// the process inherits.
//
// The printer, verifier, interpreter and passes recurse once per nesting level of a program, up
// to the frontend's limit (1000 statements): release builds need 1-2 MiB of stack at the limit
// (`vtac print`), ASan builds about 10 MiB, more than a small `ulimit -s` (or ASan at the
// default 8 MiB) gives the main thread. The work therefore runs on a thread with a stack of its
// own.
//
// SIGINT and SIGTERM end the process: the temporary files of staged outputs are removed
// (AtomicFile.h) and the process dies of the signal. This holds whichever thread the signal
// reaches and whatever the work thread is blocked in (opening a FIFO nobody reads). A signal the
// process inherited as ignored stays ignored, as with most tools (SIGINT and SIGQUIT in a
// background job of `sh`, SIGHUP under nohup): it neither ends the run nor touches its files.
#pragma once

#include "vtac/support/Command.h"

namespace vtac::support {

// Runs `action` as described above and returns its exit status.
int runOnCommandThread(const CommandAction &action);

}  // namespace vtac::support
