// ufl sample: text from a trained next_token run (docs/transformer.md §4): the prompt's
// characters go in, and each next character is drawn from softmax(logits / T) of the last
// position, with the model's window of n characters sliding along; deterministic for a seed. The
// text is printed as it is drawn, and Ctrl-C or SIGTERM stops it, keeping what was printed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/stop_signals.hpp"
#include "config/load.hpp"
#include "data/rng.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "io/stop_request.hpp"
#include "model/model.hpp"
#include "results/run_writer.hpp"
#include "task/registry.hpp"
#include "task/token_ends.hpp"
#include "train/resource_estimate.hpp"
#include "train/run_status.hpp"

namespace ufl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// More characters than this are refused without --force: at tens of thousands of characters per
// second, 10^7 is minutes; a mistyped -n of 10^9 would be hours.
constexpr std::int64_t kMaxLength = 10'000'000;

// The UTF-8 characters of `text`, each as its bytes; empty when `text` is not valid UTF-8.
std::vector<std::string> utf8_characters(const std::string& text) {
  std::vector<std::string> characters;
  for (std::size_t at = 0; at < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[at]);
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    if (length == 0 || at + length > text.size()) return {};
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[at + k]) >> 6) != 0x2) return {};
    characters.push_back(text.substr(at, length));
    at += length;
  }
  return characters;
}

// "U+00E9" for a character's code point.
std::string code_point_text(const std::string& character) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(character[k]); };
  unsigned point = character.size() == 1   ? byte(0)
                   : character.size() == 2 ? (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F)
                   : character.size() == 3
                       ? (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F)
                       : (byte(0) & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 |
                             (byte(3) & 0x3F);
  char text[16];
  std::snprintf(text, sizeof text, "U+%04X", point);
  return text;
}

// Token t with probability softmax(logits/T)_t (T = 0: the most likely one).
int draw(const Eigen::VectorXd& logits, double temperature, data::Rng& rng) {
  Eigen::Index best = 0;
  logits.maxCoeff(&best);
  if (temperature <= 0) return int(best);
  const Eigen::VectorXd weights = ((logits.array() - logits(best)) / temperature).exp();
  double threshold = rng.uniform() * weights.sum();
  for (Eigen::Index t = 0; t < weights.size(); ++t)
    if ((threshold -= weights(t)) < 0) return int(t);
  return int(weights.size() - 1);
}

// Writes text to standard output as it is drawn: at every newline, and at least every tenth of a
// second within a long line, so that a reader (a terminal, a pipe) sees it as it comes and a stop
// keeps everything drawn before it.
class StreamedText {
 public:
  void add(const std::string& text) {
    pending_ += text;
    const auto now = std::chrono::steady_clock::now();
    if (text.find('\n') != std::string::npos || now - last_flush_ > std::chrono::milliseconds(100))
      flush();
  }
  void flush() {
    if (!pending_.empty()) std::fwrite(pending_.data(), 1, pending_.size(), stdout);
    std::fflush(stdout);
    pending_.clear();
    last_flush_ = std::chrono::steady_clock::now();
  }

 private:
  std::string pending_;
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
};

}  // namespace

