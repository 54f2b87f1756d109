// Ctrl-C, resume and divergence as a user meets them: nothing lost, nothing half-written.
#include <doctest/doctest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {
// Long enough (~1-2 s on one thread) that a signal right after the first checkpoint (step 200)
// lands mid-training.
const std::string kLongRun =
    " --set dataset.n=16 --set dataset.d=8 --set dataset.train_size=512 --set dataset.test_size=128"
    " --set train.steps=4000 --set train.checkpoint_every=200 -q -j1";
}  // namespace

TEST_CASE("SIGINT saves a checkpoint; --resume ends bit-identical to an uninterrupted run") {
  TemporaryFolder folder;
  const std::string run = folder / "run", reference = folder / "reference";
  // Start in the background, interrupt it, wait for it to exit.
  const std::string start =
      "cd " UFL_SOURCE_DIR " && (" UFL_BINARY " train configs/section8/lowrank.json --out " + run +
      kLongRun + " > " + (folder / "log") + " 2>&1 & echo $! > " + (folder / "pid") + ")";
  REQUIRE(std::system(start.c_str()) == 0);
  REQUIRE(wait_for_first_checkpoint(folder.path));
  std::string pid = read_text(folder / "pid");
  pid.erase(pid.find_last_not_of(" \n") + 1);
  REQUIRE(run_command("kill -INT " + pid).exit_code == 0);
  for (int wait = 0; wait < 200 && run_command("kill -0 " + pid).exit_code == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  INFO(read_text(folder / "log"));
  const auto manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  REQUIRE(manifest["status"] == "interrupted");
  CHECK(manifest["complete"] == false);
  CHECK(fs::exists(run + "/checkpoint.bin"));
  CHECK(nlohmann::json::parse(read_text(run + "/metrics.json"))["complete"] == false);
  CHECK(read_text(folder / "log").find("continue with: ufl train --resume") != std::string::npos);
  // collect leaves interrupted runs out of the table.
  CHECK(run_ufl("collect " + (folder / "")).exit_code == 2);

  const CommandResult resumed = run_ufl("train --resume " + run + " -q");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  REQUIRE(run_ufl("train configs/section8/lowrank.json --out " + reference + kLongRun).exit_code ==
          0);
  for (const char* file :
       {"metrics.json", "loss.csv", "U.npy", "Sigma.npy", "V.npy", "params/A.npy"})
    CHECK_MESSAGE(read_text(run + "/" + file) == read_text(reference + "/" + file), file);
  CHECK(nlohmann::json::parse(read_text(run + "/manifest.json"))["status"] == "complete");
  CHECK_FALSE(fs::exists(run + "/checkpoint.bin"));
  // A finished run cannot be resumed.
  CHECK(run_ufl("train --resume " + run).exit_code == 2);
}

TEST_CASE("--resume refuses what it cannot continue") {
  TemporaryFolder folder;
  CHECK(run_ufl("train --resume " + (folder / "nothing")).exit_code == 2);
  CHECK(run_ufl("train").exit_code == 2);
}

TEST_CASE("a diverging learning rate stops with exit 3 and a run folder that says so") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const CommandResult result =
      run_ufl("train configs/section8/local.json --set train.lr=1e30 --out " + run + kSmallRun);
  CHECK(result.exit_code == 3);
  CHECK(result.output.find("ufl: error: training diverged at step ") != std::string::npos);
  const auto manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  CHECK(manifest["status"] == "diverged");
  CHECK(manifest["error"].get<std::string>().find("lower train.lr") != std::string::npos);
  CHECK(fs::exists(run + "/loss.csv"));
  CHECK_FALSE(fs::exists(run + "/metrics.json"));
}

TEST_CASE("--continue skips a complete run and refuses a folder with other settings") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  const std::string before = read_text(run + "/manifest.json");
  const CommandResult again =
      run_ufl("train configs/section8/local.json --continue --out " + run + kSmallRun);
  CHECK(again.exit_code == 0);
  CHECK(read_text(run + "/manifest.json") == before);  // not retrained
  const CommandResult other =
      run_ufl("train configs/section8/local.json --continue --set dataset.noise=0.1 --out " + run +
              kSmallRun);
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("other settings") != std::string::npos);
  // A folder that does not exist yet is simply trained.
  CHECK(
      run_ufl("train configs/section8/local.json --continue --out " + (folder / "new") + kSmallRun)
          .exit_code == 0);
  CHECK(fs::exists(folder / "new/metrics.json"));
}
