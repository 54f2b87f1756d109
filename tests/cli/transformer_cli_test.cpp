// Transformer runs end to end, as a user runs them (docs/transformer.md): a tiny character-level
// run on a text file writes its run folder, `ufl sample` prints text deterministically for a
// seed, `ufl analyze` re-scores it, mqar and induction train, and every bad input gets one line
// and exit 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_support.hpp"

using namespace ufl::testing;
namespace fs = std::filesystem;

namespace {

// A small English text, repeated so that both splits hold more than ten windows of n + 1 = 17.
std::string write_corpus(const TemporaryFolder& folder) {
  const std::string path = folder / "corpus.txt";
  std::ofstream file(path);
  for (int k = 0; k < 40; ++k)
    file << "The quick brown fox jumps over the lazy dog. A stitch in time saves nine.\n";
  return path;
}

const std::string kTinyText =
    " --set dataset.n=16 --set model.width=16 --set model.depth=2 --set layer.heads=2"
    " --set train.steps=30 --set train.batch_size=4 --set train.eval_every=10"
    " --set train.warmup_steps=5 --set dataset.val_windows=20 -q";

}  // namespace

TEST_CASE("a tiny text run writes its run folder, and ufl sample continues a prompt") {
  TemporaryFolder folder;
  const std::string corpus = write_corpus(folder), out = folder / "text";
  const CommandResult result =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " + out +
              kTinyText);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  for (const char* file :
       {"config.json", "manifest.json", "metrics.json", "loss.csv", "vocab.json", "params/E.npy",
        "params/P.npy", "params/block1/W_o.npy", "params/block2/head2/A.npy",
        "heads/block2_head1.npy",
        "heads.png"})  // drawn by scripts/head_map.py (Matplotlib, CI installs it)
    CHECK_MESSAGE(fs::exists(fs::path(out) / file), file);
  const auto metrics = nlohmann::json::parse(read_text(fs::path(out) / "metrics.json"));
  for (const char* key :
       {"validation_loss", "validation_bits", "validation_accuracy", "parameters", "layers"})
    CHECK_MESSAGE(metrics.contains(key), key);
  CHECK(metrics["layers"].size() == 2);
  CHECK(metrics["layers"][0]["heads"].size() == 2);
  const std::string curve = read_text(fs::path(out) / "loss.csv");
  CHECK(curve.rfind("step,lr,loss,train_loss,orthogonality,val_loss,train_bits,val_bits\n", 0) ==
        0);
  const auto vocab = nlohmann::json::parse(read_text(fs::path(out) / "vocab.json"));
  CHECK(vocab.size() == 31);  // the distinct characters of the corpus, newline included

  const CommandResult first = run_ufl("sample " + out + " --prompt 'The qu' --length 40 --seed 3");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(first.output.rfind("The qu", 0) == 0);
  CHECK(first.output.size() > 40);
  const CommandResult again =
      run_ufl("sample " + out + " --prompt 'The qu' --length 40 --seed 3 --threads 1");
  CHECK(again.output == first.output);

  const CommandResult outside = run_ufl("sample " + out + " --prompt 'Zebra'");
  CHECK(outside.exit_code == 2);
  CHECK(outside.output.find("'Z' (U+005A) is not in the vocabulary") != std::string::npos);

  const CommandResult analyzed = run_ufl("analyze " + out + " -q");
  INFO(analyzed.output);
  CHECK(analyzed.exit_code == 0);
}

TEST_CASE("a text run is bit-identical at 1 and 2 threads") {
  TemporaryFolder folder;
  const std::string corpus = write_corpus(folder);
  for (const char* threads : {"1", "2"})
    REQUIRE(run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                    folder / threads + " --threads " + threads + kTinyText)
                .exit_code == 0);
  for (const char* file : {"loss.csv", "params/E.npy", "params/block2/W_2.npy", "metrics.json"})
    CHECK_MESSAGE(
        read_text(fs::path(folder / "1") / file) == read_text(fs::path(folder / "2") / file), file);
}

