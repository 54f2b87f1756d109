#pragma once
// The denoise task's training session (docs/experiment.md §2): the model's output Y against the
// clean target C by the mean squared error, plus the orthogonality penalty of the layers that have
// U and V; the held-out metric is the test MSE.
#include "data/dataset.hpp"
#include "model/evaluate.hpp"
#include "task/loss.hpp"
#include "train/session.hpp"

namespace ufl::task {

class DenoiseSession : public train::Session {
 public:
  DenoiseSession(const data::Dataset& dataset, model::Model<float>& model, int batch,
                 double ortho_weight);

  int train_count() const override { return dataset_.train.count; }
  void load_sample(int slot, int index) override;
  Tape<float>& tape() override { return tape_; }
  Var loss() const override { return loss_.loss; }
  double task_loss() const override { return tape_.value(loss_.mse).data[0]; }
  double penalty() const override { return tape_.value(loss_.orthogonality).data[0]; }
  double evaluate(int observed,
                  const std::function<void(const model::SampleOutputs&)>& observe) override;
  std::vector<std::string> kernels() const override;

 private:
  const data::Dataset& dataset_;
  Tape<float> tape_;
  model::ModelGraph<float> graph_;
  LossGraph<float> loss_;
  model::Evaluator evaluator_;
};

}  // namespace ufl::task
