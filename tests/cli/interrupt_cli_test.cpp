// Ctrl-C, resume and divergence as a user meets them: nothing lost, nothing half-written.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "io/npy.hpp"
#include "token_support.hpp"

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
  REQUIRE(interrupt_after_first_checkpoint(
      folder.path, "configs/section8/lowrank.json --out " + run + kLongRun));
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
  // The refusal names each key that differs, with both values.
  CHECK(other.output.find(run +
                          " holds a run with other settings: dataset.noise (0.1 given, 0.5 "
                          "in " +
                          run + "/config.json); choose another --out") != std::string::npos);
  // A folder that does not exist yet is simply trained.
  CHECK(
      run_ufl("train configs/section8/local.json --continue --out " + (folder / "new") + kSmallRun)
          .exit_code == 0);
  CHECK(fs::exists(folder / "new/metrics.json"));
}

TEST_CASE("a loss that explodes but stays finite is a divergence: exit 3, last finite parameters") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  // Once: a loss of 3·10²⁰ at the end, exit 0, "complete".
  const CommandResult result =
      run_ufl("train configs/section8/local.json --set train.lr=1e6 --out " + run + kSmallRun);
  INFO(result.output);
  CHECK(result.exit_code == 3);
  CHECK(result.output.find("exceeds 10⁶ × the first step's") != std::string::npos);
  const auto manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  CHECK(manifest["status"] == "diverged");
  // The parameters that gave the last finite loss are saved, and are finite.
  REQUIRE(fs::exists(run + "/params/A.npy"));
  for (const char* name : {"params/A.npy", "params/B.npy", "params/W_v.npy"})
    for (double value : ufl::io::read_npy(fs::path(run) / name).values)
      REQUIRE(std::isfinite(value));
  // The last row of loss.csv is the step that broke the rule; every earlier one is below it.
  std::istringstream rows(read_text(run + "/loss.csv"));
  std::string row, last;
  std::getline(rows, row);
  double first = -1, previous_max = 0;
  while (std::getline(rows, row)) {
    const double loss = std::stod(row.substr(row.find(',', row.find(',') + 1) + 1));
    if (first < 0) first = loss;
    if (!last.empty())
      previous_max =
          std::max(previous_max, std::stod(last.substr(last.find(',', last.find(',') + 1) + 1)));
    last = row;
  }
  const double final_loss = std::stod(last.substr(last.find(',', last.find(',') + 1) + 1));
  CHECK(final_loss > 1e6 * first);
  CHECK(previous_max <= 1e6 * first);
}

TEST_CASE("--resume refuses a run whose config.json was edited after it was interrupted") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(interrupt_after_first_checkpoint(
      folder.path, "configs/section8/lowrank.json --out " + run + kLongRun));
  REQUIRE(nlohmann::json::parse(read_text(run + "/manifest.json"))["status"] == "interrupted");
  auto config = nlohmann::json::parse(read_text(run + "/config.json"));
  const std::string original = read_text(run + "/config.json");
  config["dataset"]["noise"] = 0.25;
  config["train"]["lr"] = 0.02;
  std::ofstream(run + "/config.json") << config.dump(2) << "\n";
  const std::string checkpoint = read_text(run + "/checkpoint.bin");
  // Once: exit 0, half the steps on each setting, marked complete.
  for (const std::string& command :
       {"train --resume " + run,
        "train configs/section8/lowrank.json --out " + run + kLongRun + " --continue"}) {
    CAPTURE(command);
    const CommandResult resumed = run_ufl(command);
    CHECK(resumed.exit_code == 2);
    CHECK(std::count(resumed.output.begin(), resumed.output.end(), '\n') == 1);
    // --resume finds the edit against manifest.json's record; --continue already sees that the
    // folder's settings are not the config's. Either way both keys are named with both values.
    const bool edited = resumed.output.find(
                            "config.json was edited after the run was trained: dataset.noise "
                            "(0.25 in config.json, 0.5 when it trained), train.lr (0.02 in "
                            "config.json, 0.01 when it trained)") != std::string::npos;
    const bool other = resumed.output.find(
                           "holds a run with other settings: dataset.noise (0.5 "
                           "given, 0.25 in ") != std::string::npos &&
                       resumed.output.find("train.lr (0.01 given, 0.02 in ") != std::string::npos;
    CHECK((command.rfind("train --resume", 0) == 0 ? edited : other));
    CHECK(read_text(run + "/checkpoint.bin") == checkpoint);
  }
  // Restored, it resumes.
  std::ofstream(run + "/config.json") << original;
  CHECK(run_ufl("train --resume " + run + " -q").exit_code == 0);
}

