#pragma once
// Staging folders left behind. A run is written into `<parent>/.<name>.partial-<pid>` and renamed
// into place when done (io/run_folder.hpp); a process killed before that (kill -9, a crash, a
// lost node) leaves its staging folder, with the run's last checkpoint in it when it had written
// one. These are found here, so that `--continue`/`--resume` can resume from that checkpoint and
// the leftovers can be removed.
//
// A staging folder is stale only when its process is dead: its PID is not a live process on this
// machine, and its manifest (if written) names this host. Folders of live processes, and of
// other hosts (whose PIDs cannot be checked from here), are never touched. Call these only while
// holding the run's lock (io/run_lock.hpp), so that no other ufl is starting a run of that name.
#include <filesystem>
#include <string>
#include <vector>

namespace ufl::io {

struct StaleStaging {
  std::filesystem::path path;
  long pid = 0;
};

// The stale staging folders of the run folder `folder`, oldest PID first. Folders whose name
// does not parse, or that belong to a live process or another host, are left out.
std::vector<StaleStaging> stale_staging_folders(const std::filesystem::path& folder);

// Removes one; false (and the reason in `why`) when it cannot.
bool remove_stale_staging(const StaleStaging& staging, std::string& why);

// True when `pid` is a live process on this machine (including one we may not signal).
bool process_alive(long pid);

// This machine's host name (as manifest.json records it).
std::string host_name();

}  // namespace ufl::io
