// ufl analyze: recompute a saved run's measurements from its parameters and the data it was
// trained on, keeping the previous metrics and recording what changed (docs/analyze.md).
#include <cstdio>
#include <ctime>

#include "cli/commands.hpp"
#include "cli/data_folder.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_guard.hpp"
#include "cli/stop_signals.hpp"
#include "cli/utc_time.hpp"
#include "config/difference.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "io/stop_request.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "io/run_folder.hpp"
#include "io/run_lock.hpp"
#include "results/run_writer.hpp"
#include "run/task_run.hpp"
#include "train/run_status.hpp"

namespace ufl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& path) {
  const json value = json::parse(io::read_file(path), nullptr, false);
  if (!value.is_object())
    throw BadInput(path.string() +
                   " is not a JSON object; is this a run folder written by 'ufl "
                   "train'?");
  return value;
}

// The data the run was trained on: --data if given, else the folder its manifest records, else
// none (the run generated its data from the config, and so does the analysis).
std::string data_folder(const AnalyzeArguments& arguments, const config::Config& config,
                        const json& manifest, const fs::path& run) {
  check_data_folder(config, arguments.data_dir);
  if (!arguments.data_dir.empty()) return arguments.data_dir;
  // A token run reads no folder (an older ufl recorded the --data it ignored).
  if (!takes_data_folder(config)) return "";
  const json recorded = manifest.value("data_dir", json(""));
  const std::string folder = recorded.is_string() ? recorded.get<std::string>() : "";
  std::error_code ignored;  // a folder that cannot be read is as good as gone
  if (!folder.empty() && !fs::is_directory(folder, ignored))
    throw BadInput(run.string() + " was trained on the data in " + folder +
                   " (manifest.json data_dir), which is gone; restore it, or pass --data with a "
                   "folder holding the same data");
  return folder;
}

// metrics_history/metrics-K.json for the first K not yet taken.
fs::path next_history_file(const fs::path& run) {
  for (int k = 1;; ++k) {
    const fs::path file = fs::path("metrics_history") / ("metrics-" + std::to_string(k) + ".json");
    if (!fs::exists(run / file)) return file;
  }
}

}  // namespace

