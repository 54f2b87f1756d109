// `ufl train`, `ufl generate` and `ufl analyze` end to end, as a user runs them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "token_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

TEST_CASE("ufl train writes a complete run folder for every Section 8 config") {
  TemporaryFolder folder;
  for (const char* kind : {"local", "global", "periodic", "lowrank"}) {
    CAPTURE(kind);
    const std::string out = folder / kind;
    const std::string small =
        std::string(kind) == "periodic" ? kSmallRun + " --set dataset.freqs=[2,5]" : kSmallRun;
    const CommandResult result =
        run_ufl("train configs/section8/" + std::string(kind) + ".json --out " + out + small);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    for (const char* file :
         {"config.json", "U.npy", "Sigma.npy", "V.npy", "M.npy", "M_mean.npy", "params/A.npy",
          "params/B.npy", "params/s.npy", "params/g.npy", "params/W_v.npy", "loss.csv",
          "metrics.json", "manifest.json", "Omega.npy"})
      CHECK_MESSAGE(fs::exists(fs::path(out) / file), file);
    const auto metrics = nlohmann::json::parse(read_text(fs::path(out) / "metrics.json"));
    for (const char* key :
         {"test_mse", "optimal_mse", "fixed_mse", "eta", "eta_fix", "iota", "tau", "ell", "phi",
          "alpha", "effective_rank", "k99", "orth_rel", "gamma", "verdict", "emerged", "optimal"})
      CHECK_MESSAGE(metrics.contains(key), key);
    CHECK(metrics.contains("routing_accuracy") == (std::string(kind) == "global"));
    const auto manifest = nlohmann::json::parse(read_text(fs::path(out) / "manifest.json"));
    CHECK(manifest["seed"] == 1);
    CHECK(manifest["complete"] == true);
    // The resolved config has every default filled in and reproduces the run.
    const auto config = nlohmann::json::parse(read_text(fs::path(out) / "config.json"));
    CHECK(config["train"]["lr"] == 0.01);
    CHECK(config["dataset"]["n"] == 16);
  }
}

TEST_CASE("numpy.load reads every .npy of a run with the documented shapes") {
  TemporaryFolder folder;
  const std::string out = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + out + kSmallRun).exit_code == 0);
  const std::string script =
      "import numpy, glob, sys\n"
      "d = sys.argv[1]\n"
      "assert numpy.load(d + '/U.npy').shape == (8, 16, 16)\n"
      "assert numpy.load(d + '/M.npy').shape == (8, 16, 16)\n"
      "assert numpy.load(d + '/Sigma.npy').shape == (16,)\n"
      "assert numpy.load(d + '/M_mean.npy').shape == (16, 16)\n"
      "assert numpy.load(d + '/params/A.npy').shape == (4 + 16 + 1, 16)\n"
      "assert numpy.load(d + '/params/A.npy').dtype == numpy.float32\n"
      "assert (numpy.load(d + '/Sigma.npy') > 0).all()\n"
      "files = glob.glob(d + '/**/*.npy', recursive=True)\n"
      "assert len(files) > 15\n"
      "for f in files: assert numpy.isfinite(numpy.load(f)).all(), f\n"
      "print('numpy ok', len(files))\n";
  std::ofstream(folder / "check.py") << script;
  const CommandResult result = run_command("/usr/bin/python3 " + (folder / "check.py") + " " + out);
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK(result.output.find("numpy ok") != std::string::npos);
}

TEST_CASE("the same config and seed give bit-identical runs at 1 and 2 threads") {
  TemporaryFolder folder;
  REQUIRE(run_ufl("train configs/section8/global.json --out " + (folder / "one") + kSmallRun,
                  "OMP_NUM_THREADS=1")
              .exit_code == 0);
  REQUIRE(run_ufl("train configs/section8/global.json --out " + (folder / "two") + kSmallRun,
                  "OMP_NUM_THREADS=2")
              .exit_code == 0);
  for (const char* file : {"U.npy", "Sigma.npy", "V.npy", "M.npy", "M_mean.npy", "params/A.npy",
                           "loss.csv", "metrics.json"})
    CHECK_MESSAGE(read_text(folder / "one/" + file) == read_text(folder / "two/" + file), file);
}

TEST_CASE("--seed changes the run, and the saved config reproduces it") {
  TemporaryFolder folder;
  REQUIRE(
      run_ufl("train configs/section8/lowrank.json --seed 3 --out " + (folder / "a") + kSmallRun)
          .exit_code == 0);
  REQUIRE(
      run_ufl("train configs/section8/lowrank.json --seed 4 --out " + (folder / "b") + kSmallRun)
          .exit_code == 0);
  CHECK(read_text(folder / "a/U.npy") != read_text(folder / "b/U.npy"));
  REQUIRE(run_ufl("train " + (folder / "a/config.json") + " -q --out " + (folder / "again"))
              .exit_code == 0);
  for (const char* file : {"U.npy", "Sigma.npy", "V.npy", "metrics.json"})
    CHECK_MESSAGE(read_text(folder / "a/" + file) == read_text(folder / "again/" + file), file);
}

