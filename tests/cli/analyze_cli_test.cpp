// `ufl analyze` end to end: it scores a run on the data it was trained on (its recorded --data
// folder), refuses when that data is gone, keeps the previous metrics and records what changed,
// and touches no config key but the thresholds it was given.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "io/npy.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSmallData =
    " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set dataset.test_size=64";

json read_json(const std::string& path) { return json::parse(read_text(path)); }

// A dataset folder whose test samples are not what the config generates: its test inputs and
// targets are scaled by 3, so analysing on regenerated data would give other numbers.
void generate_rescaled(const std::string& data) {
  REQUIRE(run_ufl("generate configs/section8/local.json --out " + data + kSmallData).exit_code ==
          0);
  for (const char* name : {"test_inputs.npy", "test_targets.npy"}) {
    const fs::path file = fs::path(data) / name;
    const ufl::io::NpyArray array = ufl::io::read_npy(file);
    std::vector<float> scaled(array.values.begin(), array.values.end());
    for (float& value : scaled) value *= 3.0f;
    ufl::io::write_npy(file, scaled.data(), array.shape);
  }
}

}  // namespace

TEST_CASE("ufl analyze uses the data folder the run was trained on, and refuses when it is gone") {
  TemporaryFolder folder;
  const std::string data = folder / "data", run = folder / "run";
  generate_rescaled(data);
  const CommandResult trained =
      run_ufl("train configs/section8/local.json --data " + data + " --out " + run + kSmallRun);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const std::string metrics = read_text(run + "/metrics.json");
  const std::string config = read_text(run + "/config.json");
  CHECK(fs::path(read_json(run + "/manifest.json")["data_dir"].get<std::string>()).is_absolute());

  // Re-analysis without --data finds the recorded folder: the same numbers, nothing kept aside.
  const CommandResult same = run_ufl("analyze " + run);
  INFO(same.output);
  REQUIRE(same.exit_code == 0);
  CHECK(read_text(run + "/metrics.json") == metrics);
  CHECK(read_text(run + "/config.json") == config);
  CHECK_FALSE(fs::exists(run + "/metrics_history"));
  CHECK(same.output.find("metrics unchanged") != std::string::npos);

  // The data moved away: exit 2 naming the folder, nothing written.
  const std::string manifest = read_text(run + "/manifest.json");
  fs::rename(data, folder / "moved");
  const CommandResult gone = run_ufl("analyze " + run);
  CHECK(gone.exit_code == 2);
  CHECK(std::count(gone.output.begin(), gone.output.end(), '\n') == 1);
  CHECK(gone.output.find("was trained on the data in") != std::string::npos);
  CHECK(gone.output.find("which is gone") != std::string::npos);
  CHECK(read_text(run + "/metrics.json") == metrics);
  CHECK(read_text(run + "/manifest.json") == manifest);
  // --data points at it again.
  CHECK(run_ufl("analyze -q " + run + " --data " + (folder / "moved")).exit_code == 0);
  CHECK(read_text(run + "/metrics.json") == metrics);
}

