// ufl train: config → dataset → layer → trainer → run folder (with analysis). The run folder's
// lock, crash-safe checkpoints in the staging folder, resumes and interrupts are described in
// docs/running.md.
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "cli/commands.hpp"
#include "cli/data_folder.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_guard.hpp"
#include "cli/stop_signals.hpp"
#include "cli/thread_request.hpp"
#include "cli/utc_time.hpp"
#include "config/difference.hpp"
#include "config/load.hpp"
#include "data/corpus_identity.hpp"
#include "data/dataset_files.hpp"
#include "data/registry.hpp"
#include "io/atomic_file.hpp"
#include "io/available_memory.hpp"
#include "io/io_error.hpp"
#include "io/log.hpp"
#include "io/run_folder.hpp"
#include "io/stale_staging.hpp"
#include "io/stop_request.hpp"
#include "results/figures.hpp"
#include "results/run_writer.hpp"
#include "run/task_run.hpp"
#include "task/registry.hpp"
#include "tensor/kernel_rate.hpp"
#include "train/checkpoint.hpp"
#include "train/resource_estimate.hpp"
#include "train/run_status.hpp"
#include "train/thread_count.hpp"
#include "ufl/version.hpp"

namespace ufl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::unique_ptr<io::RunFolder> open_run_folder(const fs::path& path, bool force) {
  try {
    return std::make_unique<io::RunFolder>(path, force);
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // an existing or unwritable --out is the user's to fix
  }
}

// The folder's manifest.json; an empty object when there is none (or it does not parse).
json read_manifest(const fs::path& folder) {
  if (!fs::is_regular_file(folder / "manifest.json")) return json::object();
  const json manifest = json::parse(io::read_file(folder / "manifest.json"), nullptr, false);
  return manifest.is_object() ? manifest : json::object();
}

// The settings that decide a run's results differ: all of the resolved config except
// train.checkpoint_every, which only decides when checkpoints are written. "" when they agree,
// else the keys with both values ("dataset.noise (0.1 given, 0.5 in run/config.json)").
std::string settings_difference(const json& first, const json& second,
                                const std::string& first_name, const std::string& second_name) {
  return config::describe_differences(
      config::differing_settings(first, second, {"train.checkpoint_every"}), first_name,
      second_name);
}

// A run folder's config.json must still be the config it trained with (manifest.json "config",
// written by runs since that key exists): an edited config.json would resume, or be analysed,
// with other settings than those that made the parameters.
void check_config_unedited(const fs::path& folder, const json& manifest,
                           const config::Config& config) {
  if (!manifest.contains("config") || !manifest["config"].is_object()) return;
  const std::string difference = settings_difference(config::to_json(config), manifest["config"],
                                                     "in config.json", "when it trained");
  if (!difference.empty())
    throw BadInput((folder / "config.json").string() +
                   " was edited after the run was trained: " + difference +
                   "; restore it (the trained settings are in manifest.json \"config\"), or "
                   "train the new settings into another --out");
}

// The run's config: the file, then --set and --seed, then with --data the data's seed from the
// folder's dataset.json when neither gave dataset.seed (the rule is in docs/seeds.md).
config::Config load_run_config(const std::string& config_path,
                               const std::vector<std::string>& overrides,
                               const std::string& data_dir) {
  if (data_dir.empty()) return config::load_config(config_path, overrides);
  // A kind that reads no folder is refused before the folder's dataset.json is looked for.
  check_data_folder(config::load_config(config_path, overrides), data_dir);
  const std::vector<config::Fallback> fallbacks = {
      {"dataset.seed", data::dataset_folder_seed(data_dir),
       (fs::path(data_dir) / "dataset.json").string()}};
  return config::load_config(config_path, overrides, fallbacks);
}

// A checkpoint to resume from: an interrupted run folder's, or the last one a killed process
// left in its staging folder.
struct ResumeSource {
  fs::path folder;
  bool crashed = false;  // a dead process's staging folder
  config::Config config;
  json manifest;
  train::TrainingState state;
};

