#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "vtac/tune/ForkedJobs.h"

using namespace vtac::tune;

namespace {

// A job's result: when it ran (steady-clock microseconds), to count how many overlapped.
std::string timedJob(size_t index) {
  auto now = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  long long start = now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  return std::to_string(index) + " " + std::to_string(start) + " " + std::to_string(now());
}

// The most jobs that ran at once.
size_t mostAtOnce(const std::vector<JobResult> &results) {
  std::vector<std::pair<long long, long long>> spans;
  for (const JobResult &result : results) {
    REQUIRE(result.text);
    std::istringstream in(*result.text);
    size_t index;
    long long start, end;
    in >> index >> start >> end;
    spans.push_back({start, end});
  }
  size_t most = 0;
  for (const auto &[start, end] : spans) {
    size_t running = 0;
    for (const auto &[s, e] : spans) running += s <= start && start < e;
    most = std::max(most, running);
  }
  return most;
}

}  // namespace

TEST_CASE("workers return results in job order, at most -j at once without a jobserver", "[tune]") {
  std::ostringstream warnings;
  JobSlots slots = JobSlots::fromMakeflags(3, nullptr, warnings);
  WorkerPool pool(slots, timedJob);
  std::vector<JobResult> results = pool.run({5, 1, 4, 2, 0, 3});
  REQUIRE(results.size() == 6);
  for (size_t i = 0; i < results.size(); ++i)
    CHECK(std::stoul(*results[i].text) == std::vector<size_t>{5, 1, 4, 2, 0, 3}[i]);
  CHECK(mostAtOnce(results) <= 3);
  CHECK(mostAtOnce(results) >= 2);  // 6 jobs of 30 ms each on 3 workers do overlap
  CHECK(pool.run({7}).front().text);  // the workers stay for another run
  CHECK(warnings.str().empty());
}

TEST_CASE("under make's jobserver the workers take its slots and give them back", "[tune]") {
  int jobserver[2];
  REQUIRE(pipe(jobserver) == 0);
  REQUIRE(write(jobserver[1], "+", 1) == 1);  // one free slot: with the implicit one, two jobs at once
  std::string makeflags = " -j3 --jobserver-auth=" + std::to_string(jobserver[0]) + "," + std::to_string(jobserver[1]);
  std::ostringstream warnings;
  {
    JobSlots slots = JobSlots::fromMakeflags(4, makeflags.c_str(), warnings);
    WorkerPool pool(slots, timedJob);
    std::vector<JobResult> results = pool.run({0, 1, 2, 3, 4, 5});
    CHECK(mostAtOnce(results) <= 2);
  }
  int flags = fcntl(jobserver[0], F_GETFL);
  fcntl(jobserver[0], F_SETFL, flags | O_NONBLOCK);
  char token[4];
  CHECK(read(jobserver[0], token, sizeof token) == 1);  // the slot is back, and only it
  CHECK(token[0] == '+');
  CHECK(warnings.str().empty());
  close(jobserver[0]);
  close(jobserver[1]);
}

TEST_CASE("a jobserver that is not open: one job at a time, and a warning", "[tune]") {
  std::ostringstream warnings;
  JobSlots slots = JobSlots::fromMakeflags(4, " -j4 --jobserver-auth=900,901", warnings);
  CHECK(slots.maxJobs() == 1);
  CHECK(warnings.str().find("jobserver (900,901), which is not open here") != std::string::npos);
}

TEST_CASE("a worker that dies on a job: that job's result says how, the others come", "[tune]") {
  std::ostringstream warnings;
  JobSlots slots = JobSlots::fromMakeflags(2, nullptr, warnings);
  WorkerPool pool(slots, [](size_t index) -> std::string {
    if (index == 1) kill(getpid(), SIGKILL);  // no handler of the test framework's runs
    return "done " + std::to_string(index);
  });
  std::vector<JobResult> results = pool.run({0, 1, 2, 3});
  CHECK(*results[0].text == "done 0");
  CHECK(!results[1].text);
  CHECK(results[1].why.find("killed by signal 9") != std::string::npos);
  CHECK(*results[2].text == "done 2");
  CHECK(*results[3].text == "done 3");
}

TEST_CASE("a worker killed while idle: the next job on it says how, and vtac lives on", "[tune]") {
  std::ostringstream warnings;
  JobSlots slots = JobSlots::fromMakeflags(1, nullptr, warnings);
  WorkerPool pool(slots, [](size_t) { return std::to_string(getpid()); });
  std::vector<JobResult> first = pool.run({0});
  REQUIRE(first[0].text);
  pid_t worker = std::stoi(*first[0].text);
  REQUIRE(kill(worker, SIGKILL) == 0);
  usleep(100 * 1000);  // let it die before the next request is written to it
  std::vector<JobResult> second = pool.run({1});
  CHECK(!second[0].text);
  CHECK(second[0].why.find("killed by signal 9") != std::string::npos);
  std::vector<JobResult> third = pool.run({2});  // a new worker takes the next job
  REQUIRE(third[0].text);
  CHECK(std::stoi(*third[0].text) != worker);
}