TEST_CASE("mqar and induction train with transformer blocks") {
  TemporaryFolder folder;
  const CommandResult mqar =
      run_ufl("train configs/transformer/mqar.json --out " + folder / "mqar" +
              " --set dataset.train_size=64 --set dataset.test_size=16 --set dataset.n=32"
              " --set train.steps=10 --set train.warmup_steps=2 --set train.batch_size=4"
              " --set train.eval_every=5 -q");
  INFO(mqar.output);
  CHECK(mqar.exit_code == 0);
  const CommandResult induction =
      run_ufl("train configs/transformer/induction.json --out " + folder / "induction" +
              " --set dataset.train_size=64 --set dataset.test_size=16 --set dataset.n=16"
              " --set train.steps=10 --set train.warmup_steps=2 --set train.batch_size=4"
              " --set train.eval_every=5 -q");
  INFO(induction.output);
  CHECK(induction.exit_code == 0);
  const auto metrics =
      nlohmann::json::parse(read_text(fs::path(folder / "induction") / "metrics.json"));
  CHECK(metrics.contains("eta_fix"));
  CHECK(metrics.contains("row_mse"));
  CHECK(metrics["layers"][1]["heads"].size() == 2);
  // A denoise run's universal heads (no causal mask) get their branch shares beside γ, over the
  // 16 test samples (docs/universal_head.md §2).
  for (const auto& block : metrics["layers"])
    for (const auto& head : block["heads"]) {
      CHECK(head.contains("gamma"));
      CHECK(head["branches"]["windows"] == 16);
      const double share = head["branches"]["output"]["linear_share"].get<double>();
      CHECK(share > 0);
      CHECK(share < 1);
    }
}

TEST_CASE("bad transformer inputs: one line each, exit 2, nothing written") {
  TemporaryFolder folder;
  const std::string corpus = write_corpus(folder);
  const std::string out = folder / "bad";
  struct Case {
    std::string arguments, message;
  };
  const std::vector<Case> cases = {
      {"--set layer.heads=3", "layer.heads must be a divisor of model.width = 16"},
      // More heads than channels: blamed on layer.heads, not on the rank it leaves at 0.
      {"--set layer.heads=64", "layer.heads must be a divisor of model.width = 16"},
      {"--set layer.mixer=fourier", "a mixer with a causal form"},
      {"--set model.block=mixer", "layer.heads belongs to block 'transformer'"},
      {"--set dataset.kind=local", "dataset.path belongs to dataset kinds 'text', 'copy_text'"},
      // A hybrid's list (docs/transformer.md §9): one causal mixer per head.
      {R"(--set 'layer.mixer=["attention"]')", "must be a list of layer.heads = 2 mixers"},
      {R"(--set 'layer.mixer=["attention","fourier"]')", "mixers with a causal form"},
      {R"(--set 'layer.mixer=["attention","convolution"]' --set layer.gate_init=0.9)",
       "layer.gate_init belongs to mixers 'universal', 'distance', not the heads' mixers"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.arguments);
    const CommandResult result =
        run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
                out + kTinyText + " " + c.arguments);
    CHECK(result.exit_code == 2);
    CHECK(result.output.find(c.message) != std::string::npos);
    CHECK(std::count(result.output.begin(), result.output.end(), '\n') == 1);
    CHECK(!fs::exists(out));
  }
  const CommandResult denoise_sample = run_ufl("sample " + folder.path.string() + " --prompt a");
  CHECK(denoise_sample.exit_code == 2);
}

