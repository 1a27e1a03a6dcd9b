#include "vtac/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

int32_t configuredThreads() {
  if (const char *text = std::getenv("VTAC_NUM_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value > 0) return int32_t(std::min<long>(value, 1024));
  }
  return int32_t(std::max(1u, std::thread::hardware_concurrency()));
}

// Set on the pool's workers and on a thread while it runs range 0 of a launch: a nested
// launch from there runs serially.
thread_local bool insideTask = false;

// Workers 1..N-1 wait for a launch; worker i runs range i of it when the launch has one.
class ThreadPool {
public:
  explicit ThreadPool(int32_t threads) : threads_(threads) {
    for (int32_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &worker : workers_) worker.join();
  }

  int32_t threads() const { return threads_; }

  int32_t run(int64_t extent, vtac_parallel_task task, void *closure) {
    if (extent <= 0) return 0;
    int64_t ranges = std::min<int64_t>(threads_, extent);
    std::unique_lock<std::mutex> launching(launch_, std::try_to_lock);
    if (ranges == 1 || insideTask || !launching.owns_lock()) return task(0, extent, closure);
    std::vector<int32_t> statuses(size_t(ranges), 0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      closure_ = closure;
      extent_ = extent;
      ranges_ = ranges;
      statuses_ = &statuses;
      pending_ = ranges - 1;
      ++generation_;
    }
    wake_.notify_all();
    insideTask = true;
    statuses[0] = runRange(0);
    insideTask = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    for (int32_t status : statuses)
      if (status != 0) return status;
    return 0;
  }

private:
  int32_t runRange(int64_t index) {
    int64_t begin = extent_ * index / ranges_, end = extent_ * (index + 1) / ranges_;
    return task_(begin, end, closure_);
  }

  void work(int32_t index) {
    insideTask = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= ranges_) continue;
      lock.unlock();
      int32_t status = runRange(index);
      lock.lock();
      (*statuses_)[size_t(index)] = status;
      if (--pending_ == 0) done_.notify_one();
    }
  }

  const int32_t threads_;
  std::vector<std::thread> workers_;
  std::mutex launch_;  // one launch at a time
  std::mutex mutex_;   // guards the launch's fields below
  std::condition_variable wake_, done_;
  bool stopping_ = false;
  uint64_t generation_ = 0;
  vtac_parallel_task task_ = nullptr;
  void *closure_ = nullptr;
  int64_t extent_ = 0, ranges_ = 0, pending_ = 0;
  std::vector<int32_t> *statuses_ = nullptr;
};

ThreadPool &pool() {
  static ThreadPool instance(configuredThreads());
  return instance;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int32_t vtac_parallel_for(int64_t extent, vtac_parallel_task task,
                                                                            void *closure) {
  return pool().run(extent, task, closure);
}

extern "C" __attribute__((visibility("default"))) int32_t vtac_parallel_num_threads(void) {
  return pool().threads();
}
