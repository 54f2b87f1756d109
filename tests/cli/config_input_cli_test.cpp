// Config input a user gets wrong, end to end: the error blames where the value came from, and a
// key given twice is refused rather than silently taking the last value.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <tuple>
#include <vector>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

TEST_CASE("--set dataset.noise=-1 blames --set, not the config file") {
  TemporaryFolder folder;
  const CommandResult result = run_ufl(
      "train configs/section8/local.json --set dataset.noise=-1 "
      "--out " +
      (folder / "run"));
  CHECK(result.exit_code == 2);
  CHECK(result.output == "ufl: error: --set: dataset.noise must be a number ≥ 0, got -1.0\n");
  CHECK_FALSE(fs::exists(folder / "run"));
  // The same value from the file blames the file.
  std::ofstream(folder / "noisy.json") << R"({"dataset": {"noise": -1}})";
  CHECK(run_ufl("train " + (folder / "noisy.json")).output ==
        "ufl: error: " + (folder / "noisy.json") +
            ": dataset.noise must be a number ≥ 0, got -1.0\n");
}

TEST_CASE("a key given twice in a config file is refused, naming the key and where") {
  TemporaryFolder folder;
  std::ofstream(folder / "twice.json")
      << "{\n  \"dataset\": {\"n\": 8,\n              \"n\": 16}\n}\n";
  const CommandResult result =
      run_ufl("train " + (folder / "twice.json") + " --out " + (folder / "run"));
  CHECK(result.exit_code == 2);
  CHECK(result.output == "ufl: error: " + (folder / "twice.json") +
                             ": key \"dataset.n\" is given twice (again at line 3, column 15); "
                             "keep one\n");
  CHECK_FALSE(fs::exists(folder / "run"));
  // At the top level, and for generate too.
  std::ofstream(folder / "seeds.json") << R"({"seed": 1, "dataset": {}, "seed": 2})";
  const CommandResult generate =
      run_ufl("generate " + (folder / "seeds.json") + " --out " + (folder / "data"));
  CHECK(generate.exit_code == 2);
  CHECK(generate.output.find("key \"seed\" is given twice (again at line 1, column 28)") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(folder / "data"));
}

namespace {

// `{"dataset": OPEN…CLOSE}` with `levels` brackets, or a deeply nested object.
std::string nested(int levels, const std::string& open, const std::string& close) {
  std::string text;
  text.reserve(levels * (open.size() + close.size()) + 16);
  text += "{\"dataset\": ";
  for (int level = 0; level < levels; ++level) text += open;
  for (int level = 0; level < levels; ++level) text += close;
  return text + "}";
}

// One line, exit 2, nothing written: how every refused config must end.
void check_refused(const CommandResult& result, const std::string& expected_start,
                   const TemporaryFolder& folder) {
  INFO(result.output.substr(0, 400));
  CHECK(result.exit_code == 2);
  CHECK(result.output.rfind("ufl: error: " + expected_start, 0) == 0);
  CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
  CHECK(result.output.size() < 400);
  CHECK_FALSE(fs::exists(folder / "run"));
}

}  // namespace

TEST_CASE("a config nested 10⁵ levels deep is refused at once, naming the depth limit") {
  TemporaryFolder folder;
  // Objects (once 1 min 54 s and 9.8 GB) and arrays (once a segfault).
  std::ofstream(folder / "objects.json") << nested(100000, "{\"a\": ", "}");
  std::ofstream(folder / "arrays.json") << nested(100000, "[", "]");
  for (const char* name : {"objects.json", "arrays.json"}) {
    CAPTURE(name);
    const CommandResult result = run_ufl("train " + (folder / name) + " --out " + (folder / "run"));
    check_refused(result, folder / name + ": nested deeper than 32 levels (at line 1, column ",
                  folder);
    CHECK(result.output.find("a config is at most 32 levels deep") != std::string::npos);
  }
  // The same through --set and --seed (a command line holds up to 128 kB).
  std::string deep(60000, '[');
  check_refused(run_ufl("train configs/section8/local.json --out " + (folder / "run") +
                        " --set 'dataset.freqs=" + deep + "'"),
                "--set dataset.freqs: nested deeper than 32 levels", folder);
  const CommandResult seed =
      run_ufl("train configs/section8/local.json --out " + (folder / "run") + " --seed " + deep);
  CHECK(seed.exit_code == 2);
  CHECK(seed.output.find("nested deeper than 32 levels") != std::string::npos);
  // A config at the limit's edge is still read (and refused for what it says, not its depth).
  std::ofstream(folder / "fine.json") << nested(20, "[", "]");
  const CommandResult fine =
      run_ufl("train " + (folder / "fine.json") + " --out " + (folder / "run"));
  CHECK(fine.exit_code == 2);
  CHECK(fine.output.find("nested deeper") == std::string::npos);
}