int run_sample(const SampleArguments& arguments) {
  return report_errors([&] {
    const fs::path run = arguments.run_dir;
    if (!fs::is_regular_file(run / "config.json"))
      throw BadInput(run.string() +
                     " is not a run folder (no config.json); pass a folder written by 'ufl "
                     "train'");
    const config::Config config = config::load_config(run / "config.json");
    if (!task::task(config.task.kind).tokens)
      throw BadInput(run.string() + " is a " + config.task.kind +
                     " run; ufl sample needs a next_token run (configs/transformer/text.json)");
    if (!fs::is_regular_file(run / "vocab.json") || !fs::is_regular_file(run / "params" / "E.npy"))
      throw BadInput(run.string() +
                     " has no vocab.json or params/E.npy: it did not finish training; resume it "
                     "with ufl train --resume first");
    const json vocab_json = json::parse(io::read_file(run / "vocab.json"), nullptr, false);
    if (!vocab_json.is_array() || vocab_json.empty())
      throw BadInput((run / "vocab.json").string() + " is not a list of tokens; retrain the run");
    std::vector<std::string> vocab;
    for (const json& token : vocab_json) {
      if (!token.is_string() || utf8_characters(token.get<std::string>()).size() != 1)
        throw BadInput(run.string() +
                       " was not trained on characters (its tokens are not single characters, "
                       "e.g. mqar); ufl sample prints text from a 'text' run");
      vocab.push_back(token.get<std::string>());
    }
    if (arguments.length < 0) throw BadInput("--length must be ≥ 0");
    // A run stopped before its last step has a model that is not the one its config describes.
    const std::optional<train::TrainStatus> status = train::recorded_status(run);
    if (status == train::TrainStatus::kInterrupted)
      spdlog::warn(
          "{} is interrupted: its model is unfinished (resume it with ufl train --resume "
          "{}); sampling it anyway",
          run.string(), run.string());
    // A diverged run keeps the parameters of its last finite loss (docs/running.md,
    // "Divergence"): a model, but not the one its config asked for.
    if (status == train::TrainStatus::kDiverged)
      spdlog::warn(
          "{} diverged (its manifest.json says why): its parameters are those of the last "
          "finite loss, not a finished model; sampling them anyway (retrain with a lower "
          "train.lr for a finished one)",
          run.string());
    if (!(arguments.temperature >= 0))
      throw BadInput("--temperature must be ≥ 0 (0: always the most likely character)");
    const std::vector<std::string> prompt = utf8_characters(arguments.prompt);
    if (prompt.empty())
      throw BadInput(arguments.prompt.empty() ? "--prompt must hold at least one character"
                                              : "--prompt is not valid UTF-8 text");
    std::vector<int> tokens;
    for (const std::string& character : prompt) {
      const auto found = std::find(vocab.begin(), vocab.end(), character);
      if (found == vocab.end())
        throw BadInput("--prompt: the character '" + character + "' (" +
                       code_point_text(character) + ") is not in the vocabulary of " +
                       run.string() + " (" + std::to_string(vocab.size()) +
                       " characters, vocab.json); use characters of the training text");
      tokens.push_back(int(found - vocab.begin()));
    }

    model::Model<float> model(config.dataset.n, 0, config.model, config.layer,
                              task::make_token_ends<float>(int(vocab.size())));
    try {
      results::read_parameters(run, model.params);
    } catch (const io::IoError& error) {
      throw BadInput(error.what());
    }
    // Non-finite parameters make every logit NaN, and the draws meaningless.
    for (const model::ParameterSlice& slice : model.params.slices) {
      const float* values = model.params.values.data() + slice.offset;
      const std::size_t bad = std::size_t(std::count_if(
          values, values + slice.size(), [](float value) { return !std::isfinite(value); }));
      if (bad > 0)
        throw BadInput(run.string() + "/params/" + slice.name + ".npy holds " +
                       std::to_string(bad) + " non-finite value" + (bad == 1 ? "" : "s") +
                       " (NaN or infinity): the model cannot be sampled; retrain the run");
    }
    Tape<float> tape;
    const model::ModelGraph<float> graph = model::record_model(tape, model, 1, false);
    tape.plan();
    const int n = model.n, width = model.width;
    const ConstMatrixMap<float> table =
        std::as_const(model.params).matrix(task::token_table(model));
    data::Rng rng(arguments.seed, data::Stream::kSampling);
    // The next character after `tokens` (the last n of them at positions 0…; later positions
    // hold anything, the model is causal).
    auto next_token = [&]() {
      const int context = std::min<int>(n, int(tokens.size()));
      float* input = tape.value(graph.x).data;
      for (int i = 0; i < n; ++i)
        input[i] = i < context ? float(tokens[tokens.size() - context + i]) : 0.0f;
      tape.forward();
      const ConstMatrixMap<float> last(tape.value(graph.y).data + std::size_t(context - 1) * width,
                                       1, width);
      const Eigen::VectorXd logits = (table * last.transpose()).cast<double>();
      return draw(logits, arguments.temperature, rng);
    };
    if (arguments.length > kMaxLength && !arguments.force) {
      // Time a few characters (on a copy of the draws, which the text does not see) to say how
      // long the request would take.
      const data::Rng saved = rng;
      const auto start = std::chrono::steady_clock::now();
      int timed = 0;
      while (timed < 1000 &&
             std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200)) {
        (void)next_token();
        ++timed;
      }
      rng = saved;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double per_second = timed / std::max(seconds, 1e-9);
      throw BadInput(fmt::format(
          "--length {} is more than {} characters: at the {:.0f} characters per second measured "
          "here it would take about {}; lower --length, or pass --force to draw them anyway "
          "(Ctrl-C stops it, keeping what was printed)",
          arguments.length, kMaxLength, per_second,
          train::format_seconds(double(arguments.length) / per_second)));
    }
    StopSignals signals;
    StreamedText out;
    out.add(arguments.prompt);
    for (std::int64_t k = 0; k < arguments.length; ++k) {
      if (interrupt::stop_requested()) {
        interrupt::acknowledge_stop();
        out.add("\n");
        out.flush();
        spdlog::warn("interrupted after {} of {} characters (Ctrl-C or SIGTERM)", k,
                     arguments.length);
        return int(kInterrupted);
      }
      const int next = next_token();
      tokens.push_back(next);
      // Only the last n tokens are read: keep the list short however long the text.
      if (tokens.size() > 4 * std::size_t(n)) tokens.erase(tokens.begin(), tokens.end() - n);
      out.add(vocab[next]);
    }
    out.add("\n");
    out.flush();
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
