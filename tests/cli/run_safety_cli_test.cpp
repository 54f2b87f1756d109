// A run folder under stress, as a user meets it: a second process on the same --out, kill -9 and
// --continue, SIGTERM at a large size, Ctrl-C on generate, too many threads. Background runs are
// waited for by what they leave on disk, never by timing.
#include <doctest/doctest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// `ufl ARGS` in the background; its PID, and its exit code in `rc` once it ends (the subshell
// that waits for it also reaps it, so a killed ufl does not linger as a zombie).
struct Background {
  TemporaryFolder& folder;
  std::string name, pid;

  Background(TemporaryFolder& where, const std::string& label, const std::string& arguments)
      : folder(where), name(label) {
    const std::string command = "cd " UFL_SOURCE_DIR " && (" UFL_BINARY " " + arguments + " > " +
                                (folder / (name + ".log")) + " 2>&1 & echo $! > " +
                                (folder / (name + ".pid")) + "; wait $!; echo $? > " +
                                (folder / (name + ".rc")) + ") > /dev/null 2>&1 &";
    REQUIRE(std::system(command.c_str()) == 0);
    for (int wait = 0; wait < 30000 && pid.empty(); ++wait) {
      pid = read_text(folder / (name + ".pid"));
      if (pid.empty() || pid.back() != '\n') {
        pid.clear();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    REQUIRE_FALSE(pid.empty());
    pid.pop_back();
  }
  bool ended() const { return fs::exists(folder / (name + ".rc")); }
  std::string log() const { return read_text(folder / (name + ".log")); }
  // Waits (at most five minutes: a deadline against hangs, not a measurement) for it to end.
  int wait() const {
    for (int wait = 0; wait < 30000 && !ended(); ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::string rc = read_text(folder / (name + ".rc"));
    return rc.empty() ? -1 : std::stoi(rc);
  }
  void signal(const std::string& which) const {
    REQUIRE(run_command("kill -" + which + " " + pid).exit_code == 0);
  }
};

// Polls `condition` every 10 ms for at most five minutes (a deadline against hangs: a loaded
// machine may take a minute to start a run).
template <class Condition>
bool eventually(Condition condition) {
  for (int wait = 0; wait < 30000; ++wait) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The staging folders `.NAME.partial-*` next to the run folder NAME.
std::vector<fs::path> staging_folders(const TemporaryFolder& folder, const std::string& name) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder.path))
    if (entry.path().filename().string().rfind("." + name + ".partial-", 0) == 0)
      found.push_back(entry.path());
  return found;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

const std::string kEndless =
    " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set dataset.test_size=64"
    " --set train.steps=200000 --set train.batch_size=16 --set train.checkpoint_every=20 -q -j1";

}  // namespace

TEST_CASE("a second ufl train into a run folder in use exits 2 naming the PID, even with --force") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const Background first(folder, "first",
                         "train configs/section8/local.json --out " + run + kEndless);
  // Training has started once the first checkpoint is in the staging folder.
  REQUIRE(eventually([&] {
    for (const fs::path& path : staging_folders(folder, "run"))
      if (fs::exists(path / "checkpoint.bin")) return true;
    return first.ended();
  }));
  REQUIRE_FALSE(first.ended());
  for (const std::string flags : {"", " --force", " --continue"}) {
    CAPTURE(flags);
    const CommandResult second =
        run_ufl("train configs/section8/local.json --out " + run + kEndless + flags);
    CHECK(second.exit_code == 2);
    CHECK(second.output.find("ufl: error: " + run + " is in use by process " + first.pid) == 0);
    CHECK(second.output.find("; wait for it to finish or stop it, or choose another --out\n") !=
          std::string::npos);
    CHECK(std::count(second.output.begin(), second.output.end(), '\n') == 1);
  }
  CHECK(run_ufl("train --resume " + run).exit_code == 2);

  // SIGTERM: the first stops in order, leaving a resumable run, and releases the lock.
  first.signal("TERM");
  CHECK(first.wait() == 130);
  INFO(first.log());
  const auto manifest = read_json(run + "/manifest.json");
  CHECK(manifest["status"] == "interrupted");
  CHECK(fs::exists(run + "/checkpoint.bin"));
  CHECK_FALSE(fs::exists(folder / ".run.lock"));
  CHECK(staging_folders(folder, "run").empty());
}

