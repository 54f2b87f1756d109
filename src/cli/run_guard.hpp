#pragma once
// What every command that writes a run or dataset folder does first: take the folder's lock
// (io/run_lock.hpp; held until the command ends) and find the staging folders that killed
// processes left next to it (io/stale_staging.hpp), to resume from or remove.
#include <filesystem>
#include <memory>
#include <vector>

#include "io/run_lock.hpp"
#include "io/stale_staging.hpp"

namespace ufl::cli {

class RunGuard {
 public:
  // Throws BadInput when another process holds the lock or the lock cannot be created.
  explicit RunGuard(const std::filesystem::path& folder);

  // The staging folders of dead processes, found when the lock was taken.
  const std::vector<io::StaleStaging>& stale() const { return stale_; }
  // Removes them, saying so on the log.
  void remove_stale() const;

 private:
  std::unique_ptr<io::RunLock> lock_;
  std::vector<io::StaleStaging> stale_;
};

}  // namespace ufl::cli