ResumeSource read_interrupted_run(const fs::path& run) {
  const fs::path manifest_path = run / "manifest.json", checkpoint = run / "checkpoint.bin";
  if (!fs::is_regular_file(manifest_path))
    throw BadInput(
        run.string() +
        " is not a run folder (no manifest.json); --resume takes the folder of an interrupted run");
  ResumeSource source;
  source.folder = run;
  source.manifest = read_manifest(run);
  const std::string status = source.manifest.value("status", std::string("?"));
  if (train::status_from_name(status) != train::TrainStatus::kInterrupted ||
      !fs::is_regular_file(checkpoint))
    throw BadInput(run.string() + " is " + status +
                   ", not an interrupted run with a checkpoint; nothing to resume");
  source.config = config::load_config(run / "config.json");
  check_config_unedited(run, source.manifest, source.config);
  try {
    source.state = train::read_checkpoint(checkpoint);
  } catch (const io::IoError& error) {
    throw BadInput(error.what());  // a damaged checkpoint is input the user must replace
  }
  return source;
}

// The checkpoint in a dead process's staging folder, if it holds a usable one.
std::optional<ResumeSource> read_crashed_run(const io::StaleStaging& staging) {
  const fs::path checkpoint = staging.path / "checkpoint.bin";
  if (!fs::is_regular_file(checkpoint) || !fs::is_regular_file(staging.path / "config.json"))
    return std::nullopt;
  try {
    ResumeSource source;
    source.folder = staging.path;
    source.crashed = true;
    source.manifest = read_manifest(staging.path);
    source.config = config::load_config(staging.path / "config.json");
    check_config_unedited(staging.path, source.manifest, source.config);
    source.state = train::read_checkpoint(checkpoint);
    return source;
  } catch (const std::exception& error) {
    spdlog::warn("ignoring {}: {}", checkpoint.string(), error.what());
    return std::nullopt;
  }
}

// The most advanced checkpoint among the crashed staging folders.
std::optional<ResumeSource> best_crashed_run(const std::vector<io::StaleStaging>& stale) {
  std::optional<ResumeSource> best;
  for (const io::StaleStaging& staging : stale)
    if (auto source = read_crashed_run(staging))
      if (!best || source->state.steps_done > best->state.steps_done) best = std::move(source);
  return best;
}

// A resume must train on the data the checkpoint was made on: the same corpus (manifest.json
// "data" records each file's size and hash; docs/transformer.md §4), the same number of training
// windows and parameters. Refused before the staging folder holds a checkpoint, so that nothing
// of the refusal stays on disk.
void check_resume_data(const ResumeSource& source, const json& data_now, run::TaskRun& run,
                       const fs::path& out) {
  const std::string start_over = ", or train the new data from the start: ufl train " +
                                 (source.folder / "config.json").string() + " --out ANOTHER_FOLDER";
  // The change says what undoes it (restore a file, move an added one out).
  if (const std::string change =
          data::corpus_change(source.manifest.value("data", json::object()), data_now);
      !change.empty())
    throw BadInput("the corpus of " + out.string() + " changed since it trained: " + change +
                   start_over);
  const std::size_t parameters = run.model().params.values.size();
  const std::size_t windows = std::size_t(run.session().train_count());
  if (source.state.params.size() != parameters || source.state.sampler_order.size() != windows)
    throw BadInput("the checkpoint in " + source.folder.string() + " was made with " +
                   std::to_string(source.state.params.size()) + " parameters and " +
                   std::to_string(source.state.sampler_order.size()) +
                   " training windows, and the data read now make " + std::to_string(parameters) +
                   " and " + std::to_string(windows) +
                   ": the data changed since it trained; restore them" + start_over);
}

