#pragma once
// How much memory a run can use: the kernel's MemAvailable (/proc/meminfo) and, when the process
// runs in a cgroup with a memory limit (containers, Slurm jobs, systemd units), that limit less
// what the cgroup already uses. The memory estimate (train/resource_estimate.hpp) is checked
// against the smaller of the two before anything large is allocated; the peak a run used is
// reported after it.
#include <filesystem>
#include <string>

namespace ufl::io {

struct AvailableMemory {
  double mem_available = -1;  // bytes; < 0 when /proc/meminfo cannot be read
  double cgroup_limit = -1;   // bytes; < 0 when no cgroup limit applies
  double cgroup_usage = 0;    // bytes the cgroup uses now (0 when unknown)
  std::string cgroup_file;    // the limit's file, for messages

  // The smaller of MemAvailable and the cgroup's headroom; < 0 when neither is known.
  double usable() const;
  // "22.4 GB (MemAvailable 22.4 GB; cgroup limit 8.0 GB with 1.2 GB used, from …)".
  std::string describe() const;
};

// Reads `proc`/meminfo, `proc`/self/cgroup and the cgroup's memory files under `cgroup_root`
// (cgroup v2 memory.max / memory.current, the smallest limit on the way to the root; v1
// memory/…/memory.limit_in_bytes / memory.usage_in_bytes). The roots are parameters for tests.
AvailableMemory available_memory(const std::filesystem::path& proc = "/proc",
                                 const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// "1.2 GB", "340 MB", "5.0 TB" (powers of 1000, as MemAvailable is usually quoted in GB).
std::string format_bytes(double bytes);

// The most memory this process has held at once so far (its peak resident set, getrusage's
// ru_maxrss), in bytes; what a run reports in manifest.json as peak_memory_bytes.
double peak_resident_bytes();

}  // namespace ufl::io
