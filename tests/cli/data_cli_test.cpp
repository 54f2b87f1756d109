// `ufl train --data` on damaged dataset folders: every bad value is one exit-2 line naming the
// file and where, before any training; the run folder's own arrays have the documented dtypes;
// token data, which no dataset folder holds, refuse --data.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/npy.hpp"
#include "token_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

const std::string kSmallData =
    " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set dataset.test_size=64";

// A global dataset (it has partners) written by `ufl generate` into `folder`.
void generate_global(const std::string& folder) {
  const CommandResult generated =
      run_ufl("generate configs/section8/global.json --out " + folder + kSmallData);
  INFO(generated.output);
  REQUIRE(generated.exit_code == 0);
}

// Rewrites one .npy of the folder after changing element `index` (C order) to `value`, keeping
// its dtype.
void set_element(const fs::path& file, std::size_t index, double value) {
  ufl::io::NpyArray array = ufl::io::read_npy(file);
  REQUIRE(index < array.values.size());
  array.values[index] = value;
  if (array.descr == "<f4") {
    const std::vector<float> values(array.values.begin(), array.values.end());
    ufl::io::write_npy(file, values.data(), array.shape);
  } else if (array.descr == "<i4") {
    const std::vector<std::int32_t> values(array.values.begin(), array.values.end());
    ufl::io::write_npy(file, values.data(), array.shape);
  } else {
    ufl::io::write_npy(file, array.values.data(), array.shape);
  }
}

// `ufl train` on the folder: exit 2, one line, the expected text, no run folder.
void check_refused(const std::string& data, const std::string& expected) {
  TemporaryFolder out;
  const CommandResult result = run_ufl("train configs/section8/global.json --data " + data +
                                       " --out " + (out / "run") + kSmallRun);
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK(result.output.rfind("ufl: error: ", 0) == 0);
  CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
  CHECK(result.output.find(expected) != std::string::npos);
  CHECK_FALSE(fs::exists(out / "run"));
}

}  // namespace

TEST_CASE("a NaN or Inf in --data train arrays is refused before training, with its position") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  // Sample 3, row 5, channel 2 of n = 16, d = 4.
  const std::size_t element = 3 * 16 * 4 + 5 * 4 + 2;
  set_element(fs::path(data) / "train_inputs.npy", element,
              std::numeric_limits<double>::quiet_NaN());
  set_element(fs::path(data) / "train_inputs.npy", element + 7,
              std::numeric_limits<double>::infinity());  // a later one is not the first
  check_refused(data, data + "/train_inputs.npy: sample 3, row 5, channel 2 is NaN");
}

TEST_CASE("a NaN or Inf in --data test arrays is refused too (it used to give η null, exit 0)") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  set_element(fs::path(data) / "test_targets.npy", 63 * 16 * 4 + 15 * 4 + 3,
              -std::numeric_limits<double>::infinity());
  check_refused(data, data + "/test_targets.npy: sample 63, row 15, channel 3 is -inf");
}

TEST_CASE("partners that are not a pairing of the sample's positions are refused") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  const fs::path partners = fs::path(data) / "test_partners.npy";
  const std::string original = read_text(partners.string());
  set_element(partners, 2 * 16 + 7, 99);  // sample 2, position 7
  check_refused(data,
                "test_partners.npy: sample 2, position 7 has partner 99, not a position 0..15");
  set_element(partners, 2 * 16 + 7, -1);
  check_refused(data, "sample 2, position 7 has partner -1, not a position 0..15");
  set_element(partners, 2 * 16 + 7, 7);
  check_refused(data, "sample 2, position 7 is its own partner");
  // Position 7 points at a position whose partner is another one.
  std::ofstream(partners, std::ios::binary) << original;
  const int own = int(ufl::io::read_npy(partners).values[2 * 16 + 7]);
  set_element(partners, 2 * 16 + 7, own == 0 ? 1 : 0);
  check_refused(data, "partners must come in pairs");
}

TEST_CASE("other damage to a --data folder is exit 2 naming the file, not a crash or exit 1") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  // A truncated array.
  const std::string inputs = read_text(data + "/train_inputs.npy");
  std::ofstream(data + "/train_inputs.npy", std::ios::binary) << inputs.substr(0, 200);
  check_refused(data, "train_inputs.npy is truncated");
  std::ofstream(data + "/train_inputs.npy", std::ios::binary) << inputs;
  // An array of another shape.
  const std::vector<float> small(8 * 16 * 4, 0.0f);
  ufl::io::write_npy(fs::path(data) / "test_inputs.npy", small.data(), {8, 16, 4});
  check_refused(data, "test_inputs.npy has shape (8, 16, 4), expected (64, 16, 4)");
  // A missing array, a broken sidecar, a missing folder.
  fs::remove(fs::path(data) / "test_inputs.npy");
  check_refused(data, "test_inputs.npy");
  std::ofstream(data + "/dataset.json") << R"({"dataset": 5, "seed": 1})";
  check_refused(data, "is not a dataset sidecar written by 'ufl generate'");
  fs::remove(fs::path(data) / "dataset.json");
  check_refused(data, "has no dataset.json");
  check_refused(folder / "nowhere", "nowhere is not a folder");
}