// The list of invocations that made the run (manifest "invocations"): the source's, then ours.
json invocations(const std::optional<ResumeSource>& source, const std::string& command_line) {
  json list = json::array();
  if (source) {
    const json& manifest = source->manifest;
    if (manifest.contains("invocations") && manifest["invocations"].is_array())
      list = manifest["invocations"];
    else if (manifest.contains("command"))  // a run written before invocations were recorded
      list.push_back({{"command", manifest["command"]}});
  }
  json ours = {{"command", command_line},
               {"started_at", utc_now()},
               {"pid", ::getpid()},
               {"host", io::host_name()}};
  if (source) ours["resumed_from_step"] = source->state.steps_done;
  list.push_back(ours);
  return list;
}

struct RunRecord {
  config::Config config;
  std::string data_dir;
  json data = json::object();  // what the task read (text: files read and skipped)
  json invocations;
  std::string started_at;
  json analyses;  // `ufl analyze` records of an interrupted run, kept by its resume
};

// The manifest of a run that ended with `status`, or of one still running (none).
json manifest_json(const RunRecord& run, std::optional<train::TrainStatus> status) {
  json manifest = {{"ufl_version", kVersion},
                   {"git_commit", kGitCommit},
                   {"status", status ? train::status_name(*status) : "running"},
                   {"complete", status == train::TrainStatus::kComplete},
                   {"seed", run.config.seed},
                   {"mixer", model::mixers_text(run.config.layer)},
                   {"threads", omp_get_max_threads()},
                   {"steps", run.config.train.steps},
                   {"host", io::host_name()},
                   {"pid", ::getpid()},
                   {"command", run.invocations.front().value("command", std::string())},
                   {"invocations", run.invocations},
                   {"data_dir", run.data_dir},
                   {"config", config::to_json(run.config)}};
  if (!run.data.empty()) manifest["data"] = run.data;
  if (run.analyses.is_array() && !run.analyses.empty()) manifest["analyses"] = run.analyses;
  return manifest;
}

json finished_manifest(const RunRecord& run, const train::TrainResult& training,
                       double wall_seconds) {
  json manifest = manifest_json(run, training.status);
  manifest["steps_done"] = training.steps_done;
  manifest["train_seconds"] = training.seconds;
  manifest["wall_seconds"] = wall_seconds;
  manifest["steps_per_second"] = training.steps_per_second;
  manifest["trajectory_seconds"] = training.probe_seconds;
  manifest["kernels"] = training.kernels;  // per layer: the kernel that computed it
  // This process's peak resident memory (a resumed run's covers the part after the resume).
  manifest["peak_memory_bytes"] = io::peak_resident_bytes();
  manifest["finished_at"] = utc_now();
  if (!training.message.empty()) manifest["error"] = training.message;
  return manifest;
}

// What makes a fresh model's first loss non-finite, for the message of a run that diverged at
// step 1 (docs/running.md, "Divergence").
std::string initialisation_hint(const config::Config& config) {
  if (config.model.depth > 1 && !config.model.residual)
    return "; a stack of model.depth = " + std::to_string(config.model.depth) +
           " layers without model.residual feeds each layer's output, at its initial scale, to "
           "the next, and the scale compounds; set model.residual = true or lower model.depth";
  return "; lower layer.content_init_scale, or check the data's scale";
}

// Refuses a run that does not fit in memory (exit 2, before anything large is allocated) and
// prints the estimate, its time from the kernel rate measured on this machine; returns it.
train::ResourceEstimate check_resources(const config::Config& config, bool from_files, bool quiet) {
  // Files that cannot be data (a corpus that is not text) are refused first, from a bounded
  // prefix, rather than estimated from their sizes or read whole.
  if (const data::DatasetKind* kind = data::find_dataset_kind(config.dataset.kind);
      kind != nullptr && kind->check_files && !from_files)
    kind->check_files(config.dataset);
  const train::ResourceEstimate estimate =
      train::estimate_resources(config.dataset, config.layer, config.model, config.train,
                                omp_get_max_threads(), from_files, measured_kernel_gflops());
  const io::AvailableMemory memory = io::available_memory();
  if (memory.usable() >= 0 && estimate.peak_bytes > memory.usable())
    throw BadInput("this run needs about " + estimate.memory_text() + "; more than the " +
                   memory.describe() + " available; lower " + estimate.keys_to_lower());
  if (quiet) return estimate;
  spdlog::info("memory: about {} of {} available", estimate.memory_text(),
               memory.usable() < 0 ? std::string("?") : io::format_bytes(memory.usable()));
  spdlog::info("time: {}", estimate.time_text(config.train.steps));
  if (memory.usable() >= 0 && estimate.peak_bytes > 0.8 * memory.usable())
    spdlog::warn("this run needs {} of the {} available", io::format_bytes(estimate.peak_bytes),
                 io::format_bytes(memory.usable()));
  return estimate;
}

