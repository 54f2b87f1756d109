// --seed, seed, dataset.seed and --data (docs/seeds.md): --seed checked by the key table, the
// data's seed apart from the initialisation's, and both recorded so config.json reproduces a run.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSmallData =
    " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set dataset.test_size=64";

json read_json(const std::string& path) { return json::parse(read_text(path)); }

}  // namespace

TEST_CASE("--seed out of range is one line with the valid range, for train and generate") {
  TemporaryFolder folder;
  const std::string range = "must be an integer from 0 to 18446744073709551615";
  for (const std::string command : {"train", "generate"}) {
    for (const auto& [seed, shown] : std::vector<std::pair<std::string, std::string>>{
             {"-1", "-1"},
             {"18446744073709551616", "18446744073709551616"},  // as given, not 1.84…e+19
             {"99999999999999999999", "99999999999999999999"},
             {"1e30", "1e30"}}) {
      CAPTURE(command);
      CAPTURE(seed);
      const CommandResult result = run_ufl(command + " configs/section8/local.json --seed " + seed +
                                           " --out " + (folder / "out"));
      CHECK(result.exit_code == 2);
      CHECK(result.output.rfind("ufl: error: --seed: " + range + ", got " + shown + " (see", 0) ==
            0);
      CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
      CHECK_FALSE(fs::exists(folder / "out"));
    }
    const CommandResult text = run_ufl(command + " configs/section8/local.json --seed abc");
    CHECK(text.exit_code == 2);
    CHECK(text.output.find("--seed: must be an integer, got \"abc\"") != std::string::npos);
  }
}

TEST_CASE("--seed takes any 64-bit seed, such as 9999999999 (once refused by a 32-bit int)") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --seed 9999999999 --out " + (folder / "run") + kSmallRun);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const json config = read_json(folder / "run/config.json");
  CHECK(config["seed"] == 9999999999ULL);
  CHECK(config["dataset"]["seed"] == 9999999999ULL);
  CHECK(read_json(folder / "run/manifest.json")["seed"] == 9999999999ULL);
}

TEST_CASE("--seed moves data, initialisation and minibatches together unless dataset.seed is set") {
  TemporaryFolder folder;
  auto train = [&](const std::string& name, const std::string& flags) {
    const CommandResult result =
        run_ufl("train configs/section8/lowrank.json --out " + (folder / name) + flags + kSmallRun);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
  };
  train("s3", " --seed 3");
  train("s3_d3", " --seed 3 --set dataset.seed=3");
  train("s3_d1", " --seed 3 --set dataset.seed=1");
  train("s1", " --seed 1");
  // dataset.seed follows seed: writing it out changes nothing.
  CHECK(read_text(folder / "s3/metrics.json") == read_text(folder / "s3_d3/metrics.json"));
  CHECK(read_json(folder / "s3/config.json")["dataset"]["seed"] == 3);
  // dataset.seed = 1 keeps seed 1's data (the same optimal and fixed MSEs on the same test set)
  // under seed 3's initialisation.
  const json s1 = read_json(folder / "s1/metrics.json"), s3 = read_json(folder / "s3/metrics.json"),
             mixed = read_json(folder / "s3_d1/metrics.json");
  CHECK(mixed["optimal_mse"] == s1["optimal_mse"]);
  CHECK(mixed["fixed_mse"] == s1["fixed_mse"]);
  CHECK(mixed["optimal_mse"] != s3["optimal_mse"]);
  CHECK(read_text(folder / "s3_d1/params/A.npy") != read_text(folder / "s1/params/A.npy"));
}

TEST_CASE("--data with another seed for initialisation: the data's seed is the folder's") {
  TemporaryFolder folder;
  const std::string data = folder / "local-seed1";
  REQUIRE(run_ufl("generate configs/section8/local.json --seed 1 --out " + data + kSmallData)
              .exit_code == 0);
  const CommandResult trained = run_ufl("train configs/section8/local.json --data " + data +
                                        " --seed 2 --out " + (folder / "run") + kSmallRun);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const json config = read_json(folder / "run/config.json");
  CHECK(config["seed"] == 2);
  CHECK(config["dataset"]["seed"] == 1);
  // The same run from memory, and from its own config.json: bit for bit.
  REQUIRE(run_ufl("train configs/section8/local.json --seed 2 --set dataset.seed=1 --out " +
                  (folder / "memory") + kSmallRun)
              .exit_code == 0);
  REQUIRE(run_ufl("train " + (folder / "run/config.json") + " -q --out " + (folder / "again"))
              .exit_code == 0);
  for (const char* file : {"metrics.json", "params/A.npy", "loss.csv"}) {
    CAPTURE(file);
    CHECK(read_text(folder / "run/" + file) == read_text(folder / "memory/" + file));
    CHECK(read_text(folder / "run/" + file) == read_text(folder / "again/" + file));
  }
  // --continue recognises the run made with --data.
  const CommandResult again = run_ufl("train configs/section8/local.json --data " + data +
                                      " --seed 2 --continue --out " + (folder / "run") + kSmallRun);
  CHECK(again.exit_code == 0);
  // An explicit dataset.seed that the folder does not have is refused.
  const CommandResult mismatch =
      run_ufl("train configs/section8/local.json --data " + data + " --set dataset.seed=5 --out " +
              (folder / "bad") + kSmallRun);
  CHECK(mismatch.exit_code == 2);
  CHECK(mismatch.output.find("generated with seed 1 but the run's dataset.seed is 5") !=
        std::string::npos);
}

TEST_CASE("--continue recognises a run whose config.json predates dataset.seed") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(
      run_ufl("train configs/section8/local.json --seed 4 --out " + run + kSmallRun).exit_code ==
      0);
  json config = read_json(run + "/config.json");
  config["dataset"].erase("seed");  // as written before dataset.seed existed
  std::ofstream(run + "/config.json") << config.dump(2) << "\n";
  const CommandResult result =
      run_ufl("train configs/section8/local.json --seed 4 --continue --out " + run + kSmallRun);
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_FALSE(read_json(run + "/config.json")["dataset"].contains("seed"));  // left as it was
  // A different seed is a different run.
  CHECK(run_ufl("train configs/section8/local.json --seed 5 --continue --out " + run + kSmallRun)
            .exit_code == 2);
}

TEST_CASE("ufl generate names and records the data's seed") {
  TemporaryFolder folder;
  REQUIRE(run_ufl("generate configs/section8/local.json --seed 3 --set dataset.seed=7 --out " +
                  (folder / "data") + kSmallData)
              .exit_code == 0);
  const json sidecar = read_json(folder / "data/dataset.json");
  CHECK(sidecar["seed"] == 7);
  CHECK_FALSE(sidecar["dataset"].contains("seed"));
}
