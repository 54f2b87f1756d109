#pragma once
// ufl's default thread count follows the cores other work leaves free (docs/running.md, "Threads
// on a shared machine"). OpenMP threads wait for each other at every parallel region, and a step
// has hundreds: when another process takes a core, the thread on it is descheduled for whole
// scheduler slices and every region waits for it, so two threads on one free core run slower than
// one. Results are bit-identical at any thread count, so the count may change between steps.
#include <chrono>
#include <optional>

namespace ufl::train {

// Threads for `cores` cores of which other processes keep `busy_elsewhere` busy on average: the
// free cores rounded to the nearest whole core, at least 1.
int threads_for_free_cores(int cores, double busy_elsewhere);

// CPU time counters of the whole machine and of this process, in seconds.
struct CpuSample {
  double machine_busy = 0;  // all cores: user, nice, system, irq, softirq, steal (/proc/stat)
  double own = 0;           // this process, user + system (getrusage)
  std::chrono::steady_clock::time_point at;
};
// nullopt where /proc/stat cannot be read (not Linux).
std::optional<CpuSample> sample_cpu();
// The cores other processes kept busy between two samples, on average.
double busy_elsewhere(const CpuSample& before, const CpuSample& after);

// Chooses the OpenMP thread count from the free cores, once at the start and again every
// `interval` of wall time (update(), called between steps). Inactive when the user fixed the count
// (--threads or OMP_NUM_THREADS) or /proc/stat is unreadable.
class ThreadGovernor {
 public:
  ThreadGovernor(bool active, int cores,
                 std::chrono::milliseconds interval = std::chrono::milliseconds(2000));
  // Measures over `window` and sets the thread count (the start of a run).
  void start(std::chrono::milliseconds window = std::chrono::milliseconds(100));
  // Between steps: when `interval` has passed since the last measurement, measure and set.
  void update();
  int threads() const { return threads_; }
  bool active() const { return active_; }

 private:
  void apply(double busy);
  bool active_;
  int cores_, threads_;
  std::chrono::milliseconds interval_;
  std::optional<CpuSample> last_;
};

}  // namespace ufl::train
