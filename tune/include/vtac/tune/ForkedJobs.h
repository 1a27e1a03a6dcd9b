// Running independent jobs in forked processes, at most -j at a time and, under `make -j`, only
// as many as make's jobserver grants.
//
// `vtac tune` measures its trials this way: a trial compiles and runs a program on the simulator,
// whose runtime keeps process-wide state (device memory, the configuration), so trials run in
// processes of their own rather than threads. A job's result is the text it returns, read back
// through a pipe; the results come in job order whatever finished first, so what uses them does
// not depend on -j.
//
// The jobserver (GNU make's, https://www.gnu.org/software/make/manual/html_node/Job-Slots.html):
// MAKEFLAGS names it with --jobserver-auth=R,W (a pipe, make 4.3) or --jobserver-auth=fifo:PATH
// (make 4.4); every process started by make holds one slot implicitly and reads a byte from the
// jobserver for each further slot, writing it back when done. make hands the pipe only to
// recipes it knows to be recursive, so a makefile runs `+vtac tune -j N ...` (as for gcc
// -flto=jobserver); where MAKEFLAGS names a jobserver that is not open, one job runs at a time.
#pragma once

#include <cstddef>
#include <sys/types.h>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace vtac::tune {

class JobSlots {
public:
  // Up to `jobs` at once; the jobserver of MAKEFLAGS (the `makeflags` text) if it names one.
  // What does not work out (a jobserver not open) is said once on `warnings`.
  static JobSlots fromMakeflags(size_t jobs, const char *makeflags, std::ostream &warnings);
  JobSlots(JobSlots &&other) noexcept;
  JobSlots &operator=(JobSlots &&) = delete;
  ~JobSlots();

  size_t maxJobs() const { return maxJobs_; }
  // One more slot (beyond the implicit one) if the jobserver grants it now; release() returns it.
  bool tryAcquire();
  void release();

private:
  JobSlots(size_t jobs) : maxJobs_(jobs) {}
  size_t maxJobs_;
  int readFd_ = -1, writeFd_ = -1;  // the jobserver's; -1: none
  bool ownFds_ = false;             // a fifo opened here (closed here)
  std::vector<char> tokens_;        // the bytes read, written back as they were
};

// Forked processes that run jobs: job(i) for the indices given to run(), at most slots.maxJobs()
// at once. A worker is forked when a job needs one (a process is cheap to fork, but touching
// the parent's memory the first time is not: workers stay for the pool's life, then end when
// the pool does). A worker that dies on a job gives it nullopt, `why` saying how.
struct JobResult {
  std::optional<std::string> text;
  std::string why;
};

class WorkerPool {
public:
  WorkerPool(JobSlots &slots, std::function<std::string(size_t)> job) : slots_(slots), job_(std::move(job)) {}
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool();

  // The results of job(jobs[0]), job(jobs[1]), ... in that order.
  std::vector<JobResult> run(const std::vector<size_t> &jobs);

private:
  struct Worker {
    pid_t pid;
    int requests, results;  // pipe ends: job indices to it, results from it
    std::optional<size_t> position;  // in run()'s jobs while busy
    bool slot = false;               // the job holds a slot acquired from the jobserver
    std::string received;
  };
  Worker *spawn();
  void retire(Worker &worker, std::string *why);

  JobSlots &slots_;
  std::function<std::string(size_t)> job_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace vtac::tune