TEST_CASE("a disk that fills while writing a checkpoint keeps the last good one for --continue") {
  TemporaryFolder folder;
  const std::string run = folder / "run", reference = folder / "reference";
  const std::string settings =
      " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set "
      "dataset.test_size=64 --set train.steps=3000 --set train.batch_size=16 --set "
      "train.checkpoint_every=50 -q -j1";
  const std::string command = "train configs/section8/local.json --out " + run + settings;
  // A file-size limit of 40 kB stands in for a full disk: the checkpoint grows with the loss
  // curve (44 bytes a step) until writing it fails (EFBIG; SIGXFSZ ignored, as ENOSPC raises
  // none), while every other file of the run is smaller.
  const CommandResult full = run_command("cd " UFL_SOURCE_DIR
                                         " && bash -c \"trap '' XFSZ; ulimit -f 40; "
                                         "exec " UFL_BINARY " " +
                                         command + "\"");
  INFO(full.output);
  CHECK(full.exit_code == 1);
  CHECK(full.output.find("checkpoint.bin") != std::string::npos);
  CHECK(full.output.find("is kept in") != std::string::npos);
  CHECK(std::count(full.output.begin(), full.output.end(), '\n') == 1);
  REQUIRE_FALSE(fs::exists(run));
  fs::path staging;
  for (const auto& entry : fs::directory_iterator(folder.path))
    if (entry.path().filename().string().rfind(".run.partial-", 0) == 0) staging = entry.path();
  REQUIRE_FALSE(staging.empty());
  REQUIRE(fs::exists(staging / "checkpoint.bin"));  // once deleted with the staging folder

  const CommandResult resumed = run_ufl(command + " --continue");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  const auto manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  CHECK(manifest["status"] == "complete");
  REQUIRE(manifest["invocations"].size() == 2);
  const int resumed_from = manifest["invocations"][1]["resumed_from_step"];
  CHECK(resumed_from >= 50);
  CHECK(resumed_from % 50 == 0);
  // And it ends as a run never stopped.
  REQUIRE(run_ufl("train configs/section8/local.json --out " + reference + settings).exit_code ==
          0);
  for (const char* file : {"loss.csv", "params/A.npy", "metrics.json"})
    CHECK_MESSAGE(read_text(run + "/" + file) == read_text(reference + "/" + file), file);
}

TEST_CASE("a stop while the figures are drawn, after the last step, leaves an interrupted run") {
  TemporaryFolder folder, process;
  const std::string corpus = write_tiny_corpus(folder), run = folder / "run";
  // A Python that says Matplotlib is there, then draws for a minute: the signal lands in the
  // phase after training, whatever the machine's speed.
  const std::string python = folder / "python", drawing = folder / "drawing";
  std::ofstream(python) << "#!/bin/sh\nif [ \"$1\" = -c ]; then exit 0; fi\ntouch " << drawing
                        << "\nexec sleep 60\n";
  fs::permissions(python, fs::perms::owner_all);
  const std::string pid =
      start_ufl(process,
                "train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                    run + " --set train.steps=20" + kTinyTextRun,
                "UFL_PYTHON=" + python);
  REQUIRE(!pid.empty());
  bool drawn = false;
  for (int wait = 0; wait < 30000 && !drawn; ++wait) {
    drawn = fs::exists(drawing);
    if (!drawn) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(drawn);
  const auto signalled = std::chrono::steady_clock::now();
  REQUIRE(run_command("kill -INT " + pid).exit_code == 0);
  CHECK(wait_for_exit_code(process) == 130);
  CHECK(std::chrono::steady_clock::now() - signalled < std::chrono::seconds(5));
  INFO(read_text(process / "err"));
  const auto manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  CHECK(manifest["status"] == "interrupted");
  CHECK(fs::exists(run + "/checkpoint.bin"));
  // The resume redoes the analysis only.
  const CommandResult resumed = run_ufl("train --resume " + run + " -q", kNoFigures);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(nlohmann::json::parse(read_text(run + "/manifest.json"))["status"] == "complete");
}

TEST_CASE(
    "ufl analyze stopped by SIGINT (ignored by a background job) or SIGTERM: 130, as it was") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  // An analysis of about a second of CPU (the optimum and the scores at n = 128), so that the
  // signal lands while it runs.
  const CommandResult trained = run_ufl(
      "train configs/section8/local.json --out " + run +
          " --set dataset.n=128 --set dataset.d=4 --set dataset.train_size=64"
          " --set dataset.test_size=512 --set train.steps=2 --set train.batch_size=16 -q -j1",
      kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const std::string metrics = read_text(run + "/metrics.json");
  const std::string manifest = read_text(run + "/manifest.json");
  auto staging = [&] {
    for (const auto& entry : fs::directory_iterator(folder.path))
      if (entry.path().filename().string().rfind(".run.partial-", 0) == 0) return true;
    return false;
  };
  for (const char* signal : {"INT", "TERM"}) {
    CAPTURE(signal);
    // start_ufl runs it as a background job of a shell script, which starts it with SIGINT
    // ignored: ufl's own handler must take the signal all the same.
    TemporaryFolder process;
    const std::string pid =
        start_ufl(process, "analyze " + run + " --set analysis.eta_min=1.5 -q -j1");
    REQUIRE(!pid.empty());
    bool analysing = false;
    for (int wait = 0; wait < 30000 && !analysing; ++wait) {
      analysing = staging();
      if (!analysing) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(analysing);
    REQUIRE(run_command(std::string("kill -") + signal + " " + pid).exit_code == 0);
    CHECK(wait_for_exit_code(process) == 130);
    INFO(read_text(process / "err"));
    CHECK(read_text(process / "err").find("interrupted") != std::string::npos);
    CHECK_FALSE(staging());
    CHECK(read_text(run + "/metrics.json") == metrics);
    CHECK(read_text(run + "/manifest.json") == manifest);
    CHECK_FALSE(fs::exists(run + "/metrics_history"));
  }
}
