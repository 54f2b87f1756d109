// ufl analyze: recompute a saved run's measurements from its config and parameters.
#include <spdlog/spdlog.h>

#include "analysis/measure.hpp"
#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "results/run_writer.hpp"

namespace ufl::cli {

int run_analyze(const AnalyzeArguments& arguments) {
  return report_errors([&] {
    const std::filesystem::path run = arguments.run_dir;
    if (!std::filesystem::is_regular_file(run / "config.json") ||
        !std::filesystem::is_regular_file(run / "manifest.json"))
      throw BadInput(run.string() +
                     " is not a run folder (no config.json or manifest.json); pass a folder "
                     "written by 'ufl train'");
    for (const std::string& assignment : arguments.overrides)
      if (assignment.rfind("analysis.", 0) != 0)
        throw BadInput(
            "--set " + assignment +
            ": analyze can only change analysis.* thresholds; retrain to change anything else");
    const config::Config config = config::load_config(run / "config.json", arguments.overrides);
    const data::Dataset dataset =
        arguments.data_dir.empty()
            ? data::generate(config.dataset, config.seed)
            : data::load_dataset(arguments.data_dir, config.dataset, config.seed,
                                 config::to_json(config)["dataset"]);
    model::Model<float> model(config.dataset.n, config.dataset.d, config.model, config.layer);
    try {
      results::read_parameters(run, model.params);
    } catch (const io::IoError& error) {
      throw BadInput(error.what());  // a damaged run folder is input the user must fix
    }
    analysis::RunAnalysis analysis = analysis::analyze_model(dataset, model, config.analysis);
    analysis.metrics["name"] = config.name;
    analysis.metrics["seed"] = config.seed;
    // Training status comes from the manifest, as `ufl train` wrote it.
    const auto manifest =
        nlohmann::json::parse(io::read_file(run / "manifest.json"), nullptr, false);
    if (manifest.is_object()) {
      analysis.metrics["complete"] = manifest.value("status", std::string()) == "complete";
      analysis.metrics["steps_done"] = manifest.value("steps_done", config.train.steps);
    }
    results::write_analysis(run, analysis);
    results::write_json(run / "config.json", config::to_json(config));
    const auto& metrics = analysis.metrics;
    if (metrics.contains("verdict"))
      spdlog::info("{}: η {:.4f}, η_fix {:.4f}, verdict {} (emerged: {})", run.string(),
                   metrics.value("eta", 0.0), metrics.value("eta_fix", 0.0),
                   metrics.value("verdict", std::string("?")), metrics.value("emerged", false));
    else
      spdlog::info("{}: η {:.4f}, η_fix {:.4f}, layers became: {}", run.string(),
                   metrics.value("eta", 0.0), metrics.value("eta_fix", 0.0),
                   analysis::layer_verdicts_text(metrics));
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
