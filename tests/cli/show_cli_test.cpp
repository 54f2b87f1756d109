// `ufl show RUN`: a short summary in the terminal (status, key metrics, the verdict with the
// condition that decided it, a loss sparkline) and RUN/summary.png, for a Section 8 run, a stack,
// a token run and runs that did not finish; without Matplotlib it says so.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// Python with Matplotlib is part of the install (scripts/install_deps.sh); the figure is checked
// only where it is there.
bool have_matplotlib() {
  return run_command("/usr/bin/python3 -c 'import matplotlib, numpy'").exit_code == 0;
}

bool is_png(const std::string& path) { return read_text(path).rfind("\x89PNG\r\n", 0) == 0; }

}  // namespace

TEST_CASE("ufl show on a Section 8 run: status, metrics, the verdict line, a sparkline, a PNG") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun).exit_code == 0);
  const CommandResult shown = run_ufl("show " + run);
  INFO(shown.output);
  REQUIRE(shown.exit_code == 0);
  // The summary's first line (the log line of the figure may come before it: stderr is not
  // buffered, standard output is when it is a pipe).
  CHECK(shown.output.find(run + ": complete, denoise on local (n 16, d 4), universal; step 60 of "
                                "60, seed 1") != std::string::npos);
  CHECK(shown.output.find("test MSE ") != std::string::npos);
  CHECK(shown.output.find("η_fix ") != std::string::npos);
  CHECK(shown.output.find("\nverdict: ") != std::string::npos);
  CHECK(shown.output.find("claimed: convolution") != std::string::npos);
  // The sparkline: block characters between the first and the last loss.
  const std::size_t loss = shown.output.find("\nloss ");
  REQUIRE(loss != std::string::npos);
  CHECK(shown.output.find("▁", loss) != std::string::npos);
  CHECK(shown.output.find("(steps 1–60", loss) != std::string::npos);
  if (have_matplotlib()) {
    CHECK(shown.output.find("wrote " + run + "/summary.png") != std::string::npos);
    CHECK(is_png(run + "/summary.png"));
  }
  // Without Matplotlib (a Python that has none), it says so and still prints the summary.
  const CommandResult bare = run_ufl("show " + run, "UFL_PYTHON=/bin/false");
  CHECK(bare.exit_code == 0);
  CHECK(bare.output.find("summary.png not drawn: Matplotlib (or NumPy) is missing for "
                         "/bin/false") != std::string::npos);
  CHECK(bare.output.find("\nverdict: ") != std::string::npos);
  const CommandResult none = run_ufl("show " + run, "UFL_PYTHON=/nonexistent/python3");
  CHECK(none.output.find("summary.png not drawn: there is no /nonexistent/python3") !=
        std::string::npos);
  // Not a run folder: one line, exit 2.
  const CommandResult wrong = run_ufl("show " + (folder / "nothing"));
  CHECK(wrong.exit_code == 2);
  CHECK(std::count(wrong.output.begin(), wrong.output.end(), '\n') == 1);
}

TEST_CASE("ufl show on a stack names what each layer became and draws one panel per layer") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  REQUIRE(run_ufl("train configs/section8/local.json --out " + run + kSmallRun +
                  " --set model.depth=2 --set model.width=8 --set model.residual=true")
              .exit_code == 0);
  const CommandResult shown = run_ufl("show " + run);
  INFO(shown.output);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.output.find("2 mixer blocks of width 8") != std::string::npos);
  CHECK(shown.output.find("\nlayers became: ") != std::string::npos);
  if (have_matplotlib()) CHECK(is_png(run + "/summary.png"));
}

