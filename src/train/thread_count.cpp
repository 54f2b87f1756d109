#include "train/thread_count.hpp"

#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

#include "io/log.hpp"

namespace ufl::train {

int threads_for_free_cores(int cores, double busy_elsewhere) {
  const double free = double(cores) - std::max(0.0, busy_elsewhere);
  return std::clamp(int(std::lround(free)), 1, std::max(1, cores));
}

std::optional<CpuSample> sample_cpu() {
  std::ifstream stat("/proc/stat");
  std::string label;
  if (!(stat >> label) || label != "cpu") return std::nullopt;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  double fields[8] = {};
  for (double& field : fields)
    if (!(stat >> field)) return std::nullopt;
  const double ticks = double(sysconf(_SC_CLK_TCK));
  CpuSample sample;
  sample.machine_busy = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]) /
                        (ticks > 0 ? ticks : 100.0);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  sample.own = double(usage.ru_utime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec) +
               double(usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_stime.tv_usec);
  sample.at = std::chrono::steady_clock::now();
  return sample;
}

double busy_elsewhere(const CpuSample& before, const CpuSample& after) {
  const double wall = std::chrono::duration<double>(after.at - before.at).count();
  if (!(wall > 0)) return 0;
  const double others = (after.machine_busy - before.machine_busy) - (after.own - before.own);
  return std::max(0.0, others / wall);
}

ThreadGovernor::ThreadGovernor(bool active, int cores, std::chrono::milliseconds interval)
    : active_(active && cores > 1), cores_(cores), threads_(cores), interval_(interval) {}

void ThreadGovernor::start(std::chrono::milliseconds window) {
  if (!active_) return;
  last_ = sample_cpu();
  if (!last_) {
    active_ = false;
    return;
  }
  std::this_thread::sleep_for(window);
  const std::optional<CpuSample> now = sample_cpu();
  if (!now) return;
  apply(busy_elsewhere(*last_, *now));
  last_ = now;
}

void ThreadGovernor::update() {
  if (!active_ || !last_) return;
  if (std::chrono::steady_clock::now() - last_->at < interval_) return;
  const std::optional<CpuSample> now = sample_cpu();
  if (!now) return;
  apply(busy_elsewhere(*last_, *now));
  last_ = now;
}

void ThreadGovernor::apply(double busy) {
  const int chosen = threads_for_free_cores(cores_, busy);
  if (chosen == threads_) return;
  spdlog::debug("other work keeps {:.1f} of {} cores busy: {} thread{}", busy, cores_, chosen,
                chosen == 1 ? "" : "s");
  threads_ = chosen;
  omp_set_num_threads(chosen);
}

}  // namespace ufl::train