TEST_CASE("a re-analysis keeps the previous metrics and records what changed in the manifest") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  // A config.json as written before dataset.seed existed: analyze must not add keys to it.
  json config = read_json(run + "/config.json");
  config["dataset"].erase("seed");
  std::ofstream(run + "/config.json") << config.dump(2) << "\n";
  const std::string original = read_text(run + "/metrics.json");

  // Thresholds that make any layer a convolution that has emerged: attention needs ι ≥ 1, the
  // convolution test and η always pass.
  const std::string lenient =
      " --set analysis.iota_min=1 --set analysis.tau_min=0 --set analysis.ell_min=0 --set "
      "analysis.eta_min=0.01";
  const CommandResult relaxed = run_ufl("analyze " + run + lenient);
  INFO(relaxed.output);
  REQUIRE(relaxed.exit_code == 0);
  CHECK(relaxed.output.find("verdict: convolution, emerged") != std::string::npos);
  CHECK(read_text(run + "/metrics_history/metrics-1.json") == original);
  CHECK(read_json(run + "/metrics.json")["thresholds"]["eta_min"] == 0.01);

  // config.json: the four thresholds changed, every other key exactly as before.
  json expected = config;
  expected["analysis"]["iota_min"] = 1;
  expected["analysis"]["tau_min"] = 0;
  expected["analysis"]["ell_min"] = 0;
  expected["analysis"]["eta_min"] = 0.01;
  CHECK(read_json(run + "/config.json") == expected);

  json analyses = read_json(run + "/manifest.json")["analyses"];
  REQUIRE(analyses.size() == 1);
  CHECK(analyses[0]["thresholds"].size() == 4);
  CHECK(analyses[0]["thresholds"]["analysis.eta_min"] == json{{"from", 0.9}, {"to", 0.01}});
  CHECK(analyses[0]["previous_metrics"] == "metrics_history/metrics-1.json");
  CHECK(analyses[0]["verdict"]["to"] == "convolution");
  CHECK(analyses[0]["emerged"]["to"] == true);
  CHECK(analyses[0]["command"].get<std::string>().find("analyze " + run) != std::string::npos);
  CHECK(analyses[0].contains("at"));

  // A second change keeps the second previous version too, and says what it undid.
  const std::string relaxed_metrics = read_text(run + "/metrics.json");
  const CommandResult strict = run_ufl("analyze " + run + " --set analysis.eta_min=1.5");
  INFO(strict.output);
  REQUIRE(strict.exit_code == 0);
  CHECK(strict.output.find("verdict: convolution, not emerged") != std::string::npos);
  CHECK(strict.output.find("< eta_min 1.5") != std::string::npos);
  CHECK(read_text(run + "/metrics_history/metrics-2.json") == relaxed_metrics);
  CHECK(read_text(run + "/metrics_history/metrics-1.json") == original);
  analyses = read_json(run + "/manifest.json")["analyses"];
  REQUIRE(analyses.size() == 2);
  CHECK(analyses[1]["thresholds"] == json{{"analysis.eta_min", {{"from", 0.01}, {"to", 1.5}}}});
  CHECK(analyses[1]["emerged"] == json{{"from", true}, {"to", false}});
  CHECK_FALSE(analyses[1].contains("verdict"));  // still convolution
  CHECK(read_json(run + "/config.json")["analysis"]["eta_min"] == 1.5);
  CHECK(read_json(run + "/config.json")["analysis"]["tau_min"] == 0);
  CHECK_FALSE(read_json(run + "/config.json")["dataset"].contains("seed"));
}

TEST_CASE("the verdict line says what emerged means") {
  TemporaryFolder folder;
  const CommandResult result =
      run_ufl("train configs/section8/local.json --out " + (folder / "run") +
              kSmallRun.substr(0, kSmallRun.size() - 3));  // without -q
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  // Whatever this short run became, the line names the test and the threshold behind it.
  const std::size_t verdict = result.output.find("verdict: ");
  REQUIRE(verdict != std::string::npos);
  const std::string line =
      result.output.substr(verdict, result.output.find('\n', verdict) - verdict);
  CAPTURE(line);
  CHECK(line.find("claimed: convolution") != std::string::npos);
  CHECK((line.find("eta_min") != std::string::npos ||
         line.find("no operator's test passed") != std::string::npos ||
         line.find("beats the best fixed operator") != std::string::npos));
}

namespace {

// Every file under `folder` with its inode: a file replaced (written anew) gets another inode.
std::map<std::string, std::uintmax_t> inodes(const std::string& folder) {
  std::map<std::string, std::uintmax_t> found;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    struct stat status {};
    if (::stat(entry.path().c_str(), &status) == 0) found[entry.path().string()] = status.st_ino;
  }
  return found;
}

}  // namespace

TEST_CASE("analyze refuses a config.json edited after training, naming the keys; nothing changes") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  json config = read_json(run + "/config.json");
  config["dataset"]["noise"] = 0.1;
  std::ofstream(run + "/config.json") << config.dump(2) << "\n";
  const auto before = inodes(run);
  const std::string metrics = read_text(run + "/metrics.json");
  const CommandResult result = run_ufl("analyze " + run);
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
  CHECK(result.output.find(run + "/config.json was edited after the run was trained: "
                                 "dataset.noise (0.1 in config.json, 0.5 when it trained)") !=
        std::string::npos);
  CHECK(inodes(run) == before);
  CHECK(read_text(run + "/metrics.json") == metrics);
  // A threshold edited by hand is a change analyze makes, and records.
  config["dataset"]["noise"] = 0.5;
  config["analysis"]["eta_min"] = 0.5;
  std::ofstream(run + "/config.json") << config.dump(2) << "\n";
  const CommandResult threshold = run_ufl("analyze -q " + run);
  INFO(threshold.output);
  REQUIRE(threshold.exit_code == 0);
  const json analyses = read_json(run + "/manifest.json")["analyses"];
  REQUIRE(analyses.size() == 1);
  CHECK(analyses[0]["thresholds"] == json{{"analysis.eta_min", {{"from", 0.9}, {"to", 0.5}}}});
  CHECK(read_json(run + "/manifest.json")["config"]["analysis"]["eta_min"] == 0.5);
}

