// Staging folders left by dead processes are found (to resume from and remove); those of live
// processes, of other hosts and other runs are never touched.
#include "io/stale_staging.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "io_test_support.hpp"

using namespace ufl::io;
using ufl::io::testing::TempFolder;
namespace fs = std::filesystem;

namespace {

// The PID of a process that has ended and been reaped.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

}  // namespace

TEST_CASE("process_alive: this process and its parent live, an ended child does not") {
  CHECK(process_alive(::getpid()));
  CHECK(process_alive(::getppid()));
  CHECK_FALSE(process_alive(dead_pid()));
  CHECK_FALSE(process_alive(0));
  CHECK_FALSE(process_alive(-5));
}

TEST_CASE("stale_staging_folders finds dead processes' staging folders of that run only") {
  TempFolder folder;
  const long dead = dead_pid();
  const std::string live = std::to_string(::getppid());
  const fs::path stale = folder / (".run.partial-" + std::to_string(dead));
  const fs::path stale_retry = folder / (".run.partial-" + std::to_string(dead) + "-2");
  const fs::path running = folder / (".run.partial-" + live);
  const fs::path other_run = folder / (".runner.partial-" + std::to_string(dead));
  const fs::path other_host = folder / ".run.partial-999999998";
  const fs::path not_a_pid = folder / ".run.partial-abc";
  for (const fs::path& path : {stale, stale_retry, running, other_run, other_host, not_a_pid})
    fs::create_directories(path);
  std::ofstream(other_host / "manifest.json") << R"({"host": "some-other-node-xyz"})";
  std::ofstream(stale / "manifest.json") << R"({"host": ")" + host_name() + R"("})";

  const std::vector<StaleStaging> found = stale_staging_folders(folder / "run");
  REQUIRE(found.size() == 2);
  for (const StaleStaging& staging : found) {
    CHECK(staging.pid == dead);
    CHECK((staging.path == stale || staging.path == stale_retry));
  }
  std::string why;
  CHECK(remove_stale_staging(found[0], why));
  CHECK_FALSE(fs::exists(found[0].path));
  for (const fs::path& path : {running, other_run, other_host, not_a_pid}) CHECK(fs::exists(path));
}
