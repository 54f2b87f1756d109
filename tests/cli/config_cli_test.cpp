// ufl config: the resolved config and the estimate without training, the key reference, and the
// memory check ufl train makes before allocating anything.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

TEST_CASE("ufl config prints the resolved config (with --set) and the estimate, trains nothing") {
  TemporaryFolder folder;
  const CommandResult result =
      run_command("cd " + folder.path.string() +
                  " && (" UFL_BINARY " config " UFL_SOURCE_DIR
                  "/configs/section8/global.json --set dataset.n=64 --seed 7 2>" +
                  (folder / "stderr") + ")");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto config = nlohmann::json::parse(result.output);  // stdout is the JSON alone
  CHECK(config["dataset"]["n"] == 64);
  CHECK(config["seed"] == 7);
  CHECK(config["train"]["steps"] == 6000);  // defaults filled in
  CHECK(config["train"]["checkpoint_every"] == 0);
  const std::string estimate = read_text(folder / "stderr");
  CHECK(estimate.find("memory: about ") != std::string::npos);
  CHECK(estimate.find("training tape") != std::string::npos);
  CHECK(estimate.find("available: ") != std::string::npos);
  CHECK(estimate.find("time: about ") != std::string::npos);
  CHECK(estimate.find("for 6000 steps") != std::string::npos);
  // Nothing was written where it ran.
  CHECK(fs::directory_iterator(folder.path)->path().filename() == "stderr");
  CHECK(std::distance(fs::directory_iterator(folder.path), fs::directory_iterator()) == 1);
}

TEST_CASE("ufl config refuses what ufl train refuses, with the same one line") {
  const CommandResult result = run_ufl("config configs/section8/local.json --set dataset.noise=-1");
  CHECK(result.exit_code == 2);
  CHECK(result.output.rfind("ufl: error: ", 0) == 0);
  CHECK(result.output.find("dataset.noise") != std::string::npos);
  CHECK(run_ufl("config").exit_code == 2);
}

TEST_CASE("ufl config --describe lists every key with its default, rule and meaning") {
  const CommandResult result = run_ufl("config --describe");
  REQUIRE(result.exit_code == 0);
  for (const char* line :
       {"  dataset.n = 32\n", "  train.steps = 6000\n", "  train.checkpoint_every = 0\n",
        "must be an integer ≥ 0", "  analysis.iota_min = ", "Dataset kinds (dataset.kind):"})
    CHECK_MESSAGE(result.output.find(line) != std::string::npos, line);
}

TEST_CASE("docs/config.md is ufl config --describe --markdown (regenerate it when keys change)") {
  const CommandResult result = run_ufl("config --describe --markdown");
  REQUIRE(result.exit_code == 0);
  CHECK(result.output == read_text(UFL_SOURCE_DIR "/docs/config.md"));
}

TEST_CASE("a run too large for memory exits 2 before allocating, naming the keys") {
  TemporaryFolder folder;
  const std::string out = folder / "run";
  for (const std::string& sizes :
       {std::string("--set dataset.n=100000"), std::string("--set dataset.train_size=1000000000"),
        std::string("--set train.batch_size=100000000")}) {
    CAPTURE(sizes);
    const CommandResult result =
        run_ufl("train configs/section8/local.json " + sizes + " --out " + out);
    CHECK(result.exit_code == 2);
    CHECK(result.output.rfind("ufl: error: this run needs about ", 0) == 0);
    CHECK(result.output.find("available; lower ") != std::string::npos);
    CHECK(result.output.find("MemAvailable") != std::string::npos);
    CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
  }
  const CommandResult n_huge =
      run_ufl("train configs/section8/local.json --set dataset.n=100000 --out " + out);
  CHECK(n_huge.output.find("dataset.n") != std::string::npos);
  const CommandResult batch_huge =
      run_ufl("train configs/section8/local.json --set train.batch_size=100000000 --out " + out);
  CHECK(batch_huge.output.find("train.batch_size") != std::string::npos);
  const CommandResult data_huge =
      run_ufl("train configs/section8/local.json --set dataset.train_size=1000000000 --out " + out);
  CHECK(data_huge.output.find("dataset.train_size") != std::string::npos);
  // ufl generate checks the dataset it would hold the same way.
  const CommandResult generate = run_ufl(
      "generate configs/section8/local.json --set dataset.train_size=1000000000 --out " + out);
  CHECK(generate.exit_code == 2);
  CHECK(generate.output.find("dataset.train_size") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a transformer run too large for memory because of layer.rank names layer.rank") {
  TemporaryFolder folder;
  const std::string out = folder / "run";
  // 3·10⁶ columns per head: hundreds of GB of projections and parameters.
  const CommandResult refused =
      run_ufl("train configs/transformer/copy.json --set layer.rank=3000000 --out " + out);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("layer.rank = 3000000") != std::string::npos);
  CHECK(refused.output.find("available; lower ") != std::string::npos);
  CHECK(refused.output.substr(refused.output.find("available; lower ")).find("layer.rank") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out));
  const CommandResult config =
      run_ufl("config configs/transformer/copy.json --set layer.rank=3000000");
  CHECK(config.output.find("ufl train would refuse this run") != std::string::npos);
  CHECK(config.output.substr(config.output.find("would refuse")).find("layer.rank") !=
        std::string::npos);
}

TEST_CASE("layer.gate_init defaults to the setting each mixer's documented result needs") {
  auto gate = [](const std::string& arguments) {
    TemporaryFolder folder;
    // Standard output only: the resolved config (the estimate goes to standard error).
    const CommandResult result =
        run_command("cd " + source_dir() + " && (" + ufl_binary() + " config " + arguments + " 2>" +
                    (folder / "stderr") + ")");
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.output)["layer"]["gate_init"].get<double>();
  };
  // The universal layer: ½ in a mixer block (Section 8), 0.99 in transformer blocks (§10).
  CHECK(gate("configs/section8/global.json") == 0.5);
  CHECK(gate("configs/transformer/text.json") == 0.99);
  // The distance mixer: 0.99 in every block; at ½ it ends below the best fixed operator
  // (docs/universality.md, "The distance mixer").
  CHECK(gate("configs/section8/global.json --set layer.mixer=distance") == 0.99);
  CHECK(gate("configs/transformer/text.json --set layer.mixer=distance") == 0.99);
  // A gate the user sets is the user's.
  CHECK(gate("configs/section8/global.json --set layer.mixer=distance --set layer.gate_init=0.5") ==
        0.5);
  CHECK(run_ufl("config --describe").output.find("0.99 for the distance mixer") !=
        std::string::npos);
}