TEST_CASE("an existing run folder is kept unless --force") {
  TemporaryFolder folder;
  const std::string out = folder / "run";
  fs::create_directories(out);
  std::ofstream(out + "/keep.txt") << "precious";
  const CommandResult refused =
      run_ufl("train configs/section8/local.json --out " + out + kSmallRun);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("already exists") != std::string::npos);
  CHECK(read_text(out + "/keep.txt") == "precious");
  CHECK(run_ufl("train configs/section8/local.json --force --out " + out + kSmallRun).exit_code ==
        0);
  CHECK_FALSE(fs::exists(out + "/keep.txt"));
  CHECK(fs::exists(out + "/metrics.json"));
}

TEST_CASE("bad input gives one error line and exit code 2, and writes nothing") {
  TemporaryFolder folder;
  const std::string out = folder / "run";
  std::ofstream(folder / "typo.json") << R"({"dataset": {"kind": "local", "nosie": 0.5}})";
  for (const std::string& arguments :
       {"train " + (folder / "typo.json") + " --out " + out,
        "train configs/section8/local.json --set dataset.n=1 --out " + out,
        "train configs/section8/local.json --set train.lr=-1 --out " + out,
        "train configs/section8/local.json --set no.such=1 --out " + out,
        "train configs/section8/missing.json --out " + out, "train --out " + out,
        "train configs/section8/local.json --threads 0 --out " + out}) {
    CAPTURE(arguments);
    const CommandResult result = run_ufl(arguments);
    CHECK(result.exit_code == 2);
    CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
    CHECK(result.output.rfind("ufl: error: ", 0) == 0);
    CHECK_FALSE(fs::exists(out));
  }
  CHECK(run_ufl("train " + (folder / "typo.json")).output.find("did you mean 'dataset.noise'") !=
        std::string::npos);
}

TEST_CASE("ufl generate writes a dataset that train --data reproduces exactly") {
  TemporaryFolder folder;
  const std::string data = folder / "data";
  const CommandResult generated = run_ufl("generate configs/section8/global.json --out " + data +
                                          kSmallRun.substr(0, kSmallRun.find(" --set train")));
  INFO(generated.output);
  REQUIRE(generated.exit_code == 0);
  for (const char* file :
       {"train_inputs.npy", "train_targets.npy", "test_inputs.npy", "test_targets.npy",
        "train_partners.npy", "test_partners.npy", "dataset.json"})
    CHECK_MESSAGE(fs::exists(fs::path(data) / file), file);
  REQUIRE(run_ufl("train configs/section8/global.json --data " + data + " --out " +
                  (folder / "from_disk") + kSmallRun)
              .exit_code == 0);
  REQUIRE(run_ufl("train configs/section8/global.json --out " + (folder / "in_memory") + kSmallRun)
              .exit_code == 0);
  CHECK(read_text(folder / "from_disk/metrics.json") ==
        read_text(folder / "in_memory/metrics.json"));
  // A dataset generated with other parameters is refused.
  const CommandResult mismatch =
      run_ufl("train configs/section8/global.json --set dataset.noise=0.1 --data " + data +
              " --out " + (folder / "bad") + kSmallRun);
  CHECK(mismatch.exit_code == 2);
  CHECK(mismatch.output.find("dataset.noise") != std::string::npos);
}

TEST_CASE("ufl analyze recomputes a saved run's metrics, with new thresholds") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  const std::string original = read_text(run + "/metrics.json");
  REQUIRE(run_ufl("analyze -q " + run).exit_code == 0);
  CHECK(read_text(run + "/metrics.json") == original);
  REQUIRE(run_ufl("analyze -q " + run + " --set analysis.eta_min=1.5").exit_code == 0);
  const auto rescored = nlohmann::json::parse(read_text(run + "/metrics.json"));
  CHECK(rescored["emerged"] == false);
  CHECK(rescored["thresholds"]["eta_min"] == 1.5);
  CHECK(run_ufl("analyze " + (folder / "nothing")).exit_code == 2);
  CHECK(run_ufl("analyze " + run + " --set dataset.n=8").exit_code == 2);
}

