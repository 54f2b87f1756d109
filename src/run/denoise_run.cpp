// The denoise task inside `ufl train` and `ufl analyze` (docs/experiment.md): synthetic float
// data (generated from the config, or a --data folder), the score trajectory while training,
// and at the end every measurement against the optimum and the best fixed operator.
#include <fmt/format.h>

#include "analysis/block_heads.hpp"
#include "analysis/block_measure.hpp"
#include "analysis/measure.hpp"
#include "analysis/trajectory.hpp"
#include "analysis/verdict_sentence.hpp"
#include "config/load.hpp"
#include "data/dataset_files.hpp"
#include "model/initialize.hpp"
#include "results/run_writer.hpp"
#include "run/task_run.hpp"
#include "task/denoise_session.hpp"

namespace ufl::run {
namespace {

class DenoiseRun : public TaskRun {
 public:
  DenoiseRun(const config::Config& config, const task::TaskRecord& record,
             const std::string& data_dir)
      : config_(config),
        record_(record),
        dataset_(data_dir.empty()
                     ? data::generate(config.dataset, config.dataset_seed)
                     : data::load_dataset(data_dir, config.dataset, config.dataset_seed,
                                          config::to_json(config)["dataset"])),
        model_(config.dataset.n, config.dataset.d, config.model, config.layer) {
    model::initialize(model_, config.seed);
    // The trajectory reads the first layer's operator of a stack measured layer by layer.
    if (!model_.kind->measured_by_head())
      trajectory_ = std::make_unique<analysis::ScoreTrajectory>(dataset_);
  }

  const task::TaskRecord& record() const override { return record_; }
  model::Model<float>& model() override { return model_; }
  train::Session& session() override {
    if (!session_)
      session_ = std::make_unique<task::DenoiseSession>(dataset_, model_, config_.train.batch_size,
                                                        config_.train.ortho_weight);
    return *session_;
  }
  void release_session() override { session_.reset(); }
  train::EvaluationProbe* probe() override { return trajectory_.get(); }
  std::string describe() const override {
    const config::Config& c = config_;
    return fmt::format("{} data, {} mixer, n={} d={} r={}{}", c.dataset.kind, c.layer.mixer,
                       c.dataset.n, c.dataset.d, c.layer.rank,
                       model_.kind->stack_text(c.model, c.dataset.d));
  }
  void write_curves(const std::filesystem::path& folder,
                    const train::TrainResult& training) override {
    results::write_loss_curve(folder, training.curve,
                              {record_.loss_column, record_.metric_column, record_.bits});
    if (trajectory_) results::write_trajectory(folder, trajectory_->columns(), training.probe_rows);
  }
  nlohmann::json analyze(const std::filesystem::path& folder) override {
    if (model_.kind->measured_by_head())
      return analysis::analyze_blocks(dataset_, model_, config_.analysis, folder);
    analysis::RunAnalysis analysis = analysis::analyze_model(dataset_, model_, config_.analysis);
    for (const analysis::NamedArray& array : analysis.arrays) results::write_array(folder, array);
    return analysis.metrics;
  }
  std::vector<std::string> figure_scripts() const override {
    // Section 8 and 7 draw theirs in their reports.
    if (!model_.kind->measured_by_head()) return {};
    return {"head_map.py"};
  }
  std::vector<std::string> report(const nlohmann::json& metrics) const override {
    std::vector<std::string> lines;
    lines.push_back(fmt::format(
        "test_mse {:.5f} (optimum {:.5f}, best fixed {:.5f}), η {:.4f}, η_fix {:.4f}",
        metrics.value("test_mse", 0.0), metrics.value("optimal_mse", 0.0),
        metrics.value("fixed_mse", 0.0), metrics.value("eta", 0.0), metrics.value("eta_fix", 0.0)));
    if (metrics.contains("verdict"))
      lines.push_back(analysis::verdict_sentence(metrics));
    else if (metrics.contains("layer_verdicts"))  // a stack: one verdict per layer
      lines.push_back("layers became: " + analysis::layer_verdicts_text(metrics));
    if (const std::string heads = analysis::heads_text(metrics); !heads.empty())
      lines.push_back("heads became: " + heads);
    if (metrics.contains("explanation"))
      lines.push_back("why: " + metrics["explanation"].get<std::string>());
    return lines;
  }

 private:
  config::Config config_;
  const task::TaskRecord& record_;
  data::Dataset dataset_;
  model::Model<float> model_;
  std::unique_ptr<analysis::ScoreTrajectory> trajectory_;
  std::unique_ptr<task::DenoiseSession> session_;
};

}  // namespace

std::unique_ptr<TaskRun> start_denoise(const config::Config& config, const task::TaskRecord& record,
                                       const std::string& data_dir) {
  return std::make_unique<DenoiseRun>(config, record, data_dir);
}

}  // namespace ufl::run
