// Available memory: MemAvailable, bounded by the cgroup's limit less its usage (v2 and v1), read
// from a made-up /proc and /sys/fs/cgroup.
#include "io/available_memory.hpp"

#include <doctest/doctest.h>

#include <fstream>

#include "io_test_support.hpp"

using namespace ufl::io;
using ufl::io::testing::TempFolder;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("without a cgroup limit, MemAvailable is what is usable") {
  TempFolder folder;
  write(folder / "proc/meminfo", "MemTotal:       32000000 kB\nMemAvailable:    8000000 kB\n");
  write(folder / "proc/self/cgroup", "0::/user.slice\n");
  write(folder / "cgroup/user.slice/memory.max", "max\n");
  const AvailableMemory memory = available_memory(folder / "proc", folder / "cgroup");
  CHECK(memory.mem_available == 8000000.0 * 1024);
  CHECK(memory.cgroup_limit < 0);
  CHECK(memory.usable() == memory.mem_available);
  CHECK(memory.describe().find("no cgroup memory limit") != std::string::npos);
}

TEST_CASE("a cgroup v2 limit (the tightest on the way to the root) bounds it") {
  TempFolder folder;
  write(folder / "proc/meminfo", "MemAvailable:   16000000 kB\n");
  write(folder / "proc/self/cgroup", "0::/job/step\n");
  write(folder / "cgroup/job/memory.max", "2000000000\n");
  write(folder / "cgroup/job/memory.current", "500000000\n");
  write(folder / "cgroup/job/step/memory.max", "max\n");
  const AvailableMemory memory = available_memory(folder / "proc", folder / "cgroup");
  CHECK(memory.cgroup_limit == 2e9);
  CHECK(memory.cgroup_usage == 5e8);
  CHECK(memory.usable() == 1.5e9);
  CHECK(memory.describe().rfind("1.50 GB (MemAvailable", 0) == 0);
}

TEST_CASE("a cgroup v1 memory controller's limit bounds it; v1's 'no limit' is ignored") {
  TempFolder folder;
  write(folder / "proc/meminfo", "MemAvailable:   1000000 kB\n");
  write(folder / "proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/docker/abc\n");
  write(folder / "cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
  write(folder / "cgroup/memory/docker/memory.limit_in_bytes", "800000000\n");
  write(folder / "cgroup/memory/docker/memory.usage_in_bytes", "100000000\n");
  const AvailableMemory memory = available_memory(folder / "proc", folder / "cgroup");
  CHECK(memory.usable() == 7e8);
}

TEST_CASE("nothing readable: unknown, and no run is refused for it") {
  TempFolder folder;
  const AvailableMemory memory = available_memory(folder / "none", folder / "none");
  CHECK(memory.usable() < 0);
  CHECK(memory.describe().rfind("unknown", 0) == 0);
}

TEST_CASE("format_bytes in powers of 1000") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1.234e9) == "1.23 GB");
  CHECK(format_bytes(34.0e6) == "34.0 MB");
  CHECK(format_bytes(340e6) == "340 MB");
  CHECK(format_bytes(5e12) == "5.00 TB");
}
