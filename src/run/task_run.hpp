#pragma once
// What `ufl train` and `ufl analyze` do that depends on the task (task/registry.hpp): read or
// draw the data, build and initialise the model, train it through a session, and at the end
// write the task's files (loss.csv, its analysis) and say what the run learned. The commands do
// the rest (the run folder, the lock, checkpoints, resumes, signals) for every task alike.
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "model/model.hpp"
#include "task/registry.hpp"
#include "train/evaluation_probe.hpp"
#include "train/session.hpp"
#include "train/trainer.hpp"

namespace ufl::run {

class TaskRun {
 public:
  virtual ~TaskRun() = default;
  // The task's record (its loss.csv columns, its metric), resolved once when the run started.
  virtual const task::TaskRecord& record() const = 0;
  virtual model::Model<float>& model() = 0;
  // The training session (built on first use: analysis alone needs none).
  virtual train::Session& session() = 0;
  // Frees the session's tapes once training is over, so that a run's peak memory is the larger
  // of training's and the analysis's, not their sum (docs/transformer.md §8).
  virtual void release_session() = 0;
  virtual train::EvaluationProbe* probe() = 0;  // more measurements at each evaluation; or null
  // What the run is, for the "train '…': …" log line (after the name).
  virtual std::string describe() const = 0;
  // loss.csv, and the probe's rows where there is a probe.
  virtual void write_curves(const std::filesystem::path& folder,
                            const train::TrainResult& training) = 0;
  // Measures the trained model, writes the analysis files into `folder` and returns metrics.json
  // (the caller adds name, seed, complete, steps_done and writes it). Throws
  // interrupt::Interrupted on a stop request.
  virtual nlohmann::json analyze(const std::filesystem::path& folder) = 0;
  // Log lines about the finished run, from its metrics.
  virtual std::vector<std::string> report(const nlohmann::json& metrics) const = 0;
  // Files the run folder needs beside the parameters from the start (next_token: vocab.json).
  virtual void write_inputs(const std::filesystem::path&) const {}
  // The scripts/ that draw this run's figures from its folder (results/figures.hpp).
  virtual std::vector<std::string> figure_scripts() const { return {}; }
  // The manifest's record of the data read (next_token text: the files read and skipped).
  virtual nlohmann::json data_record() const { return nlohmann::json::object(); }
};

// Resolves the task config.task.kind names (task/registry.hpp) and starts its run: reads or draws
// the data of `config` (from `data_dir` when given) and builds and initialises the model. Each
// task's run is in its own file here, run/<task>_run.cpp.
std::unique_ptr<TaskRun> start_run(const config::Config& config, const std::string& data_dir);

}  // namespace ufl::run
