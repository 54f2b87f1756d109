// ufl train: config → dataset → layer → trainer → run folder (with analysis).
#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <optional>

#include "analysis/measure.hpp"
#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/run_folder.hpp"
#include "model/initialize.hpp"
#include "results/run_writer.hpp"
#include "train/checkpoint.hpp"
#include "ufl/version.hpp"

namespace ufl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::atomic<bool> stop_requested{false};

// First SIGINT/SIGTERM: stop at the next step boundary and save a checkpoint. A second one
// ends the process at once.
extern "C" void request_stop(int signal_number) {
  if (stop_requested.exchange(true)) {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::unique_ptr<io::RunFolder> open_run_folder(const fs::path& path, bool force) {
  try {
    return std::make_unique<io::RunFolder>(path, force);
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // an existing or unwritable --out is the user's to fix
  }
}

// "complete", "interrupted" or "diverged" from a run folder's manifest; "" when there is none.
std::string run_status(const fs::path& run) {
  if (!fs::is_regular_file(run / "manifest.json")) return "";
  const json manifest = json::parse(io::read_file(run / "manifest.json"), nullptr, false);
  return manifest.is_object() ? manifest.value("status", std::string()) : "";
}

// What --resume needs from an interrupted run folder.
struct ResumePoint {
  config::Config config;
  std::string data_dir;
  train::TrainingState state;
};

ResumePoint read_resume_point(const fs::path& run, const TrainArguments& arguments) {
  const fs::path manifest_path = run / "manifest.json", checkpoint = run / "checkpoint.bin";
  if (!fs::is_regular_file(manifest_path))
    throw BadInput(
        run.string() +
        " is not a run folder (no manifest.json); --resume takes the folder of an interrupted run");
  const json manifest = json::parse(io::read_file(manifest_path), nullptr, false);
  const std::string status =
      manifest.is_object() ? manifest.value("status", std::string("?")) : "?";
  if (status != "interrupted" || !fs::is_regular_file(checkpoint))
    throw BadInput(run.string() + " is " + status +
                   ", not an interrupted run with a checkpoint; nothing to resume");
  ResumePoint point;
  point.config = config::load_config(run / "config.json");
  if (!arguments.config_path.empty()) {
    const config::Config given = config::load_config(arguments.config_path, arguments.overrides);
    if (config::to_json(given) != config::to_json(point.config))
      throw BadInput(arguments.config_path + " (with --set/--seed) differs from " +
                     (run / "config.json").string() +
                     "; resume with the same settings, or give only --resume");
  } else if (!arguments.overrides.empty()) {
    throw BadInput("--set and --seed cannot change an interrupted run; give only --resume " +
                   run.string());
  }
  point.data_dir = manifest.value("data_dir", std::string());
  try {
    point.state = train::read_checkpoint(checkpoint);
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // a damaged checkpoint is input the user must replace
  }
  return point;
}

json manifest_json(const config::Config& config, const train::TrainResult& training,
                   double wall_seconds, const TrainArguments& arguments,
                   const std::string& data_dir) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  json manifest = {{"ufl_version", kVersion},
                   {"git_commit", kGitCommit},
                   {"status", train::status_name(training.status)},
                   {"complete", training.status == train::TrainStatus::kComplete},
                   {"seed", config.seed},
                   {"threads", omp_get_max_threads()},
                   {"steps_done", training.steps_done},
                   {"steps", config.train.steps},
                   {"train_seconds", training.seconds},
                   {"wall_seconds", wall_seconds},
                   {"steps_per_second", training.steps_per_second},
                   {"finished_at", utc_now()},
                   {"host", host},
                   {"command", arguments.command_line},
                   {"data_dir", data_dir}};
  if (!training.message.empty()) manifest["error"] = training.message;
  return manifest;
}

}  // namespace