TEST_CASE("ufl show on a token run, an interrupted run and a diverged run") {
  TemporaryFolder folder;
  const std::string corpus = folder / "corpus.txt";
  {
    std::ofstream text(corpus);
    for (int line = 0; line < 400; ++line)
      text << "the quick brown fox jumps over the lazy dog " << line % 7 << "\n";
  }
  const std::string text = folder / "text";
  REQUIRE(run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                  text +
                  " --set dataset.n=16 --set model.width=16 --set model.depth=2 --set "
                  "layer.heads=2 --set train.steps=30 --set train.batch_size=4 --set "
                  "train.eval_every=10 --set train.warmup_steps=5 --set dataset.val_windows=20 -q")
              .exit_code == 0);
  const CommandResult tokens = run_ufl("show " + text);
  INFO(tokens.output);
  REQUIRE(tokens.exit_code == 0);
  CHECK(tokens.output.find("next_token on text (n 16, vocabulary ") != std::string::npos);
  CHECK(tokens.output.find(", d 16") == std::string::npos);  // dataset.d means nothing to tokens
  CHECK(tokens.output.find("2 transformer blocks of width 16") != std::string::npos);
  CHECK(tokens.output.find("\nvalidation loss ") != std::string::npos);
  CHECK(tokens.output.find("\nheads became: ") != std::string::npos);
  // The universal heads' gates: each one's linear share of its output, with γ.
  CHECK(tokens.output.find("\nlinear branch's share of each gated head's output "
                           "(docs/universal_head.md §2): block 1: ") != std::string::npos);
  if (have_matplotlib()) CHECK(is_png(text + "/summary.png"));

  const std::string diverged = folder / "diverged";
  REQUIRE(
      run_ufl("train configs/section8/local.json --set train.lr=1e30 --out " + diverged + kSmallRun)
          .exit_code == 3);
  const CommandResult blown = run_ufl("show " + diverged);
  INFO(blown.output);
  REQUIRE(blown.exit_code == 0);
  CHECK(blown.output.find(": diverged, ") != std::string::npos);
  CHECK(blown.output.find("\ndiverged: training diverged at step ") != std::string::npos);
  if (have_matplotlib()) CHECK(is_png(diverged + "/summary.png"));
}

TEST_CASE("the heads figure of a depth-64 model stays bounded: 8 blocks drawn, with a note") {
  TemporaryFolder folder;
  // metrics.json and heads/ of 64 blocks of 2 heads, as a depth-64 token run writes them.
  const std::string fixture =
      "import json, numpy as np, os\n"
      "os.makedirs('heads')\n"
      "layers = []\n"
      "for l in range(64):\n"
      "    heads = []\n"
      "    for k in range(2):\n"
      "        path = f'heads/block{l + 1}_head{k + 1}.npy'\n"
      "        np.save(path, np.tril(np.ones((16, 16))) / np.arange(1, 17)[:, None])\n"
      "        heads.append({'mean_M': path, 'kind': 'content', 'mean_distance': 3.0, 'iota': "
      "0.5})\n"
      "    layers.append({'heads': heads})\n"
      "json.dump({'mixer': 'attention', 'layers': layers}, open('metrics.json', 'w'))\n";
  std::ofstream(folder / "fixture.py") << fixture;
  REQUIRE(run_command("cd " + folder.path.string() + " && /usr/bin/python3 fixture.py").exit_code ==
          0);
  const CommandResult drawn = run_command(
      "/usr/bin/python3 " UFL_SOURCE_DIR "/scripts/head_map.py " + folder.path.string());
  INFO(drawn.output);
  REQUIRE(drawn.exit_code == 0);
  // The PNG's height, from its header (bytes 20–23, big-endian): 8 rows of panels, not 64.
  const std::string png = read_text(folder / "heads.png");
  REQUIRE(png.size() > 24);
  const auto byte = [&](int k) { return static_cast<unsigned char>(png[k]); };
  const unsigned height = byte(20) << 24 | byte(21) << 16 | byte(22) << 8 | byte(23);
  CHECK(height < 3000);  // 19 459 pixels before the cap
  CHECK(std::filesystem::file_size(folder / "heads.svg") < 600000);
  CHECK(read_text(folder / "heads.svg").find("showing blocks 1, 10, 19") != std::string::npos);
}

TEST_CASE("ufl show on a run still training says who holds it, not that it is no run folder") {
  TemporaryFolder folder;
  const std::string run = folder / "run";
  const std::string pid = train_until_first_checkpoint(
      folder.path, "configs/section8/local.json --out " + run +
                       " --set dataset.n=16 --set dataset.d=4 --set dataset.train_size=256 --set "
                       "dataset.test_size=64 --set train.steps=200000 --set "
                       "train.checkpoint_every=20 -q -j1");
  REQUIRE_FALSE(pid.empty());
  const CommandResult busy = run_ufl("show " + run);
  CHECK(busy.exit_code == 2);
  CHECK(busy.output.find("ufl: error: " + run + " is in use by process " + pid) == 0);
  CHECK(busy.output.find("not a run folder") == std::string::npos);
  CHECK(std::count(busy.output.begin(), busy.output.end(), '\n') == 1);
  REQUIRE(run_command("kill -TERM " + pid).exit_code == 0);
  REQUIRE(wait_until_ended(pid));
}
