// The next_token task inside `ufl train` and `ufl analyze` (docs/transformer.md): token data
// (text or mqar), a model with token and position embeddings and a tied unembedding, and at the end
// the validation loss in nats and bits, the accuracy, and what each head became.
#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <utility>

#include "analysis/block_heads.hpp"
#include "analysis/gate_trajectory.hpp"
#include "analysis/next_token_heads.hpp"
#include "data/corpus_identity.hpp"
#include "io/stop_request.hpp"
#include "model/initialize.hpp"
#include "results/run_writer.hpp"
#include "run/task_run.hpp"
#include "task/label_scores.hpp"
#include "task/next_token_session.hpp"

namespace ufl::run {
namespace {

class NextTokenRun : public TaskRun {
 public:
  NextTokenRun(const config::Config& config, const task::TaskRecord& record)
      : config_(config),
        record_(record),
        data_(data::generate_tokens(config.dataset, config.dataset_seed)),
        model_(config.dataset.n, 0, config.model, config.layer,
               task::make_token_ends<float>(int(data_.vocab.size()))) {
    model::initialize(model_, config.seed);
    if (analysis::GateTrajectory::applies(model_))
      gates_ = std::make_unique<analysis::GateTrajectory>(model_);
  }

  const task::TaskRecord& record() const override { return record_; }
  model::Model<float>& model() override { return model_; }
  train::Session& session() override {
    if (!session_)
      session_ = std::make_unique<task::NextTokenSession>(data_, model_, config_.train.batch_size);
    return *session_;
  }
  void release_session() override { session_.reset(); }
  train::EvaluationProbe* probe() override { return gates_.get(); }
  std::string describe() const override {
    const config::Config& c = config_;
    return fmt::format(
        "{} data ({} tokens, vocabulary {}), {}, n={}, {} {} block{} of "
        "width {} with {} head{}, {} parameters",
        c.dataset.kind, data_.train.stream.size() + data_.validation.stream.size(),
        data_.vocab.size(), model::mixing_text(c.layer), c.dataset.n, c.model.depth, c.model.block,
        c.model.depth == 1 ? "" : "s", c.model.width, c.layer.heads, c.layer.heads == 1 ? "" : "s",
        model_.params.values.size());
  }
  void write_curves(const std::filesystem::path& folder,
                    const train::TrainResult& training) override {
    results::write_loss_curve(folder, training.curve,
                              {record_.loss_column, record_.metric_column, record_.bits,
                               task::held_out_columns(data_.validation)});
    if (gates_) results::write_trajectory(folder, gates_->columns(), training.probe_rows);
  }
  nlohmann::json analyze(const std::filesystem::path& folder) override {
    task::TokenEvaluator evaluator(model_, data_.validation.count(), model::LayerKernels::kFused,
                                   task::reported_labels(data_.validation));
    const task::TokenScores scores = evaluator.score(data_.validation);
    interrupt::throw_if_stop_requested("analysis");
    nlohmann::json metrics;
    metrics["task"] = config_.task.kind;
    metrics["dataset"] = config_.dataset.kind;
    metrics["mixer"] = model::mixers_text(config_.layer);
    metrics["block"] = config_.model.block;
    metrics["depth"] = config_.model.depth;
    metrics["width"] = model_.width;
    metrics["heads"] = config_.layer.heads;
    metrics["vocab"] = data_.vocab.size();
    metrics["parameters"] = model_.params.values.size();
    metrics["validation_loss"] = scores.loss;
    metrics["validation_bits"] = scores.loss / std::numbers::ln2;
    metrics["validation_accuracy"] = scores.accuracy;
    metrics["validation_windows"] = data_.validation.count();
    // Data whose positions carry two or more scored labels: each label apart (its positions
    // pooled over the windows; docs/transformer.md §13).
    for (const task::LabelScores& label : scores.labels)
      metrics["labels"][label.name] = {{"validation_loss", label.loss},
                                       {"validation_bits", label.loss / std::numbers::ln2},
                                       {"validation_accuracy", label.accuracy},
                                       {"positions", label.positions}};
    metrics["layers"] = analysis::analyze_heads(model_, data_.validation, analysis::kHeadWindows,
                                                config_.analysis, folder);
    // The seeds' measures (docs/head_structure.md §2), beside the same model at its start.
    model::Model<float> initial = model_;
    model::initialize(initial, config_.seed);
    results::write_json(
        folder / "heads.json",
        analysis::head_structure(model_, initial, data_.validation, analysis::kStructureWindows));
    metrics["head_structure"] = "heads.json";
    return metrics;
  }
  std::vector<std::string> report(const nlohmann::json& metrics) const override {
    std::vector<std::string> lines;
    lines.push_back(fmt::format(
        "validation loss {:.4f} nats ({:.4f} bits) per token, accuracy {:.3f}, over {} windows",
        metrics.value("validation_loss", 0.0), metrics.value("validation_bits", 0.0),
        metrics.value("validation_accuracy", 0.0), metrics.value("validation_windows", 0)));
    if (const std::string labels = task::label_scores_text(metrics); !labels.empty())
      lines.push_back(labels);
    const std::string heads = analysis::heads_text(metrics);
    if (!heads.empty()) lines.push_back("heads became: " + heads);
    return lines;
  }
  std::vector<std::string> figure_scripts() const override {
    return {"head_map.py", "head_structure.py"};
  }
  void write_inputs(const std::filesystem::path& folder) const override {
    results::write_json(folder / "vocab.json", data_.vocab);
  }
  nlohmann::json data_record() const override {
    nlohmann::json record = nlohmann::json::object();
    if (!data_.files.empty()) record["files"] = data::corpus_record(data_.files);
    if (!data_.skipped_files.empty()) record["skipped_files"] = data_.skipped_files;
    return record;
  }

 private:
  config::Config config_;
  const task::TaskRecord& record_;
  data::TokenDataset data_;
  model::Model<float> model_;
  std::unique_ptr<task::NextTokenSession> session_;
  std::unique_ptr<analysis::GateTrajectory> gates_;  // heads with a learned gate only
};

}  // namespace

std::unique_ptr<TaskRun> start_next_token(const config::Config& config,
                                          const task::TaskRecord& record, const std::string&) {
  return std::make_unique<NextTokenRun>(config, record);
}

}  // namespace ufl::run
