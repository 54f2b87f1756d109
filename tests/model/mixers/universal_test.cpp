// The seed's claim, as a test: with hand-set parameters the universal mixer computes exactly
// attention, a convolution, a Fourier projection and a truncated SVD (seed 000 §3-5, spec §2).
// Each is checked against the operator computed directly, not through the layer's own formula.
#include "model/mixers/universal.hpp"

#include <doctest/doctest.h>

#include <complex>
#include <numbers>

#include "../../support/classical_operators.hpp"
#include "../layer_runner.hpp"
#include "mixer_properties.hpp"
#include "task/loss.hpp"

using namespace ufl;
using namespace ufl::model;
using task::LossGraph;
using task::record_loss;
using ufl::testing::check_properties;
using ufl::testing::model_of;
using ufl::testing::random_inputs;
using ufl::testing::run_model;
using ufl::testing::universal_layer;

namespace {
double max_abs_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff();
}
}  // namespace

TEST_CASE("universal: what it is — M from its input, softmax branch and linear one blended by γ") {
  check_properties("universal",
                   {.input_dependent = true,
                    .softmax_branch = true,
                    .learned_gate = true,
                    .has_factors = true,
                    .config_keys = {"layer.rank", "layer.content_init_scale", "layer.gate_init"}});
}

TEST_CASE("attention: Y = softmax(X W_Q W_Kᵀ Xᵀ) X W_V") {
  const int n = 6, d = 4, r = 5, k = 3;
  Model<double> model = model_of(n, d, r);
  const auto weights = random_inputs(3, d, d, 11);
  const Eigen::MatrixXd query = weights[0].leftCols(k), key = weights[1].leftCols(k);
  const Eigen::MatrixXd value = weights[2];
  set_attention(universal_layer(model), query, key, value);
  const auto inputs = random_inputs(4, n, d, 12);
  const auto run = run_model(model, inputs);
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    const Eigen::MatrixXd& x = inputs[s];
    Eigen::MatrixXd scores = (x * query) * (x * key).transpose();
    Eigen::MatrixXd weights_rows(n, n);
    for (int i = 0; i < n; ++i) {
      const Eigen::RowVectorXd e = (scores.row(i).array() - scores.row(i).maxCoeff()).exp();
      weights_rows.row(i) = e / e.sum();
    }
    CHECK(max_abs_difference(run.Y[s], weights_rows * x * value) < 1e-12);
  }
}

TEST_CASE("convolution: M is the Toeplitz matrix T_w of the kernel, Y = T_w X") {
  const int n = 10, d = 3;
  Model<double> model = model_of(n, d, n);
  const std::vector<double> taps = {0.25, 0.5, 1.0, 0.5, 0.25};
  set_position_operator(universal_layer(model), toeplitz_from_taps(n, taps),
                        Eigen::VectorXd::Ones(n), Eigen::MatrixXd::Identity(n, n));
  const auto inputs = random_inputs(2, n, d, 13);
  const auto run = run_model(model, inputs);
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    Eigen::MatrixXd convolved = Eigen::MatrixXd::Zero(n, d);  // y_i = Σ_t taps_t x_{i+t−2}
    for (int i = 0; i < n; ++i)
      for (int t = 0; t < 5; ++t)
        if (i + t - 2 >= 0 && i + t - 2 < n) convolved.row(i) += taps[t] * inputs[s].row(i + t - 2);
    CHECK(max_abs_difference(run.Y[s], convolved) < 1e-12);
  }
}

