#include "cli/run_guard.hpp"

#include "cli/errors.hpp"
#include "io/log.hpp"

namespace ufl::cli {

RunGuard::RunGuard(const std::filesystem::path& folder, Use use) {
  try {
    lock_ = std::make_unique<io::RunLock>(folder);
  } catch (const io::RunLocked& error) {
    throw BadInput(std::string(error.what()) +
                   (use == Use::kOutput ? ", or choose another --out" : ""));
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // an unwritable folder is the user's to fix
  }
  stale_ = io::stale_staging_folders(folder);
}

void RunGuard::remove_stale() const {
  for (const io::StaleStaging& staging : stale_) {
    std::string why;
    if (io::remove_stale_staging(staging, why))
      spdlog::info("removed {}, left by process {} which is no longer running",
                   staging.path.string(), staging.pid);
    else
      spdlog::warn("cannot remove {}: {}", staging.path.string(), why);
  }
}

}  // namespace ufl::cli
