// The run folder's lock: one process (here: one lock object) at a time, a refusal naming the
// holder's PID, and nothing left behind once released.
#include "io/run_lock.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include "io/stale_staging.hpp"
#include "io_test_support.hpp"

using namespace ufl::io;
using ufl::io::testing::TempFolder;

TEST_CASE("the lock file sits next to the run folder, hidden") {
  CHECK(RunLock::lock_path("results/local") == std::filesystem::path("results/.local.lock"));
  CHECK(RunLock::lock_path("results/local/") == std::filesystem::path("results/.local.lock"));
  CHECK(RunLock::lock_path("local") == std::filesystem::path("./.local.lock"));
}

TEST_CASE("a second lock on a locked run folder is refused with the holder's PID") {
  TempFolder folder;
  const auto run = folder / "deep/run";
  {
    const RunLock first(run);  // creates the missing parents
    CHECK(std::filesystem::exists(RunLock::lock_path(run)));
    std::string message;
    try {
      const RunLock second(run);
    } catch (const RunLocked& error) {
      message = error.what();
    }
    CHECK(message.find("is in use by process " + std::to_string(::getpid()) + " on host " +
                       host_name()) != std::string::npos);
    // What to do depends on the command (cli/run_guard.hpp): train may choose another --out,
    // analyze may not.
    CHECK(message.find("wait for it to finish or stop it") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(run));  // the lock never creates the folder itself
  }
  // Released: the file is gone and the folder can be locked again.
  CHECK_FALSE(std::filesystem::exists(RunLock::lock_path(run)));
  const RunLock again(run);
  CHECK(std::filesystem::exists(RunLock::lock_path(run)));
}