TEST_CASE("a task reads its own kind of data, and next_token needs transformer blocks") {
  TemporaryFolder folder;
  const std::string corpus = write_corpus(folder);
  struct Case {
    std::string config, message;
  };
  const std::vector<Case> cases = {
      {R"({"task": {"kind": "next_token"}, "dataset": {"kind": "local"}})",
       "task.kind must be denoise for dataset.kind = \"local\" (next_token reads text, mqar, "
       "copy, copy_text)"},
      {R"({"dataset": {"kind": "mqar"}})",
       "must be next_token for dataset.kind = \"mqar\" (denoise reads local, global, periodic, "
       "lowrank, induction, hadamard, haar, dct, butterfly)"},
      {R"({"task": {"kind": "next_token"}, "dataset": {"kind": "text", "path": ")" + corpus +
           R"("}})",
       "next_token needs model.block = \"transformer\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.config);
    const std::string path = folder / "config.json";
    std::ofstream(path) << c.config;
    const CommandResult result = run_ufl("train " + path + " --out " + folder / "run");
    CHECK(result.exit_code == 2);
    CHECK(result.output.find(c.message) != std::string::npos);
    CHECK(!fs::exists(folder / "run"));
  }
}

TEST_CASE("mqar with a window too short for one pair says which dataset.n it needs") {
  TemporaryFolder folder;
  const CommandResult refused =
      run_ufl("train configs/transformer/mqar.json --set dataset.n=2 --out " + folder / "mqar");
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("dataset.n must be at least 4 × dataset.pairs − 1 = 15 for "
                            "dataset.pairs = 4") != std::string::npos);
  CHECK(refused.output.find("at most 0") == std::string::npos);
}

TEST_CASE("a hybrid block trains, and each of its heads is described and measured as its kind") {
  TemporaryFolder folder;
  const std::string corpus = write_corpus(folder);
  const fs::path out = folder.path / "results" / "hybrid";
  const CommandResult result =
      run_ufl("train configs/transformer/text.json --set dataset.path=" + corpus + " --out " +
              out.string() + kTinyText +
              R"( --set 'layer.mixer=["attention","convolution"]' --set layer.kernel_width=3)");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto config = nlohmann::json::parse(read_text(out / "config.json"));
  CHECK(config["layer"]["mixer"] == nlohmann::json::parse(R"(["attention","convolution"])"));
  CHECK(config["layer"]["kernel_width"] == 3);
  const auto metrics = nlohmann::json::parse(read_text(out / "metrics.json"));
  CHECK(metrics["mixer"] == "1 attention + 1 convolution");
  CHECK(nlohmann::json::parse(read_text(out / "manifest.json"))["mixer"] ==
        "1 attention + 1 convolution");
  for (const auto& block : metrics["layers"]) {
    REQUIRE(block["heads"].size() == 2);
    CHECK(block["heads"][0]["mixer"] == "attention");
    CHECK(block["heads"][1]["mixer"] == "convolution");
    CHECK(block["heads"][0]["iota"].get<double>() > 0);  // M from the input
    CHECK(block["heads"][1]["iota"].get<double>() == doctest::Approx(0.0).scale(1.0));
  }
  const auto heads = nlohmann::json::parse(read_text(out / "heads.json"));
  CHECK(heads["blocks"][1]["heads"][0]["mixer"] == "attention");
  CHECK(heads["blocks"][1]["heads"][1]["mixer"] == "convolution");
  CHECK(heads["blocks"][1]["heads"][0].contains("omega"));  // Ω: the score head's only
  CHECK_FALSE(heads["blocks"][1]["heads"][1].contains("omega"));
  CHECK(fs::exists(out / "heads/block2_head2.npy"));

  const CommandResult shown = run_ufl("show " + out.string() + " --no-figure");
  INFO(shown.output);
  CHECK(shown.exit_code == 0);
  CHECK(shown.output.find("1 attention + 1 convolution heads, 2 transformer blocks") !=
        std::string::npos);
  CHECK(shown.output.find(" (convolution)") != std::string::npos);  // heads became: … (mixer)

  const std::string csv = folder / "runs.csv";
  const CommandResult collected =
      run_ufl("collect " + (folder.path / "results").string() + " --out " + csv);
  INFO(collected.output);
  CHECK(collected.exit_code == 0);
  CHECK(collected.output.find("1 attention + 1 convolution") != std::string::npos);
  CHECK(read_text(csv).find(R"("[""attention"",""convolution""]")") != std::string::npos);
}