TEST_CASE("a 3 MB list or a 50 MB string in a config is refused by the size limit in one line") {
  TemporaryFolder folder;
  {
    std::ofstream list(folder / "list.json");
    list << "{\"dataset\": {\"freqs\": [1";
    for (int k = 0; k < 1'500'000; ++k) list << ",1";
    list << "]}}";
    std::ofstream(folder / "string.json") << "{\"name\": \"" + std::string(50'000'000, 'x') + "\"}";
  }
  for (const char* name : {"list.json", "string.json"}) {
    CAPTURE(name);
    check_refused(run_ufl("train " + (folder / name) + " --out " + (folder / "run")),
                  folder / name + ": larger than 1 MiB, the most a config may be", folder);
  }
  // A long value under the limit is named, not echoed whole; so is a long broken token.
  std::ofstream(folder / "long.json")
      << "{\"dataset\": {\"n\": \"" + std::string(500000, 'x') + "\"}}";
  const CommandResult long_value =
      run_ufl("train " + (folder / "long.json") + " --out " + (folder / "run"));
  check_refused(long_value, folder / "long.json: dataset.n must be an integer, got \"xxx", folder);
  std::ofstream(folder / "broken.json") << "{\"name\": " + std::string(500000, 'x') + "}";
  check_refused(run_ufl("train " + (folder / "broken.json") + " --out " + (folder / "run")),
                folder / "broken.json: invalid JSON at line 1, column ", folder);
  CHECK(long_value.output.find(" characters)") != std::string::npos);
}

TEST_CASE("a number out of its field's range is shown as given, with the key's own rule") {
  TemporaryFolder folder;
  const CommandResult seed = run_ufl("train configs/section8/local.json --out " + (folder / "run") +
                                     " --seed 18446744073709551616");
  check_refused(seed,
                "--seed: must be an integer from 0 to 18446744073709551615, got "
                "18446744073709551616 (see",
                folder);
  const CommandResult width = run_ufl("train configs/section8/local.json --out " +
                                      (folder / "run") + " --set model.width=99999999999999");
  check_refused(width,
                "--set: model.width must be an integer, D ≥ dataset.d (D ≥ 1 for next_token), "
                "at most 2147483647, got 99999999999999",
                folder);
  // From a file, a whole number beyond 2^53 is shown as the integer it is.
  std::ofstream(folder / "seed.json") << R"({"seed": 18446744073709551616})";
  check_refused(run_ufl("train " + (folder / "seed.json") + " --out " + (folder / "run")),
                folder /
                    "seed.json: seed must be an integer from 0 to 18446744073709551615, got "
                    "18446744073709551616",
                folder);
}

TEST_CASE("a config that is a FIFO is refused at once; a pipe with a writer is read") {
  TemporaryFolder folder;
  REQUIRE(run_command("mkfifo " + (folder / "config.json")).exit_code == 0);
  // Once: waited for a writer that never came. `timeout` turns a hang into a failure here.
  const CommandResult fifo =
      run_ufl("train " + (folder / "config.json") + " --out " + (folder / "run"), "timeout 60");
  check_refused(fifo, folder / "config.json: not a regular file (a FIFO)", folder);
  // `ufl config <(…)`: bash hands ufl /dev/fd/N, a link to a pipe whose writer is running.
  const CommandResult piped =
      run_command("cd " UFL_SOURCE_DIR " && bash -c '" UFL_BINARY
                  " config <(cat configs/section8/local.json) 2>/dev/null'");
  CHECK(piped.exit_code == 0);
  CHECK(piped.output.find("\"kind\": \"local\"") != std::string::npos);
}

TEST_CASE("a dataset key the kind does not read is refused: the float samples' keys on tokens") {
  // text reads none of dataset.d, noise, train_size, test_size (its size is its text's); mqar and
  // copy draw train_size and test_size sequences but have no channels and no noise.
  TemporaryFolder folder;
  const std::string text = "dataset kinds 'local', 'global', 'periodic', 'lowrank', 'induction'";
  for (const auto& [config, key, value] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"text", "dataset.train_size", "5"},
           {"text", "dataset.test_size", "5"},
           {"text", "dataset.noise", "7"},
           {"text", "dataset.d", "3"},
           {"mqar", "dataset.d", "3"},
           {"copy", "dataset.noise", "0.1"}}) {
    CAPTURE(config + " " + key);
    for (const std::string command : {"config", "train"}) {
      const CommandResult refused =
          run_ufl(command + " configs/transformer/" + config + ".json --set " + key + "=" + value +
                  (command == "train" ? " --out " + (folder / "run") : std::string()));
      CHECK(refused.exit_code == 2);
      CHECK(refused.output.rfind("ufl: error: --set: " + key + " belongs to " + text, 0) == 0);
      CHECK(refused.output.find(", not '" + config + "'; remove it\n") != std::string::npos);
      CHECK_FALSE(fs::exists(folder / "run"));
    }
  }
  // What they read, and a key's own default (every run's config.json holds it, as it always has),
  // are accepted.
  CHECK(run_ufl("config configs/transformer/mqar.json --set dataset.train_size=64").exit_code == 0);
  CHECK(run_ufl("config configs/transformer/text.json --set dataset.d=16").exit_code == 0);
}
