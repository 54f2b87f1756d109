// The attention mixer: hand-set, it is softmax(X W_Q W_Kᵀ Xᵀ) X W_V computed directly; it is the
// universal layer with its gate open (the same kernels, the same numbers); its gradients match
// finite differences, alone and inside a stack.
#include "model/mixers/attention.hpp"

#include <doctest/doctest.h>

#include "../layer_runner.hpp"
#include "../model_gradient.hpp"
#include "mixer_properties.hpp"

using namespace ufl;
using namespace ufl::model;
using ufl::testing::check_properties;
using ufl::testing::model_of;
using ufl::testing::random_inputs;
using ufl::testing::run_model;

namespace {

AttentionParameters<double> attention_layer(Model<double>& model, int l = 0) {
  auto views = model.mixer_parameters(l);
  using Mixer = AttentionMixer<double>;
  return {model.part(l).shape, views[Mixer::kA], views[Mixer::kB], views[Mixer::kS], model.w_v(l)};
}

}  // namespace

TEST_CASE("attention: what it is — M = softmax(S) of its input, no gate") {
  check_properties("attention", {.input_dependent = true,
                                 .softmax_branch = true,
                                 .has_factors = true,
                                 .config_keys = {"layer.rank", "layer.content_init_scale"}});
}

TEST_CASE("attention: its parameters are A, B and s (no gate), and it reports γ = 1") {
  const Model<double> model = model_of(4, 2, 3, "attention");
  std::vector<std::string> names;
  for (const ParameterSlice& slice : model.params.slices) names.push_back(slice.name);
  CHECK(names == std::vector<std::string>{"A", "B", "s", "W_v"});
  CHECK(model.part(0).mixer->gate(model.mixer_parameters(0)) == 1.0);
}

TEST_CASE("attention hand-set: Y = softmax(X W_Q W_Kᵀ Xᵀ) X W_V, computed directly") {
  const int n = 6, d = 4, r = 5, k = 3;
  Model<double> model = model_of(n, d, r, "attention");
  const auto weights = random_inputs(3, d, d, 21);
  const Eigen::MatrixXd query = weights[0].leftCols(k), key = weights[1].leftCols(k);
  const Eigen::MatrixXd value = weights[2];
  set_attention(attention_layer(model), query, key, value);
  const auto inputs = random_inputs(4, n, d, 22);
  const auto run = run_model(model, inputs);
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    const Eigen::MatrixXd& x = inputs[s];
    const Eigen::MatrixXd scores = (x * query) * (x * key).transpose();
    Eigen::MatrixXd rows(n, n);
    for (int i = 0; i < n; ++i) {
      const Eigen::RowVectorXd e = (scores.row(i).array() - scores.row(i).maxCoeff()).exp();
      rows.row(i) = e / e.sum();
    }
    CHECK((run.Y[s] - rows * x * value).cwiseAbs().maxCoeff() < 1e-12);
  }
}

// The fused kernels compute (1−γ)S + γ·softmax(S) = 0·S + softmax(S) exactly; the composite
// graph's lerp S + γ(softmax(S) − S) rounds, so it agrees to 1e-13.
TEST_CASE("attention is the universal layer with γ = 1: the same loss and gradients") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    Model<double> attention = model_of(7, 3, 5, "attention");
    Model<double> universal = model_of(7, 3, 5, "universal");
    data::Rng rng(3, data::Stream::kMonteCarlo);
    for (double& value : attention.params.values) value = 0.4 * rng.normal();
    // The universal layer's A, B, s and W_v are attention's; its g makes γ = 1 in double.
    for (const ParameterSlice& slice : universal.params.slices) {
      double* into = universal.params.values.data() + slice.offset;
      if (slice.tensor == "g") {
        *into = 40.0;
        continue;
      }
      for (const ParameterSlice& other : attention.params.slices)
        if (other.tensor == slice.tensor)
          std::copy_n(attention.params.values.data() + other.offset, slice.size(), into);
    }
    auto run = [kernels](Model<double>& model) {
      Tape<double> tape;
      data::Rng inputs(5, data::Stream::kMonteCarlo);
      const auto recorded =
          testing::record_with_random_inputs(tape, model, 3, 0.5, kernels, inputs);
      tape.forward();
      tape.backward(recorded.loss.loss);
      return tape.value(recorded.loss.loss).data[0];
    };
    auto same = [kernels](double a, double b) {
      return kernels == LayerKernels::kFused ? a == b
                                             : std::abs(a - b) <= 1e-13 * (1 + std::abs(b));
    };
    CHECK(same(run(attention), run(universal)));
    for (const ParameterSlice& slice : attention.params.slices)
      for (const ParameterSlice& other : universal.params.slices)
        if (other.tensor == slice.tensor)
          for (std::size_t e = 0; e < slice.size(); ++e)
            CHECK(same(attention.params.grads[slice.offset + e],
                       universal.params.grads[other.offset + e]));
  }
}

TEST_CASE("attention + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels :
       {LayerKernels::kComposite, LayerKernels::kDense, LayerKernels::kStructured}) {
    CAPTURE(int(kernels));
    CHECK(testing::model_gradient_error(model_of(5, 3, 4, "attention"), 3, 0, 1, kernels) <= 1e-6);
    CHECK(testing::model_gradient_error(model_of(3, 5, 7, "attention"), 2, 0, 2, kernels) <= 1e-6);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_of(5, 3, 4, "attention", 2, residual), 3, 0, 3,
                                          kernels) <= 1e-6);
    }
  }
}

TEST_CASE("attention: the fused kernel gives the composite graph's loss terms and gradients") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    const auto composite = testing::loss_and_gradients(model_of(7, 3, 5, "attention", depth),
                                                       LayerKernels::kComposite);
    const auto fused =
        testing::loss_and_gradients(model_of(7, 3, 5, "attention", depth), LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(fused.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-13));
    CHECK(testing::gradient_difference(fused, composite) <= 1e-13);
    // the structured kernel, with its gate open, too (it sums in another order: 1e-12)
    const auto structured = testing::loss_and_gradients(model_of(7, 3, 5, "attention", depth),
                                                        LayerKernels::kStructured);
    CHECK(structured.loss == doctest::Approx(composite.loss).epsilon(1e-12));
    CHECK(structured.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-12));
    CHECK(testing::gradient_difference(structured, composite) <= 1e-12);
  }
}