// The run a `ufl train` invocation asks for: its folder and, unless it resumes a folder without a
// CONFIG, the config given (file, --set, --seed).
struct RunRequest {
  fs::path out;
  std::optional<config::Config> given;
};

RunRequest read_request(const TrainArguments& arguments) {
  RunRequest request;
  if (!arguments.resume.empty()) {
    request.out = arguments.resume;
    if (!arguments.config_path.empty()) {
      // The data folder is the one given, else the one the interrupted run recorded.
      std::string data_dir = arguments.data_dir;
      if (data_dir.empty()) data_dir = read_manifest(request.out).value("data_dir", std::string());
      request.given = load_run_config(arguments.config_path, arguments.overrides, data_dir);
    } else if (!arguments.overrides.empty()) {
      throw BadInput("--set and --seed cannot change an interrupted run; give only --resume " +
                     request.out.string());
    }
    return request;
  }
  if (arguments.config_path.empty())
    throw BadInput(arguments.continue_run ? "--continue needs a CONFIG file"
                                          : "ufl train needs a CONFIG file (or --resume RUN_DIR)");
  request.given = load_run_config(arguments.config_path, arguments.overrides, arguments.data_dir);
  request.out =
      arguments.out.empty() ? fs::path("results") / request.given->name : fs::path(arguments.out);
  return request;
}

// How a run starts (docs/running.md): from step 0 (a new folder, or --force over a crash), from a
// checkpoint (--resume; --continue of an interrupted or crashed run), or not at all (--continue of
// a complete run).
enum class RunStart { kFresh, kFromCheckpoint, kAlreadyComplete };

// The most advanced of an interrupted folder's checkpoint and a crashed staging folder's.
std::optional<ResumeSource> further(std::optional<ResumeSource> source,
                                    std::optional<ResumeSource> crashed) {
  if (crashed && (!source || crashed->state.steps_done > source->state.steps_done)) return crashed;
  return source;
}

// One `ufl train`, as its phases: decide how the run starts, open its staging folder, train, and
// write the folder as the training ended (diverged, interrupted, or complete with its analysis).
class TrainCommand {
 public:
  // `wall_start`: when the command began; `signals`: installed before the config was read.
  TrainCommand(const TrainArguments& arguments, RunRequest request,
               std::chrono::steady_clock::time_point wall_start, StopSignals& signals)
      : arguments_(arguments),
        wall_start_(wall_start),
        signals_(signals),
        out_(std::move(request.out)),
        given_(std::move(request.given)),
        guard_(out_) {}

  int run() {
    if (decide_start() == RunStart::kAlreadyComplete) {
      guard_.remove_stale();
      spdlog::info("{} is complete; nothing to do", out_.string());
      return int(kSuccess);
    }
    open_staging();
    // A failure from here on (a full disk while writing a checkpoint or the run) keeps the
    // staging folder when it holds a checkpoint, for --continue, rather than removing it.
    try {
      const train::TrainResult training = train();
      // Stopped in order: what follows writes the run folder, which the watchdog must not cut.
      if (training.status == train::TrainStatus::kInterrupted) interrupt::acknowledge_stop();
      run_->write_curves(staging(), training);
      if (training.status == train::TrainStatus::kDiverged) write_diverged(training);
      results::write_parameters(staging(), run_->model());
      if (training.status == train::TrainStatus::kInterrupted) return write_interrupted(training);
      return write_complete(training);
    } catch (const interrupt::Interrupted&) {
      throw;  // the run folder, if any, is as it was
    } catch (const io::IoError& error) {
      const int step = checkpoint_step_.load();
      if (step < 0 || folder_->committed()) throw;
      folder_->keep_staging();
      throw io::IoError(std::string(error.what()) + "; the checkpoint of step " +
                        std::to_string(step) + " is kept in " + staging().string() +
                        ": once that is fixed, resume with ufl train --resume " + out_.string());
    } catch (...) {
      const int step = checkpoint_step_.load();
      if (step >= 0 && !folder_->committed()) {
        folder_->keep_staging();
        spdlog::warn("the checkpoint of step {} is kept in {}: resume with ufl train --resume {}",
                     step, staging().string(), out_.string());
      }
      throw;
    }
  }