TEST_CASE("kill -9, then --continue resumes from the last checkpoint, bit-identical") {
  TemporaryFolder folder;
  const std::string run = folder / "run", reference = folder / "reference";
  const std::string settings =
      " --set dataset.n=16 --set dataset.d=8 --set dataset.train_size=512 --set "
      "dataset.test_size=128 --set train.steps=4000 --set train.checkpoint_every=100 -q -j1";
  const std::string command = "train configs/section8/lowrank.json --out " + run + settings;
  const Background killed(folder, "killed", command);
  fs::path staging;
  REQUIRE(eventually([&] {
    for (const fs::path& path : staging_folders(folder, "run"))
      if (fs::exists(path / "checkpoint.bin")) staging = path;
    return !staging.empty() || killed.ended();
  }));
  killed.signal("KILL");
  killed.wait();
  INFO(killed.log());
  REQUIRE(fs::exists(staging / "checkpoint.bin"));  // what kill -9 left
  REQUIRE_FALSE(fs::exists(run));

  // Starting over is refused (the checkpoint would be lost) unless asked for.
  const CommandResult fresh = run_ufl(command);
  CHECK(fresh.exit_code == 2);
  CHECK(fresh.output.find("left a checkpoint in") != std::string::npos);
  CHECK(fresh.output.find("--continue") != std::string::npos);

  const CommandResult resumed = run_ufl(command + " --continue");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(staging_folders(folder, "run").empty());  // the dead process's folder is cleaned
  const auto manifest = read_json(run + "/manifest.json");
  CHECK(manifest["status"] == "complete");
  REQUIRE(manifest["invocations"].size() == 2);
  // The original command stays; the resume is added with the step it resumed from.
  CHECK(manifest["command"] == manifest["invocations"][0]["command"]);
  CHECK(manifest["invocations"][0]["command"].get<std::string>().find("--continue") ==
        std::string::npos);
  CHECK(manifest["invocations"][1]["command"].get<std::string>().find("--continue") !=
        std::string::npos);
  CHECK(manifest["invocations"][1]["resumed_from_step"].get<int>() >= 100);
  CHECK(manifest["invocations"][1]["resumed_from_step"].get<int>() % 100 == 0);

  REQUIRE(run_ufl("train configs/section8/lowrank.json --out " + reference + settings).exit_code ==
          0);
  for (const char* file : {"metrics.json", "loss.csv", "trajectory.csv", "U.npy", "V.npy",
                           "params/A.npy", "config.json"})
    CHECK_MESSAGE(read_text(run + "/" + file) == read_text(reference + "/" + file), file);
  // A complete run is not trained again.
  CHECK(run_ufl(command + " --continue").exit_code == 0);
}

TEST_CASE("SIGTERM at n = 256 stops training and leaves a resumable run") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const Background big(folder, "big",
                       "train configs/section8/global.json --out " + run +
                           " --set dataset.n=256 --set dataset.d=8 --set dataset.train_size=256"
                           " --set dataset.test_size=64 --set train.batch_size=16"
                           " --set train.steps=100000 --set train.checkpoint_every=1 -j1");
  // Once a step has finished and its checkpoint is on disk: the state this test is about. (The
  // log line "train 'global'" comes before the first step ends; a signal then rightly keeps
  // nothing, which made this test fail on a loaded machine.)
  REQUIRE(eventually([&] {
    for (const fs::path& path : staging_folders(folder, "run"))
      if (fs::exists(path / "checkpoint.bin")) return true;
    return big.ended();
  }));
  REQUIRE_FALSE(big.ended());
  big.signal("TERM");
  CHECK(big.wait() == 130);
  INFO(big.log());
  CHECK(read_json(run + "/manifest.json")["status"] == "interrupted");
  CHECK(fs::exists(run + "/checkpoint.bin"));
  CHECK(big.log().find("continue with: ufl train --resume " + run) != std::string::npos);
}

TEST_CASE("Ctrl-C on ufl generate leaves nothing behind") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  const Background generate(folder, "generate",
                            "generate configs/section8/global.json --out " + data +
                                " --set dataset.train_size=100000 --set dataset.d=8");
  REQUIRE(eventually([&] { return !staging_folders(folder, "data").empty() || generate.ended(); }));
  REQUIRE_FALSE(generate.ended());
  generate.signal("INT");
  CHECK(generate.wait() == 130);
  INFO(generate.log());
  CHECK(generate.log().find("nothing was written") != std::string::npos);
  CHECK_FALSE(fs::exists(data));
  CHECK(staging_folders(folder, "data").empty());
}