TEST_CASE("copy_text reports its copied and fresh positions apart; its bad keys get one line") {
  TemporaryFolder folder;
  const std::string corpus = folder / "corpus.txt";
  {
    std::ofstream text(corpus);
    for (int line = 0; line < 200; ++line)
      text << "The quick brown fox jumps over the lazy dog " << line % 13
           << ". A stitch in time saves nine.\n";
  }
  const std::string out = folder / "mixed";
  const std::string tiny =
      " --set dataset.path=" + corpus +
      " --set dataset.n=48 --set dataset.segments=2 --set dataset.segment_min=4"
      " --set dataset.segment_max=8 --set dataset.gap_min=2"
      " --set dataset.train_size=200 --set dataset.val_windows=20 --set model.width=16"
      " --set train.steps=20 --set train.batch_size=4 --set train.eval_every=10"
      " --set train.warmup_steps=5 -q";
  const CommandResult result =
      run_ufl("train configs/transformer/copy_text.json --out " + out + tiny);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  // loss.csv: the accuracy and each label's loss and accuracy at every evaluation.
  std::istringstream curve(read_text(fs::path(out) / "loss.csv"));
  std::string line;
  std::getline(curve, line);
  CHECK(line ==
        "step,lr,loss,train_loss,orthogonality,val_loss,train_bits,val_bits,val_accuracy,"
        "val_loss_fresh,val_accuracy_fresh,val_loss_copied,val_accuracy_copied");
  int evaluations = 0;
  while (std::getline(curve, line)) {
    const bool evaluated = line.rfind("10,", 0) == 0 || line.rfind("20,", 0) == 0;
    CAPTURE(line);
    CHECK(std::count(line.begin(), line.end(), ',') == 12);
    CHECK((line.back() != ',') == evaluated);  // empty between evaluations
    evaluations += evaluated;
  }
  CHECK(evaluations == 2);
  // metrics.json: each label's loss, accuracy and positions; the total is their weighted mean.
  const auto metrics = nlohmann::json::parse(read_text(fs::path(out) / "metrics.json"));
  REQUIRE(metrics.contains("labels"));
  const auto& copied = metrics["labels"]["copied"];
  const auto& fresh = metrics["labels"]["fresh"];
  const double copies = copied["positions"].get<double>(),
               others = fresh["positions"].get<double>();
  CHECK(copies + others == 20 * 48);
  CHECK(copies > 0);
  CHECK(metrics["validation_loss"].get<double>() ==
        doctest::Approx((copied["validation_loss"].get<double>() * copies +
                         fresh["validation_loss"].get<double>() * others) /
                        (copies + others))
            .epsilon(1e-5));
  CHECK(metrics["validation_accuracy"].get<double>() ==
        doctest::Approx((copied["validation_accuracy"].get<double>() * copies +
                         fresh["validation_accuracy"].get<double>() * others) /
                        (copies + others))
            .epsilon(1e-5));
  const CommandResult shown = run_ufl("show " + out + " --no-figure");
  INFO(shown.output);
  CHECK(shown.output.find("\nby label: copied ") != std::string::npos);
  CHECK(shown.output.find("), fresh ") != std::string::npos);

  struct Case {
    std::string arguments, message;
  };
  const std::vector<Case> cases = {
      {"--set dataset.segment_min=9",
       "dataset.segment_max must be at least dataset.segment_min = 9, got 8"},
      {"--set dataset.segments=5", "dataset.segments must be at most 4 for dataset.n = 48"},
      {"--set dataset.n=16",
       "dataset.n must be at least 2 × dataset.segment_max + dataset.gap_min − 1 = 17"},
      {"--set dataset.copy_source=nowhere", "dataset.copy_source must be \"window\" or"},
      {"--set dataset.kind=text", ", not 'text'; remove it"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.arguments);
    const std::string bad = folder / "bad";
    const CommandResult refused =
        run_ufl("train configs/transformer/copy_text.json --out " + bad + tiny + " " + c.arguments);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find(c.message) != std::string::npos);
    CHECK(std::count(refused.output.begin(), refused.output.end(), '\n') == 1);
    CHECK(!fs::exists(bad));
  }
}