TEST_CASE("an analysis that fails halfway leaves every file of the run as it was") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  // The previous metrics cannot be kept (a file is where metrics_history/ must go): the analysis
  // fails after computing and writing its arrays.
  std::ofstream(run + "/metrics_history") << "in the way";
  const auto before = inodes(run);
  const CommandResult failed = run_ufl("analyze " + run + " --set analysis.eta_min=1.5");
  INFO(failed.output);
  CHECK(failed.exit_code != 0);
  CHECK(failed.output.rfind("ufl: error: ", 0) == 0);
  // Not one file replaced: before, the arrays and metrics.json were already rewritten.
  CHECK(inodes(run) == before);
  std::vector<fs::path> leftovers;
  for (const auto& entry : fs::directory_iterator(folder.path))
    if (entry.path().filename().string().rfind(".run.", 0) == 0) leftovers.push_back(entry.path());
  CHECK(leftovers.empty());
}

TEST_CASE("analyze on a run still training says who holds it, not that it is no run folder") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const std::string pid = train_until_first_checkpoint(
      folder.path, "configs/section8/local.json --out " + run +
                       " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set "
                       "dataset.test_size=64 --set train.steps=200000 --set "
                       "train.checkpoint_every=20 -q -j1");
  REQUIRE_FALSE(pid.empty());
  const CommandResult busy = run_ufl("analyze " + run);
  CHECK(busy.exit_code == 2);
  CHECK(busy.output.find("ufl: error: " + run + " is in use by process " + pid) == 0);
  CHECK(busy.output.find("not a run folder") == std::string::npos);
  // analyze has no --out to choose (once advised: "or choose another --out").
  CHECK(busy.output.find("--out") == std::string::npos);
  CHECK(std::count(busy.output.begin(), busy.output.end(), '\n') == 1);
  REQUIRE(run_command("kill -TERM " + pid).exit_code == 0);
  REQUIRE(wait_until_ended(pid));
  // A folder that is no run and has no lock is still "not a run folder".
  CHECK(run_ufl("analyze " + (folder / "nothing")).output.find("is not a run folder") !=
        std::string::npos);
}

TEST_CASE("analyze an interrupted run, then --resume: the analyses and metrics_history stay") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const std::string settings =
      " --set dataset.n=16 --set dataset.d=8 --set dataset.train_size=512 --set "
      "dataset.test_size=128 --set train.steps=4000 --set train.checkpoint_every=200 -q -j1";
  REQUIRE(interrupt_after_first_checkpoint(
      folder.path, "configs/section8/lowrank.json --out " + run + settings));
  INFO(read_text(folder / "log"));
  REQUIRE(read_json(run + "/manifest.json")["status"] == "interrupted");

  const CommandResult analyzed = run_ufl("analyze -q " + run);
  INFO(analyzed.output);
  REQUIRE(analyzed.exit_code == 0);
  REQUIRE(fs::exists(run + "/metrics_history/metrics-1.json"));
  const std::string kept = read_text(run + "/metrics_history/metrics-1.json");
  const json record = read_json(run + "/manifest.json")["analyses"];
  REQUIRE(record.size() == 1);

  const CommandResult resumed = run_ufl("train --resume " + run + " -q");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  const json manifest = read_json(run + "/manifest.json");
  CHECK(manifest["status"] == "complete");
  CHECK(manifest["analyses"] == record);
  CHECK(read_text(run + "/metrics_history/metrics-1.json") == kept);
}

TEST_CASE("a folder name that is not UTF-8 is refused up front: exit 2, nothing written") {
  TemporaryFolder folder;
  const std::string latin1 = folder / "r\xe9sultat";
  const CommandResult train =
      run_ufl("train configs/section8/local.json --out '" + latin1 + "'" + kSmallRun);
  CHECK(train.exit_code == 2);
  CHECK(train.output.find("is not valid UTF-8 text") != std::string::npos);
  CHECK(std::count(train.output.begin(), train.output.end(), '\n') == 1);
  CHECK(fs::is_empty(folder.path));
  // analyze of a run moved into such a folder: refused before it touches anything.
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  fs::rename(run, latin1);
  const auto before = inodes(latin1);
  const CommandResult analyze = run_ufl("analyze '" + latin1 + "' --set analysis.eta_min=1.5");
  CHECK(analyze.exit_code == 2);
  CHECK(analyze.output.find("is not valid UTF-8 text") != std::string::npos);
  CHECK(inodes(latin1) == before);
}
