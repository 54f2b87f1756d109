#include "io/stale_staging.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "io/atomic_file.hpp"

namespace ufl::io {
namespace {

namespace fs = std::filesystem;

// The PID in ".<name>.partial-<pid>" or ".<name>.partial-<pid>-<k>"; 0 when it does not parse.
long staging_pid(const std::string& file_name, const std::string& prefix) {
  if (file_name.rfind(prefix, 0) != 0) return 0;
  const std::string rest = file_name.substr(prefix.size());
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits > 9) return 0;
  if (digits < rest.size()) {  // "-<k>" may follow
    if (rest[digits] != '-' || digits + 1 == rest.size()) return 0;
    for (std::size_t k = digits + 1; k < rest.size(); ++k)
      if (!std::isdigit(static_cast<unsigned char>(rest[k]))) return 0;
  }
  return std::stol(rest.substr(0, digits));
}

// The host named in the staging folder's manifest.json; "" when there is none.
std::string recorded_host(const fs::path& staging) {
  std::error_code error;
  if (!fs::is_regular_file(staging / "manifest.json", error)) return "";
  try {
    const nlohmann::json manifest =
        nlohmann::json::parse(read_file(staging / "manifest.json"), nullptr, false);
    return manifest.is_object() ? manifest.value("host", std::string()) : "";
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

std::string host_name() {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  return host;
}

bool process_alive(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  // A zombie (killed, not yet reaped by its parent) still answers kill(pid, 0) but holds
  // nothing: its state in /proc/<pid>/stat, after the parenthesised name, is 'Z'.
  const std::string stat = [&] {
    try {
      return read_file("/proc/" + std::to_string(pid) + "/stat");
    } catch (const std::exception&) {
      return std::string();
    }
  }();
  const auto name_end = stat.rfind(')');
  return !(name_end != std::string::npos && name_end + 2 < stat.size() &&
           stat[name_end + 2] == 'Z');
}

std::vector<StaleStaging> stale_staging_folders(const fs::path& folder_given) {
  fs::path folder = folder_given;
  if (!folder.has_filename()) folder = folder.parent_path();
  const fs::path parent = folder.has_parent_path() ? folder.parent_path() : fs::path(".");
  const std::string prefix = "." + folder.filename().string() + ".partial-";
  std::vector<StaleStaging> stale;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    const long pid = staging_pid(entry.path().filename().string(), prefix);
    if (pid == 0 || pid == ::getpid() || !entry.is_directory(error) || process_alive(pid)) continue;
    const std::string host = recorded_host(entry.path());
    if (!host.empty() && host != host_name()) continue;
    stale.push_back(StaleStaging{entry.path(), pid});
  }
  std::sort(stale.begin(), stale.end(),
            [](const StaleStaging& a, const StaleStaging& b) { return a.pid < b.pid; });
  return stale;
}

bool remove_stale_staging(const StaleStaging& staging, std::string& why) {
  std::error_code error;
  fs::remove_all(staging.path, error);
  if (error) why = error.message();
  return !error;
}

}  // namespace ufl::io