int run_train(const TrainArguments& arguments) {
  return report_errors([&] {
    const auto wall_start = std::chrono::steady_clock::now();
    std::optional<ResumePoint> resume;
    config::Config config;
    fs::path out;
    std::string data_dir = arguments.data_dir;
    std::string resume_dir = arguments.resume;
    if (arguments.continue_run && resume_dir.empty()) {
      if (arguments.config_path.empty()) throw BadInput("--continue needs a CONFIG file");
      config = config::load_config(arguments.config_path, arguments.overrides);
      out = arguments.out.empty() ? fs::path("results") / config.name : fs::path(arguments.out);
      const std::string status = run_status(out);
      if (!status.empty() &&
          config::to_json(config) != config::to_json(config::load_config(out / "config.json")))
        throw BadInput(out.string() + " holds a run with other settings; choose another --out");
      if (status == "complete") {
        spdlog::info("{} is complete; nothing to do", out.string());
        return int(kSuccess);
      }
      if (status == "diverged")
        throw train::Diverged(out.string() + " diverged before; see its manifest.json");
      if (status == "interrupted") resume_dir = out.string();
    }
    if (!resume_dir.empty()) {
      resume = read_resume_point(resume_dir, arguments);
      config = resume->config;
      out = resume_dir;
      if (data_dir.empty()) data_dir = resume->data_dir;
    } else {
      if (arguments.config_path.empty())
        throw BadInput("ufl train needs a CONFIG file (or --resume RUN_DIR)");
      config = config::load_config(arguments.config_path, arguments.overrides);
      out = arguments.out.empty() ? fs::path("results") / config.name : fs::path(arguments.out);
    }
    // Resuming replaces the interrupted folder with the finished one.
    auto folder = open_run_folder(out, arguments.force || resume.has_value());

    const data::Dataset dataset = data_dir.empty()
                                      ? data::generate(config.dataset, config.seed)
                                      : data::load_dataset(data_dir, config.dataset, config.seed,
                                                           config::to_json(config)["dataset"]);
    model::Model<float> model(config.dataset.n, config.dataset.d, config.model, config.layer);
    model::initialize(model, config.seed);

    const int threads = omp_get_max_threads();
    spdlog::info(
        "train '{}': {} data, n={} d={} r={}{}, {} steps of {} on {} thread{} → {}{}", config.name,
        config.dataset.kind, config.dataset.n, config.dataset.d, config.layer.rank,
        config.model.depth == 1 && config.model.width == config.dataset.d && !config.model.residual
            ? std::string()
            : ", " + std::to_string(config.model.depth) + " layer" +
                  (config.model.depth == 1 ? "" : "s") + " of width " +
                  std::to_string(config.model.width) + (config.model.residual ? " (residual)" : ""),
        config.train.steps, config.train.batch_size, threads, threads == 1 ? "" : "s", out.string(),
        resume ? " (resuming after step " + std::to_string(resume->state.steps_done) + ")" : "");

    stop_requested.store(false);
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    train::TrainOptions options;
    options.quiet = arguments.quiet;
    options.stop_requested = &stop_requested;
    if (resume) options.resume_from = &resume->state;
    const train::TrainResult training =
        train::train_model(config.train, config.seed, dataset, model, options);

    const fs::path& staging = folder->staging();
    results::write_json(staging / "config.json", config::to_json(config));
    results::write_loss_curve(staging, training.curve);
    auto finish = [&] {
      const double wall_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      results::write_json(staging / "manifest.json",
                          manifest_json(config, training, wall_seconds, arguments, data_dir));
      folder->commit();
      return wall_seconds;
    };
    if (training.status == train::TrainStatus::kDiverged) {
      finish();
      throw train::Diverged(training.message + " (recorded in " + out.string() + "/manifest.json)");
    }

    analysis::RunAnalysis analysis = analysis::analyze_model(dataset, model, config.analysis);
    analysis.metrics["name"] = config.name;
    analysis.metrics["seed"] = config.seed;
    analysis.metrics["complete"] = training.status == train::TrainStatus::kComplete;
    analysis.metrics["steps_done"] = training.steps_done;
    results::write_parameters(staging, model);
    results::write_analysis(staging, analysis);
    if (training.status == train::TrainStatus::kInterrupted) {
      train::write_checkpoint(staging / "checkpoint.bin", training.state);
      finish();
      spdlog::warn("interrupted after step {}/{}; checkpoint and metrics so far in {}",
                   training.steps_done, config.train.steps, out.string());
      spdlog::warn("continue with: ufl train --resume {}", out.string());
      return int(kInterrupted);
    }
    const double wall_seconds = finish();

    const auto& metrics = analysis.metrics;
    spdlog::info(
        "done in {:.1f}s: test_mse {:.5f} (optimum {:.5f}, best fixed {:.5f}), η {:.4f}, η_fix "
        "{:.4f}",
        wall_seconds, metrics.value("test_mse", 0.0), metrics.value("optimal_mse", 0.0),
        metrics.value("fixed_mse", 0.0), metrics.value("eta", 0.0), metrics.value("eta_fix", 0.0));
    if (metrics.contains("verdict"))
      spdlog::info("verdict: {} (emerged: {}, claimed: {})",
                   metrics.value("verdict", std::string()), metrics.value("emerged", false),
                   metrics.value("claimed", std::string()));
    else
      spdlog::info("layers became: {}", analysis::layer_verdicts_text(metrics));
    spdlog::info("wrote {}", out.string());
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
