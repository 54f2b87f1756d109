#include "task/denoise_session.hpp"

#include <cstring>

namespace ufl::task {

DenoiseSession::DenoiseSession(const data::Dataset& dataset, model::Model<float>& model, int batch,
                               double ortho_weight)
    : dataset_(dataset), evaluator_(model, dataset.test.count) {
  graph_ = model::record_model(tape_, model, batch, true);
  loss_ = record_loss(tape_, graph_, ortho_weight);
  tape_.plan();
}

void DenoiseSession::load_sample(int slot, int index) {
  const data::SampleSet& set = dataset_.train;
  const std::size_t sample_size = static_cast<std::size_t>(set.n) * set.d;
  std::memcpy(tape_.value(graph_.x).data + slot * sample_size, set.input(index),
              sample_size * sizeof(float));
  std::memcpy(tape_.value(loss_.target).data + slot * sample_size, set.target(index),
              sample_size * sizeof(float));
}

double DenoiseSession::evaluate(int observed,
                                const std::function<void(const model::SampleOutputs&)>& observe) {
  return evaluator_.mse(dataset_.test, observed, observe);
}

std::vector<std::string> DenoiseSession::kernels() const {
  std::vector<std::string> names;
  for (const model::BlockGraph& block : graph_.blocks) names.push_back(block.kernel);
  return names;
}

}  // namespace ufl::task
