// scripts/sweep.sh refuses a bad argument before it builds or queues anything: a missing value, a
// missing config, an empty list element, a value ufl would refuse (checked with `ufl config`).
#include <doctest/doctest.h>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

CommandResult sweep(const TemporaryFolder& folder, const std::string& arguments) {
  return run_command("cd " UFL_SOURCE_DIR " && UFL_BIN=" UFL_BINARY " bash scripts/sweep.sh " +
                     (folder / "out") + " " + arguments);
}

void check_refused(const TemporaryFolder& folder, const CommandResult& result,
                   const std::string& expected) {
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK(result.output.rfind("sweep.sh: ", 0) == 0);
  CHECK(result.output.find(expected) != std::string::npos);
  CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(folder / "out"));  // nothing queued, no folder made
}

}  // namespace

TEST_CASE("sweep.sh checks every argument before anything is queued") {
  TemporaryFolder folder;
  const std::string local = "configs/section8/local.json";
  // Once "$2: unbound variable".
  check_refused(folder, sweep(folder, local + " -- --seed"), "--seed needs a value");
  check_refused(folder, sweep(folder, local + " -- --set dataset.noise=0.1 --set"),
                "--set needs a value");
  // Once noticed only when the runs started.
  check_refused(folder, sweep(folder, local + " configs/section8/nothing.json -- --seed 1,2"),
                "no config file 'configs/section8/nothing.json'");
  check_refused(folder, sweep(folder, local + " -- --set dataset.noise=0.1,,0.2"),
                "--set dataset.noise=0.1,,0.2: an empty value in the list");
  check_refused(folder, sweep(folder, local + " -- --seed 1,2,"), "an empty value in the list");
  // A value ufl refuses is named with ufl's own words and the run it belongs to.
  check_refused(folder, sweep(folder, local + " -- --set dataset.noise=0.1,-5 --seed 1"),
                "local__noise=-5__seed=1: ufl: error: --set: dataset.noise must be a number ≥ 0");
}
