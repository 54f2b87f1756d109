// ufl show: one run at a glance. A few lines in the terminal (what it is, how far it got, its key
// metrics, the verdict with the condition that decided it, the loss as a sparkline) and
// RUN/summary.png, drawn by scripts/show_run.py (README, "Using it").
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "analysis/block_heads.hpp"
#include "analysis/branch_shares.hpp"
#include "analysis/measure.hpp"
#include "analysis/verdict_sentence.hpp"
#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_guard.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "model/block.hpp"
#include "results/figures.hpp"
#include "task/label_scores.hpp"
#include "task/registry.hpp"
#include "train/run_status.hpp"

namespace ufl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A JSON file of the run; an empty object when it is missing or does not parse.
json read_object(const fs::path& path) {
  std::error_code ignored;
  if (!fs::is_regular_file(path, ignored)) return json::object();
  try {
    const json value = json::parse(io::read_file(path), nullptr, false);
    return value.is_object() ? value : json::object();
  } catch (const io::IoError&) {
    return json::object();
  }
}

std::string number(const json& object, const char* key, const char* format = "{:.4g}") {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return "?";
  return fmt::format(fmt::runtime(format), found->get<double>());
}

// The `column` of loss.csv, in step order; empty when there is no such file or column.
std::vector<double> loss_column(const fs::path& run, const std::string& column) {
  std::error_code ignored;
  if (!fs::is_regular_file(run / "loss.csv", ignored)) return {};
  std::istringstream lines(io::read_file(run / "loss.csv"));
  std::string line;
  std::getline(lines, line);
  int index = -1, at = 0;
  std::istringstream header(line);
  for (std::string name; std::getline(header, name, ','); ++at)
    if (name == column) index = at;
  std::vector<double> values;
  if (index < 0) return values;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string cell;
    for (int k = 0; k <= index && std::getline(cells, cell, ','); ++k) {
    }
    if (!cell.empty()) values.push_back(std::strtod(cell.c_str(), nullptr));
  }
  return values;
}

// The values as a line of `width` block characters (the mean of each stretch of steps, on a
// log scale when all are positive): "█▆▄▃▂▂▁▁".
std::string sparkline(const std::vector<double>& values, int width) {
  static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::vector<double> finite;
  for (double value : values)
    if (std::isfinite(value)) finite.push_back(value);
  if (finite.empty() || width < 1) return "";
  bool positive = true;
  for (double value : finite) positive = positive && value > 0;
  const int columns = std::min<int>(width, int(finite.size()));
  std::vector<double> means(columns, 0.0);
  for (int c = 0; c < columns; ++c) {
    const std::size_t begin = finite.size() * c / columns, end = finite.size() * (c + 1) / columns;
    for (std::size_t k = begin; k < end; ++k)
      means[c] += positive ? std::log10(finite[k]) : finite[k];
    means[c] /= double(end - begin);
  }
  const double low = *std::min_element(means.begin(), means.end());
  const double high = *std::max_element(means.begin(), means.end());
  std::string line;
  for (double mean : means) {
    const int level = high > low ? int(std::lround(7 * (mean - low) / (high - low))) : 0;
    line += kBlocks[std::clamp(level, 0, 7)];
  }
  return line;
}

}  // namespace

