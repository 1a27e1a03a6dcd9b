#include "vtac/support/CommandThread.h"

#include <csignal>
#include <future>
#include <memory>
#include <optional>
#include <utility>  // llvm/Support/thread.h uses std::exchange without including it
#include <vector>

#include <llvm/Support/Signals.h>
#include <llvm/Support/thread.h>
#include <unistd.h>

namespace vtac::support {

namespace {

// Room for an ASan build at the nesting limit, several times over; untouched pages cost nothing.
constexpr unsigned kCommandStackBytes = 64u << 20;

// The signals a shell or nohup may start vtac with ignored: SIGINT and SIGQUIT for a background
// job, SIGHUP under nohup, SIGTERM for completeness. LLVM's handler covers each of them.
constexpr int kMaybeIgnoredSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};

void noSignalCallback(void *) {}

// LLVM installs its handler over all of kMaybeIgnoredSignals, ignored ones included, when the
// first temporary file is registered for removal; caught there, an ignored signal would remove
// the staged files and let the run go on without them. So when one is ignored, LLVM installs
// its handlers now (registering a callback that does nothing) and the ignored ones are ignored
// again after it, for good: LLVM's handler restores them too when another signal ends the run.
void keepInheritedIgnores() {
  std::vector<int> ignored;
  for (int signal : kMaybeIgnoredSignals) {
    struct sigaction inherited = {};
    sigaction(signal, nullptr, &inherited);
    if (inherited.sa_handler == SIG_IGN) ignored.push_back(signal);
  }
  if (ignored.empty()) return;
  llvm::sys::AddSignalHandler(noSignalCallback, nullptr);
  for (int signal : ignored) std::signal(signal, SIG_IGN);
}

}  // namespace

int runOnCommandThread(const CommandAction &action) {
  keepInheritedIgnores();
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
