// ufl sample at the edges (docs/transformer.md §4): the text streams as it is drawn, Ctrl-C or
// SIGTERM stops it at once keeping what was printed (exit 130), a length past 10^7 characters is
// refused with the time it would take unless --force, a negative seed is refused, sampling an
// unfinished or diverged run says so, and parameters or a prompt it cannot use are refused.
#include <doctest/doctest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/npy.hpp"
#include "token_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// A finished tiny text run in `folder`/text.
std::string tiny_text_run(const TemporaryFolder& folder) {
  const std::string corpus = write_tiny_corpus(folder), out = folder / "text";
  const CommandResult trained =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " + out +
                  " --set train.steps=20" + kTinyTextRun,
              kNoFigures);
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);
  return out;
}

}  // namespace

TEST_CASE("ufl sample streams its text, and SIGINT or SIGTERM stop it keeping what was printed") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  for (const char* signal : {"INT", "TERM"}) {
    CAPTURE(signal);
    TemporaryFolder output;
    const std::string pid =
        start_ufl(output, "sample " + run + " --prompt 'The ' --length 100000000 --force");
    REQUIRE(!pid.empty());
    // Text appears while it is drawn (it used to appear only at the end).
    bool streamed = false;
    for (int wait = 0; wait < 30000 && !streamed; ++wait) {
      streamed = fs::exists(output / "out") && fs::file_size(output / "out") > 100;
      if (!streamed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(streamed);
    const auto signalled = std::chrono::steady_clock::now();
    REQUIRE(run_command(std::string("kill -") + signal + " " + pid).exit_code == 0);
    CHECK(wait_for_exit_code(output) == 130);
    CHECK(std::chrono::steady_clock::now() - signalled < std::chrono::seconds(5));
    const std::string text = read_text(output / "out");
    CHECK(text.rfind("The ", 0) == 0);
    CHECK(text.size() > 100);
    CHECK(read_text(output / "err").find("interrupted after") != std::string::npos);
  }
}

TEST_CASE("ufl sample refuses more than 10^7 characters without --force, saying how long") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  const CommandResult refused = run_ufl("sample " + run + " -p 'The ' -n 1000000000");
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("--length 1000000000 is more than 10000000 characters") !=
        std::string::npos);
  CHECK(refused.output.find("it would take about") != std::string::npos);
  CHECK(refused.output.find("--force") != std::string::npos);
  CHECK(std::count(refused.output.begin(), refused.output.end(), '\n') == 1);
  // At the limit it runs.
  CHECK(run_ufl("sample " + run + " -p 'The ' -n 50").exit_code == 0);
}

TEST_CASE("ufl sample --seed -1 is refused like ufl train --seed -1") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  const CommandResult refused = run_ufl("sample " + run + " -p 'The ' --seed -1");
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("--seed") != std::string::npos);
  CHECK(refused.output.find("from 0 to 18446744073709551615, got -1") != std::string::npos);
  CHECK(run_ufl("sample " + run + " -p 'The ' --seed 18446744073709551615 -n 5").exit_code == 0);
}

TEST_CASE("sampling an interrupted run notes that its model is unfinished") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  const CommandResult finished = run_ufl("sample " + run + " -p 'The ' -n 5");
  CHECK(finished.output.find("unfinished") == std::string::npos);
  // The run as an interrupted one leaves it (same files; the manifest says so).
  auto manifest = nlohmann::json::parse(read_text(fs::path(run) / "manifest.json"));
  manifest["status"] = "interrupted";
  std::ofstream(fs::path(run) / "manifest.json") << manifest.dump(2);
  const CommandResult unfinished = run_ufl("sample " + run + " -p 'The ' -n 5");
  INFO(unfinished.output);
  CHECK(unfinished.exit_code == 0);
  CHECK(unfinished.output.find("is interrupted: its model is unfinished") != std::string::npos);
  CHECK(unfinished.output.find("ufl train --resume " + run) != std::string::npos);
}

TEST_CASE("sampling a diverged run warns; parameters that are not finite are refused") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  // The run as a diverged one (its parameters are those of the last finite loss).
  auto manifest = nlohmann::json::parse(read_text(fs::path(run) / "manifest.json"));
  manifest["status"] = "diverged";
  std::ofstream(fs::path(run) / "manifest.json") << manifest.dump(2);
  const CommandResult diverged = run_ufl("sample " + run + " -p 'The ' -n 5");
  INFO(diverged.output);
  CHECK(diverged.exit_code == 0);
  CHECK(diverged.output.find(run + " diverged (its manifest.json says why)") != std::string::npos);
  // A NaN in the token embedding would make every character's probability NaN.
  const fs::path table = fs::path(run) / "params" / "E.npy";
  ufl::io::NpyArray array = ufl::io::read_npy(table);
  std::vector<float> values(array.values.begin(), array.values.end());
  values[3] = std::numeric_limits<float>::quiet_NaN();
  ufl::io::write_npy(table, values.data(), array.shape);
  const CommandResult refused = run_ufl("sample " + run + " -p 'The ' -n 5");
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("ufl: error: " + table.string() +
                            " holds 1 non-finite value (NaN or infinity): the model cannot be "
                            "sampled; retrain the run\n") != std::string::npos);
}

TEST_CASE("a prompt that is not UTF-8 is named as the prompt, not as a file to rename") {
  TemporaryFolder folder;
  const std::string run = tiny_text_run(folder);
  for (const std::string& prompt :
       {std::string("-p '") + "\xe9t\xe9'", std::string("--prompt='\xe9'")}) {
    CAPTURE(prompt);
    const CommandResult refused = run_ufl("sample " + run + " " + prompt);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find("is not valid UTF-8 text") != std::string::npos);
    CHECK(refused.output.find("ufl: error: " + std::string(prompt[1] == 'p' ? "-p" : "--prompt")) ==
          0);
    CHECK(refused.output.find("give it as UTF-8 text") != std::string::npos);
    CHECK(refused.output.find("rename") == std::string::npos);
  }
}
