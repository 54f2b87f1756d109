// Stacks of layers and the induction dataset end to end (spec section7.md): what a deep run
// writes, that it resumes and is deterministic, and that bad sizes are refused.
#include <doctest/doctest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {
// A small residual stack of two layers on a stream twice as wide as the data (n = 16, d = 4).
const std::string kSmallStack = kSmallRun + " --set model.depth=2 --set model.width=8";
}  // namespace

TEST_CASE("a deep run names its files by layer and measures every layer") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const CommandResult result = run_ufl("train configs/section7/induction.json --out " + run +
                                       kSmallStack + " --set model.depth=3");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  for (const char* file :
       {"params/layer1/A.npy", "params/layer1/W_v.npy", "params/layer3/g.npy", "layer1/Sigma.npy",
        "layer3/Sigma.npy", "layer1/M.npy", "layer2/M_mean.npy",
        "layer2/M_mean_singular_values.npy", "layer3/Omega.npy", "layer3/U.npy",
        "layer1/diagonal_energy.npy", "M_optimal.npy", "partners.npy"})
    CHECK_MESSAGE(fs::exists(fs::path(run) / file), file);
  CHECK_FALSE(fs::exists(run + "/params/A.npy"));
  CHECK_FALSE(fs::exists(run + "/M_mean.npy"));  // a stack has no single M̄
  const auto config = nlohmann::json::parse(read_text(run + "/config.json"));
  // Mixer blocks: no transformer keys (model.norm, model.mlp_ratio, …) in the config.
  CHECK(config["model"] ==
        nlohmann::json({{"block", "mixer"}, {"depth", 3}, {"width", 8}, {"residual", true}}));
  const auto metrics = nlohmann::json::parse(read_text(run + "/metrics.json"));
  for (const char* key : {"test_mse", "optimal_mse", "fixed_mse", "eta", "eta_fix", "row_mse",
                          "optimal_row_mse", "fixed_row_mse", "blank_routing", "key_routing",
                          "routing_accuracy", "layers", "layer_verdicts"})
    CHECK_MESSAGE(metrics.contains(key), key);
  CHECK(metrics["depth"] == 3);
  CHECK(metrics["row_mse"].contains("blank"));
  REQUIRE(metrics["layers"].size() == 3);
  for (const auto& layer : metrics["layers"])
    for (const char* key : {"iota", "tau", "ell", "phi", "alpha", "effective_rank", "k99", "gamma",
                            "orth_rel", "bilinear", "diagonal_energy", "dominant_offset",
                            "band_width", "branch_gain", "blank_routing", "key_routing", "verdict"})
      CHECK_MESSAGE(layer.contains(key), key);
  CHECK(metrics["layers"][0]["diagonal_energy"].size() == 2 * 16 - 1);
  // The last layer's routing is the stack's.
  CHECK(metrics["blank_routing"] == metrics["layers"][2]["blank_routing"]);

  // ufl collect flattens the layers: layer1.verdict, layer2.row…
  // The CSV alone: standard output (the table for the reader goes to standard error).
  const CommandResult collected =
      run_command("(cd " UFL_SOURCE_DIR " && " UFL_BINARY " collect " + run + " 2>/dev/null)");
  REQUIRE(collected.exit_code == 0);
  const std::string header = collected.output.substr(0, collected.output.find('\n'));
  for (const char* column :
       {"layer1.verdict", "layer3.branch_gain", "layer2.bilinear.effective_rank", "row_mse.blank",
        "config.model.depth"})
    CHECK_MESSAGE(header.find(column) != std::string::npos, column);
  CHECK(header.find("layers") == std::string::npos);
}

TEST_CASE("a depth-1 run keeps its Section 8 files and metrics, and adds its layer's") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  CHECK(fs::exists(run + "/params/A.npy"));
  CHECK_FALSE(fs::exists(run + "/params/layer1"));
  CHECK_FALSE(fs::exists(run + "/layer1"));
  const auto metrics = nlohmann::json::parse(read_text(run + "/metrics.json"));
  CHECK(metrics.contains("verdict"));
  REQUIRE(metrics["layers"].size() == 1);
  CHECK(metrics["layers"][0]["tau"] == metrics["tau"]);
  CHECK(metrics["layers"][0]["orth_rel"] == metrics["orth_rel"]);
}