TEST_CASE("a run saves partners.npy as integers and the analysis arrays as float64") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/global.json --out " + run + kSmallRun).exit_code == 0);
  const ufl::io::NpyArray partners = ufl::io::read_npy(fs::path(run) / "partners.npy");
  CHECK(partners.descr == "<i4");
  CHECK(partners.shape == std::vector<std::size_t>{8, 16});
  for (double partner : partners.values) CHECK((partner >= 0 && partner < 16));
  CHECK(ufl::io::read_npy(fs::path(run) / "M_mean.npy").descr == "<f8");
}

TEST_CASE("the dtype rule of a --data folder: values float32 or float64, partners whole numbers") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  const fs::path inputs = fs::path(data) / "train_inputs.npy";
  const fs::path partners = fs::path(data) / "train_partners.npy";
  const ufl::io::NpyArray original_inputs = ufl::io::read_npy(inputs);
  const ufl::io::NpyArray original_partners = ufl::io::read_npy(partners);
  const std::string float32_inputs = read_text(inputs.string());
  auto train = [&](const std::string& out) {
    return run_ufl("train configs/section8/global.json --data " + data + " --out " + out +
                   kSmallRun);
  };
  REQUIRE(train(folder / "float32").exit_code == 0);

  // float64 values (NumPy's default) and int64 partners are read, and train the same run: the
  // values are float32 numbers, so rounding them to float32 changes nothing.
  ufl::io::write_npy(inputs, original_inputs.values.data(), original_inputs.shape);
  const std::vector<std::int64_t> wide(original_partners.values.begin(),
                                       original_partners.values.end());
  ufl::io::write_npy(partners, wide.data(), original_partners.shape);
  REQUIRE(ufl::io::read_npy(inputs).descr == "<f8");
  const CommandResult float64 = train(folder / "float64");
  INFO(float64.output);
  REQUIRE(float64.exit_code == 0);
  for (const char* file : {"loss.csv", "params/A.npy", "metrics.json"})
    CHECK_MESSAGE(read_text(folder / ("float32/" + std::string(file))) ==
                      read_text(folder / ("float64/" + std::string(file))),
                  file);

  // Integers as values: refused, naming the dtype (once silently accepted).
  const std::vector<std::int32_t> integers(original_inputs.values.size(), 1);
  ufl::io::write_npy(inputs, integers.data(), original_inputs.shape);
  check_refused(data, "train_inputs.npy has dtype '<i4' (int32); expected float32 or float64");
  std::ofstream(inputs, std::ios::binary) << float32_inputs;
}

TEST_CASE("a FIFO for an array and a --data symlink loop are refused at once, exit 2") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  generate_global(data);
  // A FIFO nobody writes to: reading it used to hang.
  fs::remove(fs::path(data) / "test_targets.npy");
  REQUIRE(run_command("mkfifo " + data + "/test_targets.npy").exit_code == 0);
  check_refused(data, "test_targets.npy: not a regular file (a FIFO)");
  // A folder that is a symlink to itself.
  fs::create_symlink(folder / "loop", folder / "loop");
  check_refused(folder / "loop", "loop: Too many levels of symbolic links");
  TemporaryFolder out;
  const CommandResult analyze = run_ufl("analyze " + (folder / "loop"));
  CHECK(analyze.exit_code == 2);
}

TEST_CASE("--data is refused for token data, which reads no dataset folder; analyze ignores one") {
  TemporaryFolder folder;
  const std::string data = folder / "data", run = folder / "copy";
  generate_global(data);
  const std::string expected = "ufl: error: --data " + data +
                               ": dataset.kind \"copy\" is token data, read or drawn when the run "
                               "starts (ufl generate refuses it too), so it reads no dataset "
                               "folder; remove --data\n";
  // train and config refuse it before anything is written (train once trained on its own data,
  // recorded the folder, and a later analyze looked for it).
  for (const std::string command : {"train", "config"}) {
    CAPTURE(command);
    const CommandResult refused =
        run_ufl(command + " configs/transformer/copy.json --data " + data +
                (command == "train" ? " --out " + run : std::string()));
    CHECK(refused.exit_code == 2);
    CHECK(refused.output == expected);
    CHECK_FALSE(fs::exists(run));
  }
  const std::string small_copy =
      " --set dataset.train_size=64 --set dataset.test_size=16 --set model.width=16"
      " --set layer.heads=2 --set train.steps=4 --set train.batch_size=4 --set train.eval_every=2"
      " --set train.warmup_steps=1 -q";
  const CommandResult trained =
      run_ufl("train configs/transformer/copy.json --out " + run + small_copy, kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  const CommandResult analyzed = run_ufl("analyze " + run + " --data " + data);
  CHECK(analyzed.exit_code == 2);
  CHECK(analyzed.output == expected);
  // A token run's manifest that names a data folder (an older ufl recorded the --data it
  // ignored): the analysis does not look for it.
  nlohmann::json manifest = nlohmann::json::parse(read_text(run + "/manifest.json"));
  manifest["data_dir"] = folder / "gone";
  std::ofstream(run + "/manifest.json") << manifest.dump(2) << "\n";
  const CommandResult old_record = run_ufl("analyze -q " + run);
  INFO(old_record.output);
  CHECK(old_record.exit_code == 0);
  CHECK(nlohmann::json::parse(read_text(run + "/manifest.json"))["analyses"][0]["data_dir"] == "");
}