int run_analyze(const AnalyzeArguments& arguments) {
  return report_errors([&] {
    // Ctrl-C and SIGTERM stop the analysis within a second, with exit code 130 and the run folder
    // as it was (docs/running.md), also when a script started it in the background.
    StopSignals signals;
    const fs::path run = arguments.run_dir;
    std::error_code ignored;
    if (!fs::is_regular_file(run / "config.json", ignored) ||
        !fs::is_regular_file(run / "manifest.json", ignored)) {
      // A run still training has no folder yet, only its staging folder and its lock: say who
      // holds it rather than that it is not a run (RunGuard throws "in use by process N").
      if (fs::exists(io::RunLock::lock_path(run), ignored)) {
        const RunGuard in_use(run, RunGuard::Use::kExisting);
      }
      throw BadInput(run.string() +
                     " is not a run folder (no config.json or manifest.json); pass a folder "
                     "written by 'ufl train'");
    }
    // Not while another process trains (or resumes) this run.
    const RunGuard guard(run, RunGuard::Use::kExisting);
    for (const std::string& assignment : arguments.overrides)
      if (assignment.rfind("analysis.", 0) != 0)
        throw BadInput(
            "--set " + assignment +
            ": analyze can only change analysis.* thresholds; retrain to change anything else");
    const config::Config written = config::load_config(run / "config.json");
    json manifest = read_json(run / "manifest.json");
    // The thresholds may change (that is what analyze is for); anything else in config.json must
    // be what the run trained with (manifest.json "config", in runs that record it), or the
    // saved parameters would be scored on other data.
    const bool recorded = manifest.contains("config") && manifest["config"].is_object();
    const json written_settings = config::to_json(written);
    std::vector<std::string> thresholds_keys;
    for (auto& [key, value] : written_settings["analysis"].items())
      thresholds_keys.push_back("analysis." + key);
    if (recorded)
      if (const auto edits =
              config::differing_settings(written_settings, manifest["config"], thresholds_keys);
          !edits.empty())
        throw BadInput((run / "config.json").string() + " was edited after the run was trained: " +
                       config::describe_differences(edits, "in config.json", "when it trained") +
                       "; restore it (the trained settings are in manifest.json \"config\"); "
                       "analyze changes only analysis.* thresholds, with --set");
    // The thresholds before: as the run last recorded them. A threshold edited by hand in
    // config.json counts as changed by this analysis, as --set would.
    const config::Config before =
        recorded ? config::parse_config(manifest["config"].dump(), (run / "manifest.json").string())
                 : written;
    const config::Config config = config::load_config(run / "config.json", arguments.overrides);
    const std::string data_dir = data_folder(arguments, config, manifest, run);
    const std::unique_ptr<run::TaskRun> task_run = run::start_run(config, data_dir);
    try {
      results::read_parameters(run, task_run->model().params);
    } catch (const io::IoError& error) {
      throw BadInput(error.what());  // a damaged run folder is input the user must fix
    }
    // All of the analysis's files or none: they are written into a copy of the run folder (hard
    // links: no space) that replaces it in one rename at the end.
    io::RunFolder folder(run, /*force=*/true);
    // Stopped where no check can be made: the copy goes, the run folder stays as it was.
    signals.on_emergency([staging = folder.staging()] {
      std::error_code ignored;
      fs::remove_all(staging, ignored);
      std::fprintf(stderr, "ufl: the analysis interrupted; the run folder is as it was\n");
    });
    io::link_tree(run, folder.staging());
    const fs::path& out = folder.staging();
    json metrics = task_run->analyze(out);
    // A stopped analysis returns early with partial results: none of them is written.
    interrupt::throw_if_stop_requested("the analysis");
    metrics["name"] = config.name;
    metrics["seed"] = config.seed;
    // Training status comes from the manifest, as `ufl train` wrote it.
    metrics["complete"] = train::status_from_name(manifest.value("status", std::string())) ==
                          train::TrainStatus::kComplete;
    metrics["steps_done"] = manifest.value("steps_done", config.train.steps);

    // What changed: the thresholds given with --set, and the verdict they lead to.
    json record = {{"at", utc_now()},
                   {"command", arguments.command_line},
                   {"data_dir", data_dir.empty() ? json("") : json(data_dir)}};
    json thresholds = json::object();
    const json old_analysis = config::to_json(before)["analysis"];
    const json new_analysis = config::to_json(config)["analysis"];
    for (auto& [key, value] : new_analysis.items())
      if (old_analysis.value(key, json()) != value)
        thresholds["analysis." + key] = {{"from", old_analysis.value(key, json())}, {"to", value}};
    record["thresholds"] = thresholds;

    // The previous metrics are kept whenever the new ones differ (docs/analyze.md).
    std::string kept;
    if (fs::is_regular_file(run / "metrics.json")) {
      const std::string previous_text = io::read_file(run / "metrics.json");
      const json previous = json::parse(previous_text, nullptr, false);
      if (previous_text != metrics.dump(2) + "\n") {  // as results::write_json writes it
        const fs::path history = next_history_file(run);
        fs::create_directories(out / history.parent_path());
        io::write_file_atomic(out / history, previous_text);
        kept = history.string();
        record["previous_metrics"] = kept;
        for (const char* key : {"verdict", "emerged", "claim_holds", "eta"})
          if (previous.is_object() && previous.value(key, json()) != metrics.value(key, json()))
            record[key] = {{"from", previous.value(key, json())},
                           {"to", metrics.value(key, json())}};
      }
    }
    results::write_json(out / "metrics.json", metrics);
    // config.json: only the thresholds change, and only when --set gave new ones; every other
    // key stays as training wrote it. The manifest's record of the settings follows, so that a
    // resume or a later analysis sees the thresholds as this one left them.
    if (!thresholds.empty()) {
      json written_json = read_json(run / "config.json");
      if (!written_json.contains("analysis") || !written_json["analysis"].is_object())
        written_json["analysis"] = json::object();
      for (auto& [key, value] : new_analysis.items())
        if (old_analysis.value(key, json()) != value) {
          written_json["analysis"][key] = value;
          if (recorded) manifest["config"]["analysis"][key] = value;
        }
      results::write_json(out / "config.json", written_json);
    }
    if (!manifest.contains("analyses") || !manifest["analyses"].is_array())
      manifest["analyses"] = json::array();
    manifest["analyses"].push_back(record);
    results::write_json(out / "manifest.json", manifest);
    folder.commit();
    signals.on_emergency(
        [] { std::fprintf(stderr, "ufl: interrupted; the analysis was written before\n"); });

    const std::vector<std::string> lines = task_run->report(metrics);
    for (std::size_t k = 0; k < lines.size(); ++k)
      spdlog::info("{}{}", k == 0 ? run.string() + ": " : "", lines[k]);
    if (kept.empty())
      spdlog::info("metrics unchanged; analysis recorded in {}", (run / "manifest.json").string());
    else
      spdlog::info("previous metrics kept in {}; what changed is in manifest.json \"analyses\"",
                   (run / kept).string());
    return int(kSuccess);
  });
}

}  // namespace ufl::cli