TEST_CASE("a deep run is bit-identical at 1 and 2 threads") {
  TemporaryFolder folder;
  for (const char* threads : {"1", "2"})
    REQUIRE(
        run_ufl("train configs/section7/induction.json --out " + (folder / threads) + kSmallStack,
                std::string("OMP_NUM_THREADS=") + threads)
            .exit_code == 0);
  for (const char* file : {"params/layer1/A.npy", "params/layer2/W_v.npy", "layer2/M.npy",
                           "layer1/M_mean.npy", "loss.csv", "metrics.json"})
    CHECK_MESSAGE(read_text(folder / "1/" + file) == read_text(folder / "2/" + file), file);
}

TEST_CASE("SIGINT and --resume on a deep run end bit-identical to an uninterrupted one") {
  TemporaryFolder folder;
  const std::string run = folder / "run", reference = folder / "reference";
  const std::string long_run =
      " --set dataset.n=16 --set dataset.d=8 --set dataset.train_size=512"
      " --set dataset.test_size=128 --set model.width=16 --set train.steps=2000"
      " --set train.checkpoint_every=100 -q -j1";
  const std::string start =
      "cd " UFL_SOURCE_DIR " && (" UFL_BINARY " train configs/section7/induction.json --out " +
      run + long_run + " > " + (folder / "log") + " 2>&1 & echo $! > " + (folder / "pid") + ")";
  REQUIRE(std::system(start.c_str()) == 0);
  REQUIRE(wait_for_first_checkpoint(folder.path));
  std::string pid = read_text(folder / "pid");
  pid.erase(pid.find_last_not_of(" \n") + 1);
  REQUIRE(run_command("kill -INT " + pid).exit_code == 0);
  REQUIRE(wait_until_ended(pid));  // then its run folder is written
  INFO(read_text(folder / "log"));
  REQUIRE(nlohmann::json::parse(read_text(run + "/manifest.json"))["status"] == "interrupted");
  CHECK(fs::exists(run + "/checkpoint.bin"));
  CHECK(fs::exists(run + "/params/layer2/A.npy"));

  REQUIRE(run_ufl("train --resume " + run + " -q").exit_code == 0);
  REQUIRE(
      run_ufl("train configs/section7/induction.json --out " + reference + long_run).exit_code ==
      0);
  for (const char* file :
       {"metrics.json", "loss.csv", "params/layer1/A.npy", "params/layer2/W_v.npy", "layer2/M.npy"})
    CHECK_MESSAGE(read_text(run + "/" + file) == read_text(reference + "/" + file), file);
}

TEST_CASE("induction: ufl generate writes the dataset with its partners; --data trains on it") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  const std::string sizes = kSmallRun.substr(0, kSmallRun.find(" --set train"));
  const CommandResult generated =
      run_ufl("generate configs/section7/induction.json --out " + data + sizes);
  INFO(generated.output);
  REQUIRE(generated.exit_code == 0);
  for (const char* file : {"train_inputs.npy", "test_targets.npy", "train_partners.npy",
                           "test_partners.npy", "fixed_operator.npy", "dataset.json"})
    CHECK_MESSAGE(fs::exists(fs::path(data) / file), file);
  REQUIRE(run_ufl("train configs/section7/induction.json --data " + data + " --out " +
                  (folder / "from_disk") + kSmallStack)
              .exit_code == 0);
  REQUIRE(
      run_ufl("train configs/section7/induction.json --out " + (folder / "in_memory") + kSmallStack)
          .exit_code == 0);
  CHECK(read_text(folder / "from_disk/metrics.json") ==
        read_text(folder / "in_memory/metrics.json"));
}

TEST_CASE("bad stack and induction sizes: one error line, exit code 2, nothing written") {
  TemporaryFolder folder;
  const std::string out = folder / "bad";
  for (const std::string& bad :
       {std::string(" --set dataset.n=30"), std::string(" --set model.width=2"),
        std::string(" --set model.depth=0"), std::string(" --set model.residual=maybe")}) {
    CAPTURE(bad);
    const CommandResult result =
        run_ufl("train configs/section7/induction.json --out " + out + kSmallStack + bad);
    CHECK(result.exit_code == 2);
    CHECK(result.output.rfind("ufl: error: ", 0) == 0);
    CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
  }
  const CommandResult generate =
      run_ufl("generate configs/section7/induction.json --out " + out + " --set dataset.n=18");
  CHECK(generate.exit_code == 2);
  CHECK(generate.output.find("dataset.n must be divisible by 4") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
