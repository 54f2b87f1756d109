// `ufl analyze` end to end: it scores a run on the data it was trained on (its recorded --data
// folder), refuses when that data is gone, keeps the previous metrics and records what changed,
// and touches no config key but the thresholds it was given.
#include <doctest/doctest.h>

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
