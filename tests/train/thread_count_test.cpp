// The default thread count on a shared machine (train/thread_count.hpp): the free cores rounded to
// whole cores, at least one; the cores other processes use, from two CPU counter samples; and a
// governor the user switched off leaves the count alone.
#include "train/thread_count.hpp"

#include <doctest/doctest.h>
#include <omp.h>

using namespace ufl;

TEST_CASE("threads follow the free cores, rounded, at least one") {
  CHECK(train::threads_for_free_cores(2, 0.0) == 2);
  CHECK(train::threads_for_free_cores(2, 0.4) == 2);  // 1.6 free
  CHECK(train::threads_for_free_cores(2, 0.6) == 1);  // 1.4 free
  CHECK(train::threads_for_free_cores(2, 1.0) == 1);  // `yes > /dev/null` on one core
  CHECK(train::threads_for_free_cores(2, 2.5) == 1);  // overloaded: still one
  CHECK(train::threads_for_free_cores(8, 3.2) == 5);
  CHECK(train::threads_for_free_cores(4, -1.0) == 4);  // rounding noise below zero
  CHECK(train::threads_for_free_cores(1, 0.0) == 1);
}

TEST_CASE("the cores busy elsewhere: the machine's busy time less this process's, per second") {
  train::CpuSample before, after;
  before.machine_busy = 100.0;
  before.own = 3.0;
  after = before;
  after.at = before.at + std::chrono::seconds(2);
  after.machine_busy = 104.0;  // 2 cores busy for 2 s
  after.own = 5.0;             // of which this process used one
  CHECK(train::busy_elsewhere(before, after) == doctest::Approx(1.0));
  after.own = 7.0;  // counters read at slightly different moments: never below 0
  CHECK(train::busy_elsewhere(before, after) == 0.0);
  CHECK(train::busy_elsewhere(before, before) == 0.0);  // no time passed
}

TEST_CASE("a governor the user switched off, or on one core, leaves the thread count alone") {
  const int before = omp_get_max_threads();
  train::ThreadGovernor fixed(false, 2);
  fixed.start(std::chrono::milliseconds(1));
  fixed.update();
  CHECK_FALSE(fixed.active());
  CHECK(omp_get_max_threads() == before);
  train::ThreadGovernor single(true, 1);
  CHECK_FALSE(single.active());
}

TEST_CASE("on Linux the CPU counters can be read and only grow") {
  const std::optional<train::CpuSample> first = train::sample_cpu();
  REQUIRE(first.has_value());
  volatile double sink = 0;
  for (int i = 0; i < 2000000; ++i) sink = sink + 1e-9 * i;
  const std::optional<train::CpuSample> second = train::sample_cpu();
  REQUIRE(second.has_value());
  CHECK(second->machine_busy >= first->machine_busy);
  CHECK(second->own >= first->own);
  CHECK(train::busy_elsewhere(*first, *second) >= 0.0);
}
