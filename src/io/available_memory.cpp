#include "io/available_memory.hpp"

#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

// A limit at or above 2⁶² bytes means "no limit" (cgroup v1 reports 9223372036854771712).
constexpr double kNoLimit = 4.6e18;

bool read_number(const fs::path& file, double& value) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return false;
  try {
    value = std::stod(text);
  } catch (const std::exception&) {
    return false;
  }
  return std::isfinite(value) && value < kNoLimit;
}

double mem_available_of(const fs::path& meminfo) {
  std::ifstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double kilobytes = -1;
    std::string unit;
    if (fields >> kilobytes) return kilobytes * 1024;
  }
  return -1;
}

// The limit closest to `folder` or above it (a parent's limit binds its children), with the usage
// of the cgroup that sets it.
void find_limit(const fs::path& root, fs::path relative, const char* limit_name,
                const char* usage_name, AvailableMemory& memory) {
  for (;;) {
    const fs::path folder = root / relative;
    double limit = 0;
    if (read_number(folder / limit_name, limit) &&
        (memory.cgroup_limit < 0 || limit < memory.cgroup_limit)) {
      memory.cgroup_limit = limit;
      memory.cgroup_file = (folder / limit_name).string();
      double usage = 0;
      memory.cgroup_usage = read_number(folder / usage_name, usage) ? usage : 0;
    }
    if (relative.empty() || relative == "/" || !relative.has_relative_path()) break;
    relative = relative.parent_path();
    if (relative == "/") relative.clear();
  }
}

}  // namespace

double AvailableMemory::usable() const {
  double usable = mem_available;
  if (cgroup_limit >= 0) {
    const double headroom = std::max(cgroup_limit - cgroup_usage, 0.0);
    usable = usable < 0 ? headroom : std::min(usable, headroom);
  }
  return usable;
}

std::string AvailableMemory::describe() const {
  std::string text = usable() < 0 ? std::string("unknown") : format_bytes(usable());
  text += " (MemAvailable " +
          (mem_available < 0 ? std::string("unknown") : format_bytes(mem_available));
  if (cgroup_limit >= 0)
    text += "; cgroup limit " + format_bytes(cgroup_limit) + " with " + format_bytes(cgroup_usage) +
            " used, " + cgroup_file;
  else
    text += "; no cgroup memory limit";
  return text + ")";
}

AvailableMemory available_memory(const fs::path& proc, const fs::path& cgroup_root) {
  AvailableMemory memory;
  memory.mem_available = mem_available_of(proc / "meminfo");
  // /proc/self/cgroup: "0::/user.slice/…" (v2) or "4:memory:/docker/…" (v1). Inside a cgroup
  // namespace the path may not exist under the mount; the mount's root is then ours.
  std::ifstream in(proc / "self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    fs::path relative = fs::path(line.substr(second + 1)).relative_path();
    if (controllers.empty()) {  // v2
      if (!fs::exists(cgroup_root / relative / "memory.max")) relative.clear();
      find_limit(cgroup_root, relative, "memory.max", "memory.current", memory);
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {  // v1
      const fs::path root = cgroup_root / "memory";
      if (!fs::exists(root / relative / "memory.limit_in_bytes")) relative.clear();
      find_limit(root, relative, "memory.limit_in_bytes", "memory.usage_in_bytes", memory);
    }
  }
  return memory;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 999.5 && unit < 6) bytes /= 1000, ++unit;
  char text[32];
  std::snprintf(text, sizeof text,
                unit == 0 ? "%.0f %s"
                          : (bytes < 9.995   ? "%.2f %s"
                             : bytes < 99.95 ? "%.1f %s"
                                             : "%.0f %s"),
                bytes, units[unit]);
  return text;
}

double peak_resident_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return double(usage.ru_maxrss) * 1024.0;  // Linux reports kilobytes
}

}  // namespace ufl::io