 private:
  const fs::path& staging() const { return folder_->staging(); }

  // What the folder holds decides the start: a finished run's status (none when it holds no run)
  // and the checkpoints that killed processes left beside it. Sets source_ and record_.
  RunStart decide_start() {
    const std::optional<train::TrainStatus> status = train::recorded_status(out_);
    std::optional<ResumeSource> crashed = best_crashed_run(guard_.stale());
    if (!arguments_.resume.empty()) {
      std::optional<ResumeSource> interrupted;
      if (status == train::TrainStatus::kInterrupted || !crashed)
        interrupted = read_interrupted_run(out_);
      source_ = further(std::move(interrupted), std::move(crashed));
      if (given_) refuse_other_settings(*given_, source_->folder / "config.json");
    } else if (arguments_.continue_run) {
      const fs::path settings_file = status    ? out_ / "config.json"
                                     : crashed ? crashed->folder / "config.json"
                                               : fs::path();
      if (!settings_file.empty())
        if (const std::string difference = settings_difference(
                config::to_json(*given_), config::to_json(config::load_config(settings_file)),
                "given", "in " + settings_file.string());
            !difference.empty())
          throw BadInput(out_.string() + " holds a run with other settings: " + difference +
                         "; choose another --out");
      if (status == train::TrainStatus::kComplete) return RunStart::kAlreadyComplete;
      if (status == train::TrainStatus::kDiverged)
        throw train::Diverged(out_.string() + " diverged before; see its manifest.json");
      std::optional<ResumeSource> interrupted;
      if (status == train::TrainStatus::kInterrupted) interrupted = read_interrupted_run(out_);
      source_ = further(std::move(interrupted), std::move(crashed));
    } else if (crashed && !arguments_.force) {
      throw BadInput("a run of " + out_.string() + " killed at step " +
                     std::to_string(crashed->state.steps_done) + " left a checkpoint in " +
                     crashed->folder.string() +
                     "; resume it with --continue, or pass --force to start over");
    }

    record_.config = source_ ? source_->config : *given_;
    check_data_folder(record_.config, arguments_.data_dir);
    record_.data_dir = arguments_.data_dir;
    // A token run never read a folder, whatever an older ufl recorded for it.
    if (record_.data_dir.empty() && source_ && takes_data_folder(record_.config))
      record_.data_dir = source_->manifest.value("data_dir", "");
    record_.invocations = invocations(source_, arguments_.command_line);
    // What `ufl analyze` recorded on the interrupted run stays with it (docs/analyze.md).
    if (source_) record_.analyses = read_manifest(out_).value("analyses", json::array());
    return source_ ? RunStart::kFromCheckpoint : RunStart::kFresh;
  }

  // --resume with a CONFIG must give the settings the interrupted run trained with.
  void refuse_other_settings(const config::Config& given, const fs::path& settings_file) const {
    if (const std::string difference =
            settings_difference(config::to_json(given), config::to_json(source_->config), "given",
                                "in " + settings_file.string());
        !difference.empty())
      throw BadInput(arguments_.config_path + " (with --set/--seed) differs from " +
                     settings_file.string() + ": " + difference +
                     "; resume with the same settings, or give only --resume");
  }

