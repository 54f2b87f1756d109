// `ufl collect` end to end: one row per complete run however often it is reached, and a message
// that counts the runs it left out (interrupted, diverged) by kind.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Turns a copy of a complete run into one with another status, as `ufl train` leaves it.
void copy_with_status(const fs::path& complete, const fs::path& copy, const std::string& status) {
  fs::create_directories(copy.parent_path());
  fs::copy(complete, copy, fs::copy_options::recursive);
  json manifest = json::parse(read_text(copy / "manifest.json"));
  manifest["status"] = status;
  manifest["complete"] = false;
  std::ofstream(copy / "manifest.json") << manifest.dump(2);
  if (status == "diverged") fs::remove(copy / "metrics.json");  // diverged runs have none
}

std::size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

}  // namespace

TEST_CASE("ufl collect counts skipped runs by kind and lists a run reached twice once") {
  TemporaryFolder folder;
  const fs::path results = folder.path / "results";
  REQUIRE(
      run_ufl("train configs/section8/local.json --out " + (results / "local").string() + kSmallRun)
          .exit_code == 0);
  copy_with_status(results / "local", results / "sweep/cut", "interrupted");
  copy_with_status(results / "local", results / "sweep/blown", "diverged");

  const std::string csv = folder / "runs.csv";
  const CommandResult result =
      run_ufl("collect " + results.string() + " " + (results / "local").string() + " " +
              results.string() + "/ --out " + csv);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(lines(read_text(csv)) == 2);  // the header and one run
  CHECK(result.output.find("wrote 1 complete run to " + csv +
                           "; skipped 2: 1 diverged, 1 interrupted (listed above)") !=
        std::string::npos);
  CHECK(result.output.find("sweep/cut: interrupted run") != std::string::npos);
  CHECK(result.output.find("sweep/blown: diverged run") != std::string::npos);

  // To standard output: the same table, the count on stderr.
  const CommandResult printed =
      run_ufl("collect " + (results / "local").string() + " " + (results / "local").string() + "/");
  CHECK(printed.exit_code == 0);
  CHECK(printed.output.find("collected 1 complete run") != std::string::npos);

  // Nothing complete: exit 2, and the message still says what was skipped.
  const CommandResult none = run_ufl("collect " + (results / "sweep").string());
  CHECK(none.exit_code == 2);
  CHECK(none.output.find("no complete runs under the given paths (skipped 2: 1 diverged, 1 "
                         "interrupted)") != std::string::npos);
}

TEST_CASE("ufl collect prints a table for the reader, beside the CSV") {
  TemporaryFolder folder;
  const fs::path results = folder.path / "results";
  REQUIRE(
      run_ufl("train configs/section8/local.json --out " + (results / "local").string() + kSmallRun)
          .exit_code == 0);
  const std::string csv = folder / "runs.csv";
  const CommandResult written = run_ufl("collect " + results.string() + " --out " + csv);
  INFO(written.output);
  REQUIRE(written.exit_code == 0);
  CHECK(written.output.find("run") == 0);
  for (const char* header : {"dataset", "mixer", "verdict", "emerged", "η", "η_fix", "test MSE"})
    CHECK_MESSAGE(written.output.find(header) != std::string::npos, header);
  const std::size_t row = written.output.find((results / "local").string());
  REQUIRE(row != std::string::npos);
  const std::string line = written.output.substr(row, written.output.find('\n', row) - row);
  CHECK(line.find("local") != std::string::npos);
  CHECK(line.find("universal") != std::string::npos);
  // Without --out the CSV alone goes to standard output, the table to standard error.
  const CommandResult piped = run_command("(cd " UFL_SOURCE_DIR " && " UFL_BINARY " collect " +
                                          results.string() + " 2>/dev/null)");
  CHECK(piped.output == read_text(csv));
}

TEST_CASE("ufl collect skips a symlink loop in the tree and still writes the CSV") {
  TemporaryFolder folder;
  const fs::path results = folder.path / "results";
  REQUIRE(
      run_ufl("train configs/section8/local.json --out " + (results / "local").string() + kSmallRun)
          .exit_code == 0);
  fs::create_symlink(results / "loop", results / "loop");           // a link to itself
  fs::create_directory_symlink(results, results / "local" / "up");  // a link to an ancestor
  const std::string csv = folder / "runs.csv";
  const CommandResult result = run_ufl("collect " + results.string() + " --out " + csv);
  INFO(result.output);
  CHECK(result.exit_code == 0);  // once: a raw filesystem error, exit 1, no CSV
  CHECK(lines(read_text(csv)) == 2);
  CHECK(result.output.find("loop: Too many levels of symbolic links") != std::string::npos);
}
