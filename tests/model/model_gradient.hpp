#pragma once
// The gradient check of a whole model with its loss: the tape's gradients of the loss with
// respect to every parameter against central finite differences in double (model_test.cpp and
// each mixer's test use it).
#include <algorithm>
#include <cmath>

#include "data/rng.hpp"
#include "model/model.hpp"
#include "task/loss.hpp"

namespace ufl::testing {

struct RecordedModel {
  model::ModelGraph<double> model;
  task::LossGraph<double> loss;
};

// Records the model with its loss on `tape`, plans it, and fills X and C with standard normals.
inline RecordedModel record_with_random_inputs(Tape<double>& tape, model::Model<double>& model,
                                               int batch, double ortho_weight,
                                               model::LayerKernels kernels, data::Rng& rng) {
  RecordedModel recorded;
  recorded.model = model::record_model(tape, model, batch, true, kernels);
  recorded.loss = task::record_loss(tape, recorded.model, ortho_weight);
  tape.plan();
  for (Var input : {recorded.model.x, recorded.loss.target}) {
    auto tensor = tape.value(input);
    for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = rng.normal();
  }
  return recorded;
}

// Relative error (max |analytic − numeric| / max |numeric|) of the gradients the last
// backward(loss) left in `params` against central differences of `loss` over every parameter.
inline double parameter_gradient_error(model::Parameters<double>& params, Tape<double>& tape,
                                       Var loss) {
  const std::vector<double> analytic = params.grads;
  double max_error = 0, max_numeric = 0;
  for (std::size_t e = 0; e < params.values.size(); ++e) {
    const double original = params.values[e];
    const double step = 1e-6 * std::max(1.0, std::abs(original));
    params.values[e] = original + step;
    tape.forward();
    const double plus = tape.value(loss).data[0];
    params.values[e] = original - step;
    tape.forward();
    const double minus = tape.value(loss).data[0];
    params.values[e] = original;
    const double numeric = (plus - minus) / (2 * step);
    max_error = std::max(max_error, std::abs(numeric - analytic[e]));
    max_numeric = std::max(max_numeric, std::abs(numeric));
  }
  return max_error / max_numeric;
}

// The model's loss on random data against central differences, over every parameter of the
// model, whose values are drawn as 0.5·N(0, 1) (a gate logit g, where the mixer has one, is set
// to `gate_logit`).
inline double model_gradient_error(model::Model<double> model, int batch, double gate_logit,
                                   std::uint64_t seed, model::LayerKernels kernels) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (double& value : model.params.values) value = 0.5 * rng.normal();
  for (const model::ParameterSlice& slice : model.params.slices)
    if (slice.tensor == "g") model.params.values[slice.offset] = gate_logit;
  Tape<double> tape;
  const RecordedModel recorded = record_with_random_inputs(tape, model, batch, 0.3, kernels, rng);
  tape.forward();
  tape.backward(recorded.loss.loss);
  return parameter_gradient_error(model.params, tape, recorded.loss.loss);
}

// What one forward and backward of a model with its loss computed.
struct LossAndGradients {
  double loss, mse, orthogonality;
  std::vector<double> grads;
};

// The loss terms and gradients of `model` (its parameters drawn as 0.4·N(0, 1)) on 4 random
// samples, recorded with `kernels`.
inline LossAndGradients loss_and_gradients(model::Model<double> model,
                                           model::LayerKernels kernels) {
  data::Rng rng(11, data::Stream::kMonteCarlo);
  for (double& value : model.params.values) value = 0.4 * rng.normal();
  Tape<double> tape;
  const RecordedModel recorded = record_with_random_inputs(tape, model, 4, 0.7, kernels, rng);
  tape.forward();
  tape.backward(recorded.loss.loss);
  return {tape.value(recorded.loss.loss).data[0], tape.value(recorded.loss.mse).data[0],
          tape.value(recorded.loss.orthogonality).data[0], model.params.grads};
}

// max |fused − composite| over the gradients, relative to the largest composite gradient; the
// loss terms are compared by the caller.
inline double gradient_difference(const LossAndGradients& fused,
                                  const LossAndGradients& composite) {
  double largest = 0, difference = 0;
  for (std::size_t e = 0; e < composite.grads.size(); ++e) {
    largest = std::max(largest, std::abs(composite.grads[e]));
    difference = std::max(difference, std::abs(fused.grads[e] - composite.grads[e]));
  }
  return difference / largest;
}

}  // namespace ufl::testing
