// The distance mixer (model/mixers/distance.hpp): the universal layer's parameters and draws;
// hand-set, its M is (1−γ)S + γ·softmax(S) with S_ij = −½ Σ_k σ_k (U_ik − V_jk)² computed directly;
// the dense fused kernel (every fused choice) gives the composite graph's loss and gradients, and
// both match finite differences in double.
#include "model/mixers/distance.hpp"

#include <doctest/doctest.h>

#include <utility>

#include "../layer_runner.hpp"
#include "../model_gradient.hpp"
#include "mixer_properties.hpp"
#include "model/initialize.hpp"

using namespace ufl;
using namespace ufl::model;
using ufl::testing::check_properties;
using ufl::testing::model_of;
using ufl::testing::random_inputs;
using ufl::testing::run_model;

TEST_CASE("distance: what it is — the universal layer's form with distance scores") {
  check_properties("distance",
                   {.input_dependent = true,
                    .softmax_branch = true,
                    .learned_gate = true,
                    .distance_scores = true,
                    .has_factors = true,
                    .config_keys = {"layer.rank", "layer.content_init_scale", "layer.gate_init"}});
}

TEST_CASE("distance: the universal layer's parameters, drawn the same at one seed") {
  Model<double> distance = model_of(6, 3, 4, "distance");
  Model<double> universal = model_of(6, 3, 4, "universal");
  initialize(distance, 5);
  initialize(universal, 5);
  REQUIRE(distance.params.slices.size() == universal.params.slices.size());
  for (std::size_t i = 0; i < distance.params.slices.size(); ++i)
    CHECK(distance.params.slices[i].name == universal.params.slices[i].name);
  CHECK(distance.params.values == universal.params.values);
  const auto views = std::as_const(distance).mixer_parameters(0);
  CHECK(distance.part(0).mixer->gate(views) == doctest::Approx(0.5));
  CHECK(distance.part(0).mixer->has_factors());
  CHECK(distance.part(0).mixer->learned_gate());
  CHECK(distance.part(0).mixer->factors(views, distance.part(0).shape).has_value());
}

TEST_CASE("distance hand-set: S_ij = −½ Σ_k σ_k (U_ik − V_jk)², M and Y computed directly") {
  const int n = 5, d = 3, r = 4;
  for (double gate_logit : {-1.0, 0.7}) {
    CAPTURE(gate_logit);
    Model<double> model = model_of(n, d, r, "distance");
    auto views = model.mixer_parameters(0);
    using Mixer = DistanceMixer<double>;
    const Eigen::MatrixXd a = 0.5 * random_inputs(1, d + n + 1, r, 31)[0];
    const Eigen::MatrixXd b = 0.5 * random_inputs(1, d + n + 1, r, 32)[0];
    const Eigen::VectorXd sigma = (Eigen::VectorXd(r) << 0.5, 1.0, 2.0, 0.25).finished();
    views[Mixer::kA] = a;
    views[Mixer::kB] = b;
    for (int k = 0; k < r; ++k) views[Mixer::kS](0, k) = inverse_softplus(sigma(k));
    views[Mixer::kG](0, 0) = gate_logit;
    const Eigen::MatrixXd w_v = random_inputs(1, d, d, 33)[0];
    model.w_v(0) = w_v;
    const double gamma = 1 / (1 + std::exp(-gate_logit));
    const auto inputs = random_inputs(3, n, d, 34);
    const auto run = run_model(model, inputs);
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      Eigen::MatrixXd tilde(n, d + n + 1);  // [X, e_i, 1]
      tilde << inputs[s], Eigen::MatrixXd::Identity(n, n), Eigen::VectorXd::Ones(n);
      const Eigen::MatrixXd u = tilde * a, v = tilde * b;
      Eigen::MatrixXd scores(n, n), m(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          scores(i, j) =
              -0.5 * (sigma.array() * (u.row(i) - v.row(j)).transpose().array().square()).sum();
      for (int i = 0; i < n; ++i) {
        const Eigen::RowVectorXd e = scores.row(i).array().exp();
        m.row(i) = (1 - gamma) * scores.row(i) + gamma * e / e.sum();
      }
      CHECK((run.M[s] - m).cwiseAbs().maxCoeff() < 1e-12);
      CHECK((run.Y[s] - m * inputs[s] * w_v).cwiseAbs().maxCoeff() < 1e-12);
    }
  }
}

TEST_CASE(
    "distance: every fused choice runs the dense kernel, with the composite graph's loss "
    "terms and gradients") {
  for (LayerKernels kernels :
       {LayerKernels::kFused, LayerKernels::kDense, LayerKernels::kStructured}) {
    for (int depth : {1, 2}) {
      CAPTURE(int(kernels));
      CAPTURE(depth);
      const auto composite = testing::loss_and_gradients(model_of(7, 3, 5, "distance", depth),
                                                         LayerKernels::kComposite);
      const auto fused = testing::loss_and_gradients(model_of(7, 3, 5, "distance", depth), kernels);
      CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
      CHECK(fused.mse == doctest::Approx(composite.mse).epsilon(1e-13));
      CHECK(fused.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-13));
      CHECK(testing::gradient_difference(fused, composite) <= 1e-12);
    }
    Model<double> model = model_of(7, 3, 5, "distance");
    Tape<double> tape;
    const auto graph = record_model(tape, model, 4, true, kernels);
    CHECK(graph.blocks.front().kernel == "dense");
  }
}

TEST_CASE("distance + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    for (double gate_logit : {-2.0, 0.0, 2.0}) {
      CAPTURE(int(kernels));
      CAPTURE(gate_logit);
      CHECK(testing::model_gradient_error(model_of(5, 3, 4, "distance"), 3, gate_logit, 1,
                                          kernels) <= 1e-6);
      CHECK(testing::model_gradient_error(model_of(3, 5, 7, "distance"), 2, gate_logit, 2,
                                          kernels) <= 1e-6);
    }
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_of(5, 3, 4, "distance", 2, residual), 3, 0.5, 3,
                                          kernels) <= 1e-6);
    }
  }
}