TEST_CASE("--help explains every flag and --version names the build") {
  const CommandResult help = run_ufl("train --help");
  CHECK(help.exit_code == 0);
  for (const char* flag : {"--out", "--set", "--seed", "--threads", "--force", "--quiet", "--data"})
    CHECK_MESSAGE(help.output.find(flag) != std::string::npos, flag);
  CHECK(run_ufl("--version").output.rfind("ufl ", 0) == 0);
  CHECK(run_ufl("").exit_code == 2);
}

TEST_CASE(
    "global at n = 64 is analysed without crashing (Eigen 3.4.0 BDCSVD failed on its operators)") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl(
      "train configs/section8/global.json --set dataset.n=64 --set dataset.train_size=128 "
      "--set dataset.test_size=64 --set train.steps=3 -q --out " +
      (folder / "run"));
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK(fs::exists(folder / "run/metrics.json"));
}

TEST_CASE("every mixer trains; its run folder says which mixer it holds and writes what it has") {
  TemporaryFolder folder;
  const std::vector<std::pair<std::string, std::vector<std::string>>> mixers = {
      {"universal",
       {"params/A.npy", "params/B.npy", "params/s.npy", "params/g.npy", "U.npy", "Sigma.npy",
        "Omega.npy"}},
      {"attention", {"params/A.npy", "params/B.npy", "params/s.npy", "U.npy", "Sigma.npy"}},
      {"convolution", {"params/taps.npy"}},
      {"fourier", {"params/gains.npy"}},
      {"lowrank", {"params/P.npy", "params/s.npy", "params/Q.npy", "Sigma.npy", "U.npy"}},
      {"linear", {"params/M.npy"}}};
  for (const auto& [mixer, files] : mixers) {
    CAPTURE(mixer);
    const std::string out = folder / ("periodic-" + mixer);
    const std::string rank = mixer == "lowrank" ? " --set layer.rank=4" : "";
    // -q is dropped so the last lines (the explanation) are printed.
    const std::string small = kSmallRun.substr(0, kSmallRun.size() - 3);
    const CommandResult result = run_ufl(
        "train configs/section8/periodic.json --set dataset.freqs=[2,5] --set layer.mixer=" +
        mixer + rank + " --out " + out + small);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    for (const std::string& file : files) CHECK_MESSAGE(fs::exists(fs::path(out) / file), file);
    CHECK(fs::exists(fs::path(out) / "params/W_v.npy"));
    CHECK(fs::exists(fs::path(out) / "M_mean.npy"));
    CHECK(fs::exists(fs::path(out) / "U.npy") ==
          (mixer == "universal" || mixer == "attention" || mixer == "lowrank"));
    const auto config = nlohmann::json::parse(read_text(fs::path(out) / "config.json"));
    const auto manifest = nlohmann::json::parse(read_text(fs::path(out) / "manifest.json"));
    const auto metrics = nlohmann::json::parse(read_text(fs::path(out) / "metrics.json"));
    CHECK(config["layer"]["mixer"] == mixer);
    CHECK(manifest["mixer"] == mixer);
    CHECK(metrics["mixer"] == mixer);
    CHECK(metrics["closest_special_case"].contains("mixer"));
    CHECK(metrics["optimal"]["closest_special_case"]["mixer"] == "fourier");
    // One line says why: the mixer, its η and the optimum's closest special case.
    const std::string why = result.output.substr(result.output.find("why: "));
    CHECK(std::count(why.begin(), why.end(), '\n') == 2);  // "why" and then "wrote …"
    CHECK(why.find(mixer + " reached η") != std::string::npos);
    CHECK(why.find("closest special case is fourier") != std::string::npos);
  }
  // The CSV alone: standard output (the table for the reader goes to standard error).
  const CommandResult collected = run_command("(cd " UFL_SOURCE_DIR " && " UFL_BINARY " collect " +
                                              folder.path.string() + " 2>/dev/null)");
  REQUIRE(collected.exit_code == 0);
  const std::string header = collected.output.substr(0, collected.output.find('\n'));
  for (const char* column :
       {"mixer", "config.layer.mixer", "closest_special_case.mixer", "closest_special_case.eta",
        "closest_special_case.parameters", "mixer_parameters"})
    CHECK_MESSAGE(header.find(std::string(",") + column + ",") != std::string::npos, column);
}

TEST_CASE("a layer key the mixer does not read is bad input, named with its mixers") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --set layer.mixer=fourier "
      "--set layer.kernel_width=7 --out " +
      (folder / "run"));
  CHECK(result.exit_code == 2);
  CHECK(result.output ==
        "ufl: error: --set: layer.kernel_width belongs to mixer 'convolution', not 'fourier'; "
        "remove it\n");
  CHECK_FALSE(fs::exists(folder / "run"));
}