int run_show(const ShowArguments& arguments) {
  return report_errors([&] {
    const fs::path run = arguments.run_dir;
    std::error_code ignored;
    if (!fs::is_regular_file(run / "manifest.json", ignored) ||
        !fs::is_regular_file(run / "config.json", ignored)) {
      // A run still training has no folder yet, only its staging folder and its lock: say who
      // holds it rather than that it is not a run (RunGuard throws "in use by process N").
      if (fs::exists(io::RunLock::lock_path(run), ignored)) {
        const RunGuard in_use(run, RunGuard::Use::kExisting);
      }
      throw BadInput(run.string() +
                     " is not a run folder (no config.json or manifest.json); pass a folder "
                     "written by 'ufl train'");
    }
    const json manifest = read_object(run / "manifest.json");
    const json config = read_object(run / "config.json");
    const json metrics = read_object(run / "metrics.json");
    const json dataset = config.value("dataset", json::object());
    const json model = config.value("model", json::object());
    const std::string status = manifest.value("status", std::string("?"));
    const std::string task = config.value("task", json::object()).value("kind", "denoise");

    // What the run is and how far it got.
    std::string what =
        task + " on " + dataset.value("kind", "?") + " (n " + number(dataset, "n", "{:.0f}");
    // Token data have a vocabulary, not d channels (config.json holds dataset.d all the same).
    const task::TaskRecord* record = task::find_task(task);
    if (record != nullptr && record->tokens) {
      if (metrics.contains("vocab")) what += ", vocabulary " + number(metrics, "vocab", "{:.0f}");
    } else if (dataset.contains("d")) {
      what += ", d " + number(dataset, "d", "{:.0f}");
    }
    // layer.mixer: one mixer, or a hybrid block's list with one per head.
    const json mixer = config.value("layer", json::object()).value("mixer", json("?"));
    what += "), " + (mixer.is_array()
                         ? model::mixers_text(mixer.get<std::vector<std::string>>()) + " heads"
                     : mixer.is_string() ? mixer.get<std::string>()
                                         : "?");
    const int depth = model.value("depth", 1);
    const std::string block = model.value("block", std::string("mixer"));
    const model::BlockKind* kind = model::find_block_kind(block);
    if (depth > 1 || (kind != nullptr && !kind->single_layer_at_depth_one()))
      what += ", " + std::to_string(depth) + " " + block + " block" + (depth == 1 ? "" : "s") +
              " of width " + number(model, "width", "{:.0f}");
    const int steps = config.value("train", json::object()).value("steps", 0);
    const int done = manifest.value("steps_done", metrics.value("steps_done", 0));
    std::cout << run.string() << ": " << status << ", " << what << "; step " << done << " of "
              << steps << ", seed " << config.value("seed", json()).dump();
    if (manifest.contains("wall_seconds") && manifest["wall_seconds"].is_number())
      std::cout << fmt::format(", {:.1f} s", manifest["wall_seconds"].get<double>());
    std::cout << "\n";

    // Key metrics and the verdict (complete runs), or what stopped it.
    const std::optional<train::TrainStatus> state = train::status_from_name(status);
    if (state == train::TrainStatus::kComplete) {
      if (metrics.contains("validation_loss"))
        std::cout << "validation loss " << number(metrics, "validation_loss") << " nats ("
                  << number(metrics, "validation_bits") << " bits) per token, accuracy "
                  << number(metrics, "validation_accuracy", "{:.3f}") << "\n";
      if (const std::string labels = task::label_scores_text(metrics); !labels.empty())
        std::cout << labels << "\n";
      else
        std::cout << "test MSE " << number(metrics, "test_mse") << " (optimum "
                  << number(metrics, "optimal_mse") << ", best fixed operator "
                  << number(metrics, "fixed_mse") << "), η " << number(metrics, "eta") << ", η_fix "
                  << number(metrics, "eta_fix") << "\n";
      if (metrics.contains("verdict"))
        std::cout << analysis::verdict_sentence(metrics) << "\n";
      else if (metrics.contains("layer_verdicts"))  // a stack: what each layer became
        std::cout << "layers became: " << analysis::layer_verdicts_text(metrics) << "\n";
      if (const std::string heads = analysis::heads_text(metrics); !heads.empty())
        std::cout << "heads became: " << heads << "\n";
      if (const std::string shares = analysis::branch_shares_text(metrics); !shares.empty())
        std::cout << "linear branch's share of each gated head's output "
                     "(docs/universal_head.md §2): "
                  << shares << "\n";
    } else if (state == train::TrainStatus::kInterrupted) {
      std::cout << "interrupted: continue with ufl train --resume " << run.string() << "\n";
    } else if (state == train::TrainStatus::kDiverged) {
      std::cout << "diverged: " << manifest.value("error", std::string("?")) << "\n";
    }

    const std::vector<double> losses = loss_column(run, "loss");
    if (!losses.empty())
      std::cout << "loss " << fmt::format("{:.4g}", losses.front()) << " " << sparkline(losses, 48)
                << " " << fmt::format("{:.4g}", losses.back()) << " (steps 1–" << losses.size()
                << ", mean per stretch, log scale)\n";

    if (arguments.no_figure) return int(kSuccess);
    // The figure is a file of the run folder: not while another process works on it.
    std::unique_ptr<RunGuard> guard;
    try {
      guard = std::make_unique<RunGuard>(run, RunGuard::Use::kExisting);
    } catch (const BadInput& error) {
      std::cout << "summary.png not drawn: " << error.what() << "\n";
      return int(kSuccess);
    }
    // summary.png for every run; head_structure.png where the analysis measured the heads
    // (heads.json, docs/head_structure.md §2).
    struct Figure {
      const char *script, *file, *needs;  // needs: the file it draws from, if not every run has it
    };
    for (const auto& [script, figure, needs] :
         {Figure{"show_run.py", "summary.png", nullptr},
          Figure{"head_structure.py", "head_structure.png", "heads.json"}}) {
      if (needs != nullptr && !fs::exists(run / needs)) continue;
      const std::string problem = results::draw_figure(script, run);
      if (problem.empty())
        std::cout << "wrote " << (run / figure).string() << "\n";
      else
        std::cout << figure << " " << problem.substr(problem.find("not drawn")) << "\n";
    }
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
