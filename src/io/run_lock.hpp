#pragma once
// One process at a time per run folder. A run folder's lock is an exclusive flock(2) on the
// hidden file `<parent>/.<name>.lock` next to it, holding the owner's PID and host. A second
// `ufl train` (or generate, analyze) into the same folder fails at once with the PID that holds
// it, whatever flags it was given (--force replaces a finished folder, never a live run). The
// kernel releases a flock when its process ends, however it ends (kill -9 included), so a lock
// is never stale; the file is removed when the lock is released normally.
#include <filesystem>
#include <string>

#include "io/io_error.hpp"

namespace ufl::io {

// Another process holds the lock.
struct RunLocked : IoError {
  using IoError::IoError;
};

class RunLock {
 public:
  // Creates the parent folders and takes the lock. Throws RunLocked ("results/local is in use by
  // process 1234 on host … (lock …); wait for it to finish or stop it") when another process
  // holds it, IoError when the lock file cannot be created.
  explicit RunLock(const std::filesystem::path& folder);
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  // Removes the lock file and releases the lock.
  ~RunLock();

  // `<parent>/.<name>.lock`.
  static std::filesystem::path lock_path(const std::filesystem::path& folder);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace ufl::io