TEST_CASE("a width that cannot fit is refused before anything is allocated, naming model.width") {
  TemporaryFolder folder;
  // Once: the estimate ignored the width, and the run died "out of memory" after starting.
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --set model.width=100000 "
      "--out " +
      (folder / "run"));
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK(result.output.rfind("ufl: error: this run needs about ", 0) == 0);
  CHECK(result.output.find("model.width") != std::string::npos);
  CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
  CHECK(fs::is_empty(folder.path));
}

TEST_CASE("--out naming a regular file says it is not a folder, not to pass --force") {
  TemporaryFolder folder;
  std::ofstream(folder / "file") << "mine";
  for (const std::string force : {"", " --force"}) {
    const CommandResult result =
        run_ufl("train configs/section8/local.json --out " + (folder / "file") + kSmallRun + force);
    CHECK(result.exit_code == 2);
    CHECK(result.output == "ufl: error: " + (folder / "file") +
                               " exists and is not a folder; remove it or pass --out to choose "
                               "another folder\n");
  }
  // Without -q too: the error alone, not after the memory and time estimate.
  const CommandResult loud =
      run_ufl("train configs/section8/local.json --out " + (folder / "file"));
  CHECK(loud.exit_code == 2);
  CHECK(loud.output.rfind("ufl: error: ", 0) == 0);
  CHECK(std::count(loud.output.begin(), loud.output.end(), '\n') == 1);
  const CommandResult taken =
      run_ufl("train configs/section8/local.json --out " + folder.path.string());
  CHECK(taken.exit_code == 2);
  CHECK(taken.output.rfind("ufl: error: " + folder.path.string() + " already exists", 0) == 0);
  CHECK(std::count(taken.output.begin(), taken.output.end(), '\n') == 1);
  CHECK(read_text(folder / "file") == "mine");
}

TEST_CASE("ufl generate accepts --threads and -q as the other commands do; the data are the same") {
  TemporaryFolder folder;
  const std::string small =
      " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=64 --set "
      "dataset.test_size=16";
  REQUIRE(
      run_ufl("generate configs/section8/local.json --threads 1 --out " + (folder / "one") + small)
          .exit_code == 0);
  REQUIRE(run_ufl("generate configs/section8/local.json -j 2 --out " + (folder / "two") + small)
              .exit_code == 0);
  CHECK(read_text(folder / "one/train_inputs.npy") == read_text(folder / "two/train_inputs.npy"));
  CHECK(run_ufl("generate configs/section8/local.json --threads 0").exit_code == 2);
  // And -q, as train and analyze do (once "The following argument was not expected: -q").
  const CommandResult quiet =
      run_ufl("generate configs/section8/local.json -q --out " + (folder / "quiet") + small);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.output.empty());
  CHECK(fs::exists(folder / "quiet/train_inputs.npy"));
}

TEST_CASE("a stack whose loss is not finite before any update names the stack, not train.lr") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  // Five layers without the residual stream: NaN on the first batch at any learning rate.
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --set model.depth=5 "
      "--set train.lr=1e-12 --set train.lr_final=1e-13 --out " +
      run + kSmallRun);
  INFO(result.output);
  CHECK(result.exit_code == 3);
  CHECK(result.output.find("diverged at step 1") != std::string::npos);
  CHECK(result.output.find("before any update, so train.lr is not the cause") != std::string::npos);
  CHECK(result.output.find("model.depth = 5 layers without model.residual") != std::string::npos);
  CHECK(result.output.find("lower train.lr") == std::string::npos);
}

TEST_CASE("an OMP_NUM_THREADS that is not a count is warned about; threads follow the free cores") {
  TemporaryFolder folder;
  const std::string small = kSmallRun.substr(0, kSmallRun.size() - 3);  // without -q
  for (const std::string value : {"", "abc", "0", " "}) {
    CAPTURE(value);
    const std::string out = folder / ("run" + std::to_string(value.size()) + value);
    const CommandResult result =
        run_ufl("train configs/section8/local.json --out '" + out + "'" + small,
                kNoFigures + " OMP_NUM_THREADS='" + value + "'");
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK(result.output.find("OMP_NUM_THREADS=\"" + value +
                             "\" is not a number of threads (a positive integer), so it is "
                             "ignored") != std::string::npos);
    CHECK(result.output.find("(following the free cores; --threads fixes it)") !=
          std::string::npos);
  }
  // A count fixes the threads, as --threads does.
  const CommandResult fixed =
      run_ufl("train configs/section8/local.json --out " + (folder / "fixed") + small,
              kNoFigures + " OMP_NUM_THREADS=1");
  INFO(fixed.output);
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.output.find("is not a number of threads") == std::string::npos);
  CHECK(fixed.output.find("following the free cores") == std::string::npos);
}