  // The staging folder holds the run's config, a "running" manifest and its checkpoints until
  // the run is written; a killed process leaves it for --continue. An --out that cannot be used
  // is refused before the estimate is printed: one line, like any bad input.
  void open_staging() {
    const config::Config& config = record_.config;
    folder_ = open_run_folder(out_, arguments_.force || source_.has_value());
    estimate_ = check_resources(config, !record_.data_dir.empty(), arguments_.quiet);
    if (source_ && fs::is_directory(out_ / "metrics_history"))
      io::link_tree(out_ / "metrics_history", staging() / "metrics_history");
    results::write_json(staging() / "config.json", config::to_json(config));
    results::write_json(staging() / "manifest.json", manifest_json(record_, std::nullopt));
    signals_.on_emergency([this, resuming = source_.has_value()] {
      // Stopped inside a computation that cannot check the request: the staging folder stays
      // for --continue when it holds a checkpoint, and goes when it does not.
      const int step = checkpoint_step_.load();
      if (step < 0) {
        std::error_code ignored;
        fs::remove_all(staging(), ignored);
        std::fprintf(stderr, resuming ? "ufl: interrupted; the run is as it was before\n"
                                      : "ufl: interrupted before the first checkpoint; nothing "
                                        "kept\n");
      } else {
        std::fprintf(stderr,
                     "ufl: interrupted; the checkpoint of step %d is kept in %s: resume with "
                     "ufl train --resume %s\n",
                     step, staging().c_str(), out_.c_str());
      }
    });
  }

  // Reads or draws the data, builds the model and trains it from step 0 or the checkpoint.
  train::TrainResult train() {
    const config::Config& config = record_.config;
    // The data follow dataset.seed; the initialisation and the minibatches follow seed.
    run_ = run::start_run(config, record_.data_dir);
    // Recorded absolute, so that `ufl analyze` and --resume find it from any folder.
    if (!record_.data_dir.empty())
      record_.data_dir = fs::absolute(record_.data_dir).lexically_normal().string();
    record_.data = run_->data_record();
    if (source_) check_resume_data(*source_, record_.data, *run_, out_);
    results::write_json(staging() / "manifest.json", manifest_json(record_, std::nullopt));
    run_->write_inputs(staging());

    // From here the staging folder holds the resume point, so the leftovers can go.
    if (source_) {
      train::write_checkpoint(staging() / "checkpoint.bin", source_->state);
      checkpoint_step_ = source_->state.steps_done;
    }
    guard_.remove_stale();

    // Unless --threads or OMP_NUM_THREADS fixed it, the thread count follows the cores other
    // work leaves free, measured now and every 2 s between steps (train/thread_count.hpp).
    train::ThreadGovernor governor(!threads_fixed(arguments_.threads), omp_get_max_threads());
    governor.start();
    const int threads = omp_get_max_threads();
    spdlog::info(
        "train '{}': {}, {} steps of {} on {} thread{}{} → {}{}", config.name, run_->describe(),
        config.train.steps, config.train.batch_size, threads, threads == 1 ? "" : "s",
        governor.active() ? " (following the free cores; --threads fixes it)" : "", out_.string(),
        source_ ? " (resuming after step " + std::to_string(source_->state.steps_done) + ")" : "");

    train::TrainOptions options;
    options.quiet = arguments_.quiet;
    options.stop_requested = interrupt::stop_flag();
    if (source_) options.resume_from = &source_->state;
    options.probe = run_->probe();
    options.metric_name = run_->record().metric_column;
    // The estimate was made for the threads of its time; the governor may use fewer.
    options.estimated_seconds_per_step =
        estimate_.seconds_per_step * estimate_.threads / std::max(threads, 1);
    options.estimated_gflops_per_thread = estimate_.gflops_per_thread;
    options.after_step = [&governor](int) { governor.update(); };
    options.on_checkpoint = [this](const train::TrainingState& state) {
      train::write_checkpoint(staging() / "checkpoint.bin", state);
      checkpoint_step_ = state.steps_done;
    };
    return train::train_session(config.train, config.seed, run_->session(), run_->model(), options);
  }