TEST_CASE("--threads above the cores is capped, with a warning") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl("train configs/section8/local.json --threads 1000 --out " +
                                       (folder / "run") + kSmallRun);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(result.output.find("--threads 1000: this machine has ") != std::string::npos);
  const int threads = read_json(folder / "run/manifest.json")["threads"];
  CHECK(threads >= 1);
  CHECK(threads < 1000);
}

TEST_CASE("the first lines give the estimate; progress shows no test_mse before it exists") {
  TemporaryFolder folder;
  std::string arguments = kSmallRun.substr(0, kSmallRun.rfind(" -q"));
  const CommandResult result =
      run_ufl("train configs/section8/local.json --out " + (folder / "run") + arguments + " -j1");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto memory = result.output.find("memory: about "),
             time = result.output.find("time: about ");
  const auto first_step = result.output.find("step ");
  CHECK(memory < first_step);
  CHECK(time < first_step);
  CHECK(result.output.find("measured ") != std::string::npos);
  CHECK(result.output.find("nan") == std::string::npos);
}

TEST_CASE("trajectory.csv: γ and the scores of M̄ at every evaluation") {
  TemporaryFolder folder;
  REQUIRE(run_ufl("train configs/section8/global.json --out " + (folder / "run") + kSmallRun)
              .exit_code == 0);
  const std::string csv = read_text(folder / "run/trajectory.csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "step,gamma,iota,tau,ell,phi,alpha");
  std::vector<std::string> steps;
  while (std::getline(lines, line)) {
    steps.push_back(line.substr(0, line.find(',')));
    CHECK(std::count(line.begin(), line.end(), ',') == 6);
  }
  CHECK(steps == std::vector<std::string>{"20", "40", "60"});  // eval_every 20 of 60 steps
  CHECK(read_json(folder / "run/manifest.json")["trajectory_seconds"].get<double>() >= 0);
}

TEST_CASE("a dead process's staging folder without a checkpoint is removed by the next run") {
  TemporaryFolder folder;
  // A PID that cannot be live (above any pid_max) and a manifest that names no other host.
  const fs::path leftover = folder.path / ".run.partial-999999999";
  fs::create_directories(leftover);
  std::ofstream(leftover / "config.json") << "{}";
  const fs::path live = folder.path / (".run.partial-" + std::to_string(::getpid()));
  fs::create_directories(live);  // a live process's: never touched
  const CommandResult result =
      run_ufl("train configs/section8/local.json --out " + (folder / "run") + kSmallRun);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_FALSE(fs::exists(leftover));
  CHECK(fs::exists(live));
  CHECK(read_json(folder / "run/manifest.json")["status"] == "complete");
}

TEST_CASE("an empty --out (an unset shell variable) is refused, not read as the default folder") {
  TemporaryFolder folder;
  // From a folder of its own, so that the default results/NAME would be written there.
  const std::string in_folder = "cd " + folder.path.string() + " && " + ufl_binary() + " ";
  const std::string config = source_dir() + "/configs/section8/local.json";
  for (const std::string command : {"train", "generate"}) {
    for (const std::string flags : {"", " --force"}) {
      CAPTURE(command + flags);
      const CommandResult refused =
          run_command(in_folder + command + " " + config + " --out ''" + flags + kSmallRun);
      CHECK(refused.exit_code == 2);
      CHECK(refused.output.rfind("ufl: error: --out: empty; give a folder, or leave --out out",
                                 0) == 0);
      CHECK(std::count(refused.output.begin(), refused.output.end(), '\n') == 1);
      CHECK(fs::is_empty(folder.path));
    }
  }
  // The other file and folder arguments alike.
  for (const std::string& arguments :
       {"train " + config + " --data ''", std::string("train --resume ''"),
        std::string("analyze ''"), std::string("show ''"), "config " + config + " --data ''",
        std::string("collect ''")}) {
    CAPTURE(arguments);
    const CommandResult refused = run_command(in_folder + arguments);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find(": empty; give ") != std::string::npos);
  }
  CHECK(fs::is_empty(folder.path));
}
