// The lowrank mixer: hand-set factors give the rank-k truncated SVD of a matrix (with the
// Eckart–Young residual); it starts from the universal layer's position rows at the same seed;
// its orthogonality penalty is the universal layer's on P and Q; gradients match finite
// differences, alone and inside a stack.
#include "model/mixers/lowrank.hpp"

#include <doctest/doctest.h>

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

TEST_CASE("lowrank: what it is — one fixed operator P·Σ·Qᵀ, with factors") {
  check_properties("lowrank", {.has_factors = true, .config_keys = {"layer.rank"}});
}

TEST_CASE("lowrank: its parameters are P, s, Q; it starts as the universal layer's position rows") {
  const int n = 6, d = 3, r = 4;
  Model<double> lowrank = model_of(n, d, r, "lowrank");
  std::vector<std::string> names;
  for (const ParameterSlice& slice : lowrank.params.slices) names.push_back(slice.name);
  CHECK(names == std::vector<std::string>{"P", "s", "Q", "W_v"});
  Model<double> universal = model_of(n, d, r, "universal");
  initialize(lowrank, 7);
  initialize(universal, 7);
  const auto low = lowrank.mixer_parameters(0);
  const auto full = universal.mixer_parameters(0);
  CHECK(Eigen::MatrixXd(low[LowrankMixer<double>::kP]) ==
        Eigen::MatrixXd(full[UniversalMixer<double>::kA].middleRows(d, n)));
  CHECK(Eigen::MatrixXd(low[LowrankMixer<double>::kQ]) ==
        Eigen::MatrixXd(full[UniversalMixer<double>::kB].middleRows(d, n)));
  CHECK(low[LowrankMixer<double>::kS].isZero());
}

TEST_CASE("lowrank hand-set: M is the rank-k truncated SVD, with the Eckart–Young residual") {
  const int n = 8, d = 3, k = 3;
  const Eigen::MatrixXd target = random_inputs(1, n, n, 15)[0];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(target, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Model<double> model = model_of(n, d, 5, "lowrank");
  auto views = model.mixer_parameters(0);
  set_lowrank(views[LowrankMixer<double>::kP], views[LowrankMixer<double>::kS],
              views[LowrankMixer<double>::kQ], svd.matrixU().leftCols(k),
              svd.singularValues().head(k), svd.matrixV().leftCols(k));
  model.w_v(0).setIdentity();
  const auto inputs = random_inputs(2, n, d, 16);
  const auto run = run_model(model, inputs);
  const Eigen::VectorXd sv = svd.singularValues();
  const Eigen::MatrixXd truncated =
      svd.matrixU().leftCols(k) * sv.head(k).asDiagonal() * svd.matrixV().leftCols(k).transpose();
  CHECK((run.M[0] - truncated).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((target - run.M[0]).squaredNorm() ==
        doctest::Approx(sv.tail(n - k).squaredNorm()).epsilon(1e-10));
  for (std::size_t s = 0; s < inputs.size(); ++s)
    CHECK((run.Y[s] - truncated * inputs[s]).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("lowrank: the penalty is (‖PᵀP − I‖² + ‖QᵀQ − I‖²)/r², the same for every sample") {
  Model<double> model = model_of(6, 2, 3, "lowrank");
  const auto values = testing::loss_and_gradients(model, LayerKernels::kFused);
  data::Rng rng(11, data::Stream::kMonteCarlo);  // the draws loss_and_gradients makes
  for (double& value : model.params.values) value = 0.4 * rng.normal();
  const auto views = model.mixer_parameters(0);
  const Eigen::MatrixXd p = views[LowrankMixer<double>::kP], q = views[LowrankMixer<double>::kQ];
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(3, 3);
  const double expected = ((p.transpose() * p - identity).squaredNorm() +
                           (q.transpose() * q - identity).squaredNorm()) /
                          9.0;
  CHECK(values.orthogonality == doctest::Approx(expected).epsilon(1e-14));
}

TEST_CASE("lowrank + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    CHECK(testing::model_gradient_error(model_of(6, 3, 2, "lowrank"), 3, 0, 1, kernels) <= 1e-6);
    CHECK(testing::model_gradient_error(model_of(4, 2, 4, "lowrank"), 2, 0, 2, kernels) <= 1e-6);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_of(6, 3, 3, "lowrank", 2, residual), 3, 0, 3,
                                          kernels) <= 1e-6);
    }
  }
}

TEST_CASE("lowrank: the fused branch gives the composite graph's loss and gradients") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    const auto composite =
        testing::loss_and_gradients(model_of(7, 3, 3, "lowrank", depth), LayerKernels::kComposite);
    const auto fused =
        testing::loss_and_gradients(model_of(7, 3, 3, "lowrank", depth), LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(fused.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-13));
    CHECK(testing::gradient_difference(fused, composite) <= 1e-13);
  }
}
