#include "vtac/tune/ForkedJobs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/ScopeExit.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

namespace vtac::tune {

namespace {

// The jobserver MAKEFLAGS names: "R,W" or "fifo:PATH" (the last --jobserver-auth, or make 4.1's
// --jobserver-fds), or empty.
std::string jobserverAuth(llvm::StringRef makeflags) {
  std::string auth;
  llvm::SmallVector<llvm::StringRef> words;
  makeflags.split(words, ' ', -1, false);
  for (llvm::StringRef word : words)
    for (llvm::StringRef option : {"--jobserver-auth=", "--jobserver-fds="})
      if (word.consume_front(option)) auth = word.str();
  return auth;
}

bool isOpen(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

}  // namespace

JobSlots JobSlots::fromMakeflags(size_t jobs, const char *makeflags, std::ostream &warnings) {
  JobSlots slots(std::max<size_t>(jobs, 1));
  std::string auth = makeflags ? jobserverAuth(makeflags) : "";
  if (auth.empty() || slots.maxJobs_ == 1) return slots;
  llvm::StringRef text(auth);
  if (text.consume_front("fifo:")) {
    // Our own open file description: non-blocking reads do not change make's.
    slots.readFd_ = open(text.str().c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    slots.writeFd_ = slots.readFd_;
    slots.ownFds_ = slots.readFd_ >= 0;
  } else {
    auto [read, write] = text.split(',');
    int r = -1, w = -1;
    if (!read.getAsInteger(10, r) && !write.getAsInteger(10, w) && isOpen(r) && isOpen(w)) {
      slots.readFd_ = r;
      slots.writeFd_ = w;
    }
  }
  if (slots.readFd_ < 0) {
    warnings << "vtac: warning: MAKEFLAGS names make's jobserver (" << auth
             << "), which is not open here: running one job at a time (mark the recipe '+' as for a "
                "recursive make)\n";
    slots.maxJobs_ = 1;
  }
  return slots;
}

JobSlots::JobSlots(JobSlots &&other) noexcept
    : maxJobs_(other.maxJobs_), readFd_(other.readFd_), writeFd_(other.writeFd_), ownFds_(other.ownFds_),
      tokens_(std::move(other.tokens_)) {
  other.readFd_ = other.writeFd_ = -1;
  other.ownFds_ = false;
  other.tokens_.clear();
}

JobSlots::~JobSlots() {
  while (!tokens_.empty()) release();
  if (ownFds_) close(readFd_);
}

bool JobSlots::tryAcquire() {
  if (readFd_ < 0) return true;
  // A pipe's reads block: poll first (another client may still take the byte in between; the
  // read then waits for the next slot to come free, which always happens).
  pollfd ready{readFd_, POLLIN, 0};
  if (!ownFds_ && poll(&ready, 1, 0) <= 0) return false;
  char token;
  ssize_t got;
  do got = read(readFd_, &token, 1);
  while (got < 0 && errno == EINTR);
  if (got != 1) return false;
  tokens_.push_back(token);
  return true;
}

void JobSlots::release() {
  if (readFd_ < 0 || tokens_.empty()) return;
  char token = tokens_.back();
  tokens_.pop_back();
  while (write(writeFd_, &token, 1) < 0 && errno == EINTR) {
  }
}

namespace {

// Whole reads and writes of a pipe (false: it closed or failed).
bool writeAll(int fd, const void *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t wrote = write(fd, static_cast<const char *>(data) + done, size - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += size_t(wrote);
  }
  return true;
}

bool readAll(int fd, void *data, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t got = read(fd, static_cast<char *>(data) + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += size_t(got);
  }
  return true;
}

}  // namespace

WorkerPool::~WorkerPool() {
  for (std::unique_ptr<Worker> &worker : workers_) retire(*worker, nullptr);
}

// A worker reads a job index (8 bytes), runs it and writes its result (8 bytes of length, then
// the text), until the request pipe closes.
WorkerPool::Worker *WorkerPool::spawn() {
  int requests[2], results[2];
  if (pipe2(requests, O_CLOEXEC) != 0) return nullptr;
  if (pipe2(results, O_CLOEXEC) != 0) {
    close(requests[0]);
    close(requests[1]);
    return nullptr;
  }
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid == 0) {
    close(requests[1]);
    close(results[0]);
    for (const std::unique_ptr<Worker> &other : workers_) {  // the others' pipes are not ours
      close(other->requests);
      close(other->results);
    }
    uint64_t index;
    while (readAll(requests[0], &index, sizeof index)) {
      std::string text = job_(size_t(index));
      uint64_t size = text.size();
      if (!writeAll(results[1], &size, sizeof size) || !writeAll(results[1], text.data(), text.size())) _exit(3);
    }
    _exit(0);  // no atexit handlers or static destructors: they are the parent's
  }
  close(requests[0]);
  close(results[1]);
  if (pid < 0) {
    close(requests[1]);
    close(results[0]);
    return nullptr;
  }
  workers_.push_back(std::make_unique<Worker>(Worker{pid, requests[1], results[0], std::nullopt, false, ""}));
  return workers_.back().get();
}

void WorkerPool::retire(Worker &worker, std::string *why) {
  close(worker.requests);
  close(worker.results);
  int status = 0;
  while (waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (worker.slot) slots_.release();
  worker.slot = false;
  if (!why) return;
  if (WIFSIGNALED(status))
    *why = "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  else
    *why = "exited with status " + std::to_string(WEXITSTATUS(status)) + " before its result";
}

std::vector<JobResult> WorkerPool::run(const std::vector<size_t> &jobs) {
  // A worker killed while idle makes the request's write fail with EPIPE (its result pipe then
  // says how it ended) rather than SIGPIPE ending vtac.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  auto restore = llvm::make_scope_exit([&] { sigaction(SIGPIPE, &previous, nullptr); });
  std::vector<JobResult> results(jobs.size());
  size_t next = 0;
  auto busy = [&] { return llvm::count_if(workers_, [](const auto &w) { return w->position.has_value(); }); };
  auto dispatch = [&]() -> bool {
    Worker *idle = nullptr;
    for (std::unique_ptr<Worker> &worker : workers_)
      if (!worker->position) idle = worker.get();
    if (!idle && workers_.size() >= slots_.maxJobs()) return false;
    // The first busy worker runs on the implicit slot; each further one needs one from the jobserver.
    bool implicitFree = llvm::none_of(workers_, [](const auto &w) { return w->position && !w->slot; });
    if (!implicitFree && !slots_.tryAcquire()) return false;
    if (!idle) idle = spawn();
    if (!idle) {
      if (!implicitFree) slots_.release();
      results[next++].why = std::string("could not be started: ") + std::strerror(errno);
      return true;
    }
    uint64_t index = jobs[next];
    idle->slot = !implicitFree;
    idle->position = next++;
    idle->received.clear();
    if (!writeAll(idle->requests, &index, sizeof index)) idle->received = "";  // its result pipe says why
    return true;
  };
  while (next < jobs.size() || busy()) {
    while (next < jobs.size() && dispatch()) {
    }
    std::vector<pollfd> fds;
    for (std::unique_ptr<Worker> &worker : workers_)
      if (worker->position) fds.push_back({worker->results, POLLIN, 0});
    if (fds.empty()) continue;
    // Wake up now and then to ask the jobserver again while jobs run.
    int timeoutMs = next < jobs.size() && workers_.size() < slots_.maxJobs() ? 20 : -1;
    if (poll(fds.data(), fds.size(), timeoutMs) < 0 && errno != EINTR) break;
    for (const pollfd &p : fds) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto at = llvm::find_if(workers_, [&](const auto &w) { return w->results == p.fd; });
      Worker &worker = **at;
      char buffer[4096];
      ssize_t got = read(p.fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {  // died on the job
        retire(worker, &results[*worker.position].why);
        workers_.erase(at);
        continue;
      }
      worker.received.append(buffer, size_t(got));
      uint64_t size;
      if (worker.received.size() < sizeof size) continue;
      std::memcpy(&size, worker.received.data(), sizeof size);
      if (worker.received.size() < sizeof size + size) continue;
      results[*worker.position].text = worker.received.substr(sizeof size, size);
      worker.position.reset();
      if (worker.slot) slots_.release();
      worker.slot = false;
    }
  }
  return results;
}

}  // namespace vtac::tune