TEST_CASE("Fourier: M projects onto the kept frequencies, as the DFT computes it") {
  const int n = 16, d = 2;
  const std::vector<int> freqs = {0, 2, 5};
  const Eigen::MatrixXd basis = real_fourier_basis(n, freqs);
  CHECK(basis.cols() == 5);
  Model<double> model = model_of(n, d, 6);
  set_position_operator(universal_layer(model), basis, Eigen::VectorXd::Ones(basis.cols()), basis);
  const auto inputs = random_inputs(2, n, d, 14);
  const auto run = run_model(model, inputs);
  using Complex = std::complex<double>;
  for (std::size_t s = 0; s < inputs.size(); ++s)
    for (int c = 0; c < d; ++c) {
      // DFT, keep bins ±f, inverse DFT.
      std::vector<Complex> spectrum(n);
      for (int k = 0; k < n; ++k)
        for (int t = 0; t < n; ++t)
          spectrum[k] += inputs[s](t, c) * std::polar(1.0, -2 * std::numbers::pi * k * t / n);
      for (int k = 0; k < n; ++k) {
        bool kept = false;
        for (int f : freqs) kept = kept || k == f || k == (n - f) % n;
        if (!kept) spectrum[k] = 0;
      }
      for (int t = 0; t < n; ++t) {
        Complex y = 0;
        for (int k = 0; k < n; ++k)
          y += spectrum[k] * std::polar(1.0, 2 * std::numbers::pi * k * t / n);
        CHECK(std::abs(run.Y[s](t, c) - y.real() / n) < 1e-12);
      }
    }
}

TEST_CASE("SVD: M is the rank-k truncated SVD of a matrix, with the Eckart-Young residual") {
  const int n = 8, d = 3, k = 3;
  const Eigen::MatrixXd target = random_inputs(1, n, n, 15)[0];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(target, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Model<double> model = model_of(n, d, n);
  set_position_operator(universal_layer(model), svd.matrixU().leftCols(k),
                        svd.singularValues().head(k), svd.matrixV().leftCols(k));
  const auto inputs = random_inputs(2, n, d, 16);
  const auto run = run_model(model, inputs);
  const Eigen::VectorXd sv = svd.singularValues();
  CHECK((target - run.M[0]).squaredNorm() ==
        doctest::Approx(sv.tail(n - k).squaredNorm()).epsilon(1e-10));
  Eigen::JacobiSVD<Eigen::MatrixXd> learned(run.M[0]);
  for (int j = 0; j < k; ++j) CHECK(learned.singularValues()(j) == doctest::Approx(sv(j)));
  CHECK(learned.singularValues()(k) < 1e-12);
  for (std::size_t s = 0; s < inputs.size(); ++s)
    CHECK(max_abs_difference(run.Y[s], run.M[0] * inputs[s]) < 1e-12);
}

TEST_CASE("the fused kernel gives the composite graph's loss terms and gradients") {
  struct Outcome {
    double loss, mse, orthogonality;
    std::vector<double> grads;
  };
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    auto run = [&](LayerKernels kernels) {
      Model<double> model = model_of(7, 3, 5, "universal", depth);
      data::Rng rng(11, data::Stream::kMonteCarlo);
      for (double& value : model.params.values) value = 0.4 * rng.normal();
      Tape<double> tape;
      const auto graph = record_model(tape, model, 4, true, kernels);
      const auto loss = record_loss(tape, graph, 0.7);
      tape.plan();
      for (Var input : {graph.x, loss.target})
        for (std::size_t e = 0; e < tape.value(input).size(); ++e)
          tape.value(input).data[e] = rng.normal();
      tape.forward();
      tape.backward(loss.loss);
      return Outcome{tape.value(loss.loss).data[0], tape.value(loss.mse).data[0],
                     tape.value(loss.orthogonality).data[0], model.params.grads};
    };
    const Outcome composite = run(LayerKernels::kComposite), fused = run(LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(fused.mse == doctest::Approx(composite.mse).epsilon(1e-13));
    CHECK(fused.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-13));
    REQUIRE(fused.grads.size() == composite.grads.size());
    double largest = 0, difference = 0;
    for (std::size_t e = 0; e < fused.grads.size(); ++e) {
      largest = std::max(largest, std::abs(composite.grads[e]));
      difference = std::max(difference, std::abs(fused.grads[e] - composite.grads[e]));
    }
    CHECK(largest > 0.01);
    CHECK(difference <= 1e-13 * largest);
  }
}
