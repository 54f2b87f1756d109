// ufl train: config → dataset → layer → trainer → run folder (with analysis).
#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>

#include "analysis/measure.hpp"
#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/io_error.hpp"
#include "io/run_folder.hpp"
#include "model/initialize.hpp"
#include "results/run_writer.hpp"
#include "ufl/version.hpp"

namespace ufl::cli {
namespace {

std::atomic<bool> stop_requested{false};
extern "C" void request_stop(int) { stop_requested.store(true); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::unique_ptr<io::RunFolder> open_run_folder(const std::filesystem::path& path, bool force) {
  try {
    return std::make_unique<io::RunFolder>(path, force);
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // an existing or unwritable --out is the user's to fix
  }
}

}  // namespace

int run_train(const TrainArguments& arguments) {
  return report_errors([&] {
    const auto wall_start = std::chrono::steady_clock::now();
    const config::Config config = config::load_config(arguments.config_path, arguments.overrides);
    const std::filesystem::path out =
        arguments.out.empty() ? std::filesystem::path("results") / config.name
                              : std::filesystem::path(arguments.out);
    auto folder = open_run_folder(out, arguments.force);

    const data::Dataset dataset = arguments.data_dir.empty()
                                      ? data::generate(config.dataset, config.seed)
                                      : data::load_dataset(arguments.data_dir, config.dataset, config.seed);
    model::Parameters<float> params(
        model::LayerShape{config.dataset.n, config.dataset.d, config.layer.rank});
    model::initialize(params, config.layer.content_init_scale, config.seed);

    const int threads = omp_get_max_threads();
    spdlog::info("train '{}': {} data, n={} d={} r={}, {} steps of {} on {} thread{} → {}", config.name,
                 config.dataset.kind, config.dataset.n, config.dataset.d, config.layer.rank,
                 config.train.steps, config.train.batch_size, threads, threads == 1 ? "" : "s",
                 out.string());

    stop_requested.store(false);
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    train::TrainOptions options;
    options.quiet = arguments.quiet;
    options.stop_requested = &stop_requested;
    const train::TrainResult training = train::train_layer(config, dataset, params, options);
    if (training.interrupted) {
      spdlog::warn("interrupted at step {}; no run folder written", training.steps_done);
      return int(kInterrupted);
    }

    const analysis::RunAnalysis analysis = analysis::analyze_layer(config, dataset, params);
    const auto& staging = folder->staging();
    results::write_json(staging / "config.json", config::to_json(config));
    results::write_parameters(staging, params);
    results::write_loss_curve(staging, training.curve);
    results::write_analysis(staging, analysis);
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    results::write_json(staging / "manifest.json",
                        {{"ufl_version", kVersion},
                         {"git_commit", kGitCommit},
                         {"seed", config.seed},
                         {"threads", threads},
                         {"steps", training.steps_done},
                         {"train_seconds", training.seconds},
                         {"wall_seconds", wall_seconds},
                         {"steps_per_second", training.steps_per_second},
                         {"finished_at", utc_now()},
                         {"host", host},
                         {"command", arguments.command_line},
                         {"data", arguments.data_dir.empty() ? "generated in memory" : arguments.data_dir},
                         {"complete", true}});
    folder->commit();

    const auto& metrics = analysis.metrics;
    spdlog::info("done in {:.1f}s: test_mse {:.5f} (optimum {:.5f}, best fixed {:.5f}), η {:.4f}, η_fix {:.4f}",
                 wall_seconds, metrics.value("test_mse", 0.0), metrics.value("optimal_mse", 0.0),
                 metrics.value("fixed_mse", 0.0), metrics.value("eta", 0.0), metrics.value("eta_fix", 0.0));
    if (metrics.contains("verdict"))
      spdlog::info("verdict: {} (emerged: {}, claimed: {})", metrics.value("verdict", std::string()),
                   metrics.value("emerged", false), metrics.value("claimed", std::string()));
    spdlog::info("wrote {}", out.string());
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
