#include "vtac/support/CommandThread.h"

#include <csignal>
#include <future>
#include <memory>
#include <optional>
#include <utility>  // llvm/Support/thread.h uses std::exchange without including it

#include <llvm/Support/Signals.h>
#include <llvm/Support/thread.h>
#include <unistd.h>

namespace vtac::support {

namespace {

// Room for an ASan build at the nesting limit, several times over; untouched pages cost nothing.
constexpr unsigned kCommandStackBytes = 64u << 20;

// SA_RESETHAND has made the disposition the default again, and SA_NODEFER lets the raised
// signal through at once. LLVM's own handler (installed once a temporary file exists) runs
// first, removes the files and re-raises into this one; it alone would return when the
// disposition it found was "ignore", and the work thread would stay blocked.
void removeTemporaryFilesAndDie(int signal) {
  llvm::sys::RunInterruptHandlers();
  std::raise(signal);
}

void dieOnTerminationSignals() {
  struct sigaction action = {};
  action.sa_handler = removeTemporaryFilesAndDie;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
}

}  // namespace

int runOnCommandThread(const CommandAction &action) {
  dieOnTerminationSignals();
  auto status = std::make_shared<std::promise<int>>();
  std::future<int> result = status->get_future();
  // The command thread never ends; the process does, when main returns. A thread that ends
  // after using libLLVM's dynamic TLS makes ASan (LLVM 19) abort with "failed to deallocate ...
  // unable to unmmap" as it frees the thread's TLS.
  llvm::thread worker(std::optional<unsigned>(kCommandStackBytes), [status, &action] {
    status->set_value(action());
    for (;;) pause();
  });
  worker.detach();
  return result.get();
}

}  // namespace vtac::support