  // The manifest of the ended run; the staging folder becomes the run folder.
  double commit(const train::TrainResult& result) {
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    results::write_json(staging() / "manifest.json",
                        finished_manifest(record_, result, wall_seconds));
    folder_->commit();
    return wall_seconds;
  }

  // The trainer left the parameters that gave the last finite loss (docs/running.md).
  [[noreturn]] void write_diverged(const train::TrainResult& training) {
    results::write_parameters(staging(), run_->model());
    train::TrainResult diverged = training;
    // Not finite before any update: the cause is the model as initialised, not train.lr.
    if (training.curve.size() == 1 && !source_)
      diverged.message += initialisation_hint(record_.config);
    commit(diverged);
    throw train::Diverged(diverged.message + " (recorded in " + out_.string() + "/manifest.json)");
  }

  // An interrupted run keeps its state at the last step boundary and no fresh measurements:
  // metrics.json says only how far it got (docs/running.md).
  int write_interrupted(train::TrainResult result) {
    interrupt::acknowledge_stop();
    result.status = train::TrainStatus::kInterrupted;
    train::write_checkpoint(staging() / "checkpoint.bin", result.state);
    results::write_json(staging() / "metrics.json", {{"name", record_.config.name},
                                                     {"seed", record_.config.seed},
                                                     {"complete", false},
                                                     {"steps_done", result.steps_done}});
    commit(result);
    spdlog::warn("interrupted after step {}/{}; checkpoint in {}", result.steps_done,
                 record_.config.train.steps, out_.string());
    spdlog::warn("continue with: ufl train --resume {}", out_.string());
    return int(kInterrupted);
  }

  // The analysis can take long at large n: until it is written, the staging folder holds the
  // finished training's state, so a kill or Ctrl-C meanwhile loses no training. The phase
  // honours a stop like training does: the run is written as interrupted with the final
  // checkpoint, and --resume redoes this phase only (docs/running.md).
  int write_complete(const train::TrainResult& training) {
    train::write_checkpoint(staging() / "checkpoint.bin", training.state);
    checkpoint_step_ = training.steps_done;
    run_->release_session();
    json metrics;
    try {
      metrics = run_->analyze(staging());
      metrics["name"] = record_.config.name;
      metrics["seed"] = record_.config.seed;
      metrics["complete"] = true;
      metrics["steps_done"] = training.steps_done;
      results::write_json(staging() / "metrics.json", metrics);
      for (const std::string& script : run_->figure_scripts())
        if (const std::string problem = results::draw_figure(script, staging()); !problem.empty())
          spdlog::warn("{}", problem);
      interrupt::throw_if_stop_requested("the analysis");
    } catch (const interrupt::Interrupted&) {
      return write_interrupted(training);
    }
    fs::remove(staging() / "checkpoint.bin");
    const double wall_seconds = commit(training);

    const std::vector<std::string> lines = run_->report(metrics);
    for (std::size_t k = 0; k < lines.size(); ++k)
      spdlog::info("{}{}", k == 0 ? fmt::format("done in {:.1f}s: ", wall_seconds) : "", lines[k]);
    spdlog::info("wrote {}", out_.string());
    return int(kSuccess);
  }

  const TrainArguments& arguments_;
  const std::chrono::steady_clock::time_point wall_start_;
  StopSignals& signals_;
  fs::path out_;
  std::optional<config::Config> given_;
  const RunGuard guard_;  // one process per run folder, and what earlier runs left there
  std::optional<ResumeSource> source_;
  RunRecord record_;
  std::unique_ptr<io::RunFolder> folder_;
  std::unique_ptr<run::TaskRun> run_;
  std::atomic<int> checkpoint_step_{-1};
  train::ResourceEstimate estimate_;  // the time the cost model foresaw
};

}  // namespace

int run_train(const TrainArguments& arguments) {
  return report_errors([&] {
    const auto wall_start = std::chrono::steady_clock::now();
    StopSignals signals;
    RunRequest request = read_request(arguments);
    return TrainCommand(arguments, std::move(request), wall_start, signals).run();
  });
}

}  // namespace ufl::cli
