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
  // What the command does with the folder: writes it (train, generate: the folder is their
  // --out, so another --out is a way out) or works on the run that is there (analyze, show).
  enum class Use { kOutput, kExisting };
  // Throws BadInput when another process holds the lock or the lock cannot be created.
  explicit RunGuard(const std::filesystem::path& folder, Use use = Use::kOutput);

  // The staging folders of dead processes, found when the lock was taken.
  const std::vector<io::StaleStaging>& stale() const { return stale_; }
  // Removes them, saying so on the log.
  void remove_stale() const;

 private:
  std::unique_ptr<io::RunLock> lock_;
  std::vector<io::StaleStaging> stale_;
};

}  // namespace ufl::cli
