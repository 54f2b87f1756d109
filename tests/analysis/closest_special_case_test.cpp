// The parsimony verdict (universality spec §3) on hand-made operators with known answers: a 5-tap
// band is a convolution of width 5, a circulant with 3 frequency pairs is fourier, a rank-4
// projection is lowrank with k = 4, the per-sample optimum of global data is attention; the
// fits' error formula against a direct computation; the best operator of a family; and the
// whole hook on hand-set layers.
#include "analysis/closest_special_case.hpp"

#include <doctest/doctest.h>

#include "../model/layer_runner.hpp"
#include "../support/classical_operators.hpp"
#include "analysis/input_dependence.hpp"
#include "analysis/measure.hpp"
#include "config/load.hpp"
#include "data/bases.hpp"
#include "data/registry.hpp"
#include "model/mixers/linear.hpp"

using namespace ufl;
using namespace ufl::analysis;

namespace {

// `count` samples X ~ N(0, 1) with targets C = M·X + noise·E: M is the best fixed operator.
data::SampleSet samples_of(const Eigen::MatrixXd& m, int d, int count, double noise,
                           std::uint64_t seed) {
  const int n = static_cast<int>(m.rows());
  data::SampleSet set{count, n, d, {}, {}, {}};
  const auto inputs = testing::random_inputs(count, n, d, seed);
  const auto errors = testing::random_inputs(count, n, d, seed + 1);
  for (int s = 0; s < count; ++s) {
    const Eigen::MatrixXd target = m * inputs[s] + noise * errors[s];
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) {
        set.inputs.push_back(float(inputs[s](i, c)));
        set.targets.push_back(float(target(i, c)));
      }
  }
  return set;
}

// The closest special case of the fixed operator m that generated the data (η(m) = 1).
ClosestSpecialCase classify(const Eigen::MatrixXd& m) {
  const data::SampleSet set = samples_of(m, 3, 400, 0.05, 3);
  const FixedOperatorErrors errors =
      fixed_operator_errors(set, Eigen::MatrixXd::Identity(set.d, set.d));
  const double mse = errors.mse(m);
  return closest_special_case(errors, {m, mse, mse, 10 * mse, 0.0, 0.2, {}});
}

Eigen::MatrixXd random_orthonormal(int n, int k, std::uint64_t seed) {
  const Eigen::MatrixXd gaussian = testing::random_inputs(1, n, k, seed)[0];
  return Eigen::HouseholderQR<Eigen::MatrixXd>(gaussian).householderQ() *
         Eigen::MatrixXd::Identity(n, k);
}

}  // namespace

TEST_CASE("the error formula tr(MGMᵀ) − 2⟨M,K⟩ + E is the mean squared error of Y = M X W") {
  const Eigen::MatrixXd m = testing::random_inputs(1, 6, 6, 1)[0];
  const data::SampleSet set = samples_of(m, 3, 50, 0.3, 2);
  const Eigen::MatrixXd w = testing::random_inputs(1, 3, 3, 4)[0];
  const Eigen::MatrixXd other = testing::random_inputs(1, 6, 6, 5)[0];
  double direct = 0;
  for (int s = 0; s < set.count; ++s)
    for (int i = 0; i < 6; ++i) {
      Eigen::RowVectorXd predicted = Eigen::RowVectorXd::Zero(3);
      for (int j = 0; j < 6; ++j)
        for (int c = 0; c < 3; ++c) predicted(c) += other(i, j) * set.input(s)[j * 3 + c];
      predicted = predicted * w;
      for (int c = 0; c < 3; ++c) direct += std::pow(predicted(c) - set.target(s)[i * 3 + c], 2);
    }
  CHECK(fixed_operator_errors(set, w).mse(other) ==
        doctest::Approx(direct / (50.0 * 6 * 3)).epsilon(1e-12));
}

TEST_CASE("projections keep what lies in the family: a band, a symmetric circulant") {
  const Eigen::MatrixXd band = model::toeplitz_from_taps(9, {0.2, -0.4, 1.0, 0.5, 0.1});
  CHECK((band_projection(band, 5) - band).cwiseAbs().maxCoeff() < 1e-15);
  // Width 3 keeps the three middle diagonals.
  CHECK((band_projection(band, 3) - model::toeplitz_from_taps(9, {-0.4, 1.0, 0.5}))
            .cwiseAbs()
            .maxCoeff() < 1e-15);
  const Eigen::MatrixXd basis = model::real_fourier_basis(9, {1, 3});
  const Eigen::MatrixXd circulant = basis * basis.transpose();
  CHECK((circulant_projection(circulant) - circulant).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((circulant_projection(band) - band).norm() > 0.1);  // a band is no circulant
}

TEST_CASE("a 5-tap band is a convolution with w = 5") {
  const ClosestSpecialCase result =
      classify(model::toeplitz_from_taps(16, {0.3, 0.6, 1.0, 0.6, 0.3}));
  CHECK(result.chosen.mixer == "convolution");
  CHECK(result.chosen.kernel_width == 5);
  CHECK(result.chosen.parameters == 5);
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(result.families.front().mixer == "convolution");
}

TEST_CASE("a symmetric circulant with 3 frequency pairs is fourier") {
  const int n = 16;
  Eigen::MatrixXd circulant = Eigen::MatrixXd::Zero(n, n);
  const std::vector<std::pair<int, double>> pairs = {{2, 1.0}, {3, 0.7}, {5, 0.4}};
  for (const auto& [f, gain] : pairs) {
    const Eigen::MatrixXd rows = model::real_fourier_basis(n, {f});
    circulant += gain * rows * rows.transpose();
  }
  const ClosestSpecialCase result = classify(circulant);
  CHECK(result.chosen.mixer == "fourier");
  CHECK(result.chosen.parameters == n / 2 + 1);
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a rank-4 projection is lowrank with k = 4") {
  const int n = 16;
  const Eigen::MatrixXd basis = random_orthonormal(n, 4, 9);
  const ClosestSpecialCase result = classify(basis * basis.transpose());
  CHECK(result.chosen.mixer == "lowrank");
  CHECK(result.chosen.rank == 4);
  CHECK(result.chosen.parameters == 4 * (2 * n - 4));
}

TEST_CASE("an orthogonal matrix with no structure is linear") {
  // Every singular value is 1, so no truncation keeps it.
  const ClosestSpecialCase result =
      classify(random_orthonormal(8, 8, 17) * random_orthonormal(8, 8, 18).transpose());
  CHECK(result.chosen.mixer == "linear");
  CHECK(result.chosen.parameters == 64);
}

TEST_CASE("the planted structures are recognised: walsh, haar, dct, butterfly") {
  const int n = 16;
  // A Walsh–Hadamard projection onto three Walsh functions, shrunk.
  const Eigen::MatrixXd h = data::walsh_hadamard_basis(n);
  Eigen::MatrixXd walsh = Eigen::MatrixXd::Zero(n, n);
  for (int k : {3, 6, 13}) walsh += 0.9 * h.row(k).transpose() * h.row(k);
  ClosestSpecialCase result = classify(walsh);
  CHECK(result.chosen.mixer == "walsh");
  CHECK(result.chosen.parameters == n);
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
  CHECK_FALSE(result.none_of_the_families);
  // A Haar operator with a gain per wavelet (not per scale): only the haar family holds it.
  const Eigen::MatrixXd w = data::haar_basis(n);
  Eigen::VectorXd gains(n);
  for (int k = 0; k < n; ++k) gains(k) = 1.0 / (1.0 + 0.37 * k);
  result = classify(w.transpose() * gains.asDiagonal() * w);
  CHECK(result.chosen.mixer == "haar");
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
  // One gain per Haar scale is also a dyadic (Walsh) convolution: the wavelets of one scale span
  // the same space as a set of Walsh functions, so both families hold it exactly.
  const std::vector<int> scales = data::haar_scales(n);
  for (int k = 0; k < n; ++k) gains(k) = 1.0 / (1.0 + scales[std::size_t(k)]);
  const Eigen::MatrixXd per_scale = w.transpose() * gains.asDiagonal() * w;
  CHECK((basis_diagonal_projection(per_scale, data::haar_basis(n)) - per_scale).norm() < 1e-12);
  CHECK((basis_diagonal_projection(per_scale, data::walsh_hadamard_basis(n)) - per_scale).norm() <
        1e-12);
  // A DCT-II band projection (no wrap-around: not circulant).
  const Eigen::MatrixXd c = data::dct_basis(n);
  Eigen::MatrixXd band = Eigen::MatrixXd::Zero(n, n);
  for (int k = 3; k <= 6; ++k) band += c.row(k).transpose() * c.row(k);
  result = classify(band);
  CHECK(result.chosen.mixer == "dct");
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
  // A random butterfly product: 2n·log₂n = 128 parameters, fitted exactly; nothing else keeps.
  data::Rng rng(7, data::Stream::kDatasetStructure);
  const Eigen::MatrixXd b = data::butterfly_product(data::random_butterfly_factors(n, rng));
  CHECK((butterfly_fit(b) - b).cwiseAbs().maxCoeff() < 1e-12);
  result = classify(0.8 * b);
  CHECK(result.chosen.mixer == "butterfly");
  CHECK(result.chosen.parameters == 2 * n * 4);
  CHECK(result.chosen.eta == doctest::Approx(1.0).epsilon(1e-9));
}

TEST_CASE("the projections onto the new families keep what lies in them, and only that") {
  const int n = 8;
  const Eigen::MatrixXd c = data::dct_basis(n);
  const Eigen::MatrixXd in_dct =
      c.transpose() * Eigen::VectorXd::LinSpaced(n, 1, 2).asDiagonal() * c;
  CHECK((basis_diagonal_projection(in_dct, c) - in_dct).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((basis_diagonal_projection(in_dct, data::walsh_hadamard_basis(n)) - in_dct).norm() > 0.1);
  // A butterfly fit of a matrix that is no butterfly product errs, but never beyond the matrix.
  const Eigen::MatrixXd dense = testing::random_inputs(1, n, n, 31)[0];
  const double error = (butterfly_fit(dense) - dense).norm();
  CHECK(error > 0.1);
  CHECK(error < dense.norm());
}

TEST_CASE("none of the families: an unstructured operator names its best family and η(fit)") {
  // Every singular value is 1 and no structure fits: only the free matrix keeps 95%.
  const ClosestSpecialCase result =
      classify(random_orthonormal(16, 16, 17) * random_orthonormal(16, 16, 18).transpose());
  CHECK(result.chosen.mixer == "linear");
  CHECK(result.none_of_the_families);
  CHECK(result.best_structured.mixer != "linear");
  CHECK(result.best_structured.eta < 0.95);
  const nlohmann::json out = to_json(result);
  CHECK(out.at("none_of_the_families") == true);
  CHECK(out.at("best_family").at("eta").get<double>() ==
        doctest::Approx(result.best_structured.eta));
}

TEST_CASE("by_share: the answer at shares 0.90, 0.95, 0.98 moves to more parameters") {
  // A 5-tap band plus a small far diagonal: at 0.90 the 5-tap band keeps, at 0.98 it needs more.
  Eigen::MatrixXd m = model::toeplitz_from_taps(16, {0.3, 0.6, 1.0, 0.6, 0.3});
  for (int i = 0; i + 6 < 16; ++i) m(i, i + 6) = 0.25;
  const ClosestSpecialCase result = classify(m);
  REQUIRE(result.by_share.size() == 3);
  CHECK(result.by_share[0].first == 0.90);
  CHECK(result.by_share[1].second.mixer == result.chosen.mixer);
  CHECK(result.by_share[0].second.parameters <= result.by_share[1].second.parameters);
  CHECK(result.by_share[1].second.parameters <= result.by_share[2].second.parameters);
  CHECK(result.by_share[2].second.eta >= 0.98 * result.eta);
}

TEST_CASE("a layer's family fit by kept energy: a 5-tap band keeps all of it in w = 5") {
  const nlohmann::json fit =
      family_energy_fit(model::toeplitz_from_taps(16, {0.3, 0.6, 1.0, 0.6, 0.3}));
  CHECK(fit.at("mixer") == "convolution");
  CHECK(fit.at("kernel_width") == 5);
  CHECK(fit.at("kept").get<double>() == doctest::Approx(1.0));
  CHECK(fit.at("none_of_the_families") == false);
  const nlohmann::json none = family_energy_fit(random_orthonormal(16, 16, 17) *
                                                random_orthonormal(16, 16, 18).transpose());
  CHECK(none.at("mixer") == "none");
  CHECK(none.at("none_of_the_families") == true);
  CHECK(none.at("best_family").at("kept").get<double>() < 0.95);
}

TEST_CASE("the per-sample optimum of global data is attention, when input dependence counts") {
  const config::Config config = config::parse_config(
      R"({"dataset": {"kind": "global", "n": 8, "d": 4, "train_size": 16, "test_size": 300}})",
      "t");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  OperatorStatistics operators;
  for (int s = 0; s < dataset.test.count; ++s)
    operators.add(data::optimal_operator(dataset, dataset.test, s));
  const double optimal = data::optimal_mse(dataset, dataset.test);
  const double fixed = data::fixed_mse(dataset, dataset.test);
  ParsimonyQuestion question{operators.mean(),
                             optimal,
                             optimal,
                             fixed,
                             operators.input_dependence(),
                             0.2,
                             {{"attention", optimal, 123}}};
  const FixedOperatorErrors errors =
      fixed_operator_errors(dataset.test, Eigen::MatrixXd::Identity(4, 4));
  const ClosestSpecialCase result = closest_special_case(errors, question);
  CHECK(result.input_dependent_allowed);
  CHECK(result.chosen.mixer == "attention");
  CHECK(result.chosen.parameters == 123);
  CHECK(result.chosen.input_dependent);
  // No fixed operator keeps 95% of the optimum's efficiency (M_fix reaches η = mse*/mse_fix).
  CHECK(optimal / fixed < 0.9);
  for (const SpecialCaseFit& family : result.families)
    if (!family.input_dependent) CHECK_FALSE(family.keeps);

  // With ι below iota_min, input dependence is not allowed to count, and nothing else keeps.
  question.iota_min = 0.99;
  CHECK(closest_special_case(errors, question).chosen.mixer == "none");
}

TEST_CASE("the best operator of a family: exact on noise-free data, least squares in general") {
  const int n = 10;
  const Eigen::MatrixXd band = model::toeplitz_from_taps(n, {0.2, 1.0, 0.4});
  const FixedOperatorErrors clean =
      fixed_operator_errors(samples_of(band, 3, 60, 0.0, 4), Eigen::MatrixXd::Identity(3, 3));
  CHECK((best_band(clean, 3) - band).cwiseAbs().maxCoeff() < 1e-6);
  CHECK((best_of_rank(clean, n) - band).cwiseAbs().maxCoeff() < 1e-6);
  // The free least-squares fit is K·G⁻¹, and lower ranks or shorter bands do no better.
  const FixedOperatorErrors noisy =
      fixed_operator_errors(samples_of(band, 3, 60, 0.5, 5), Eigen::MatrixXd::Identity(3, 3));
  const Eigen::MatrixXd free = noisy.cross * noisy.gram.inverse();
  CHECK((best_of_rank(noisy, n) - free).cwiseAbs().maxCoeff() < 1e-9);
  CHECK(noisy.mse(best_of_rank(noisy, 2)) >= noisy.mse(free));
  CHECK(noisy.mse(best_band(noisy, 1)) >= noisy.mse(best_band(noisy, 3)));
  CHECK(noisy.mse(best_band(noisy, 3)) <= noisy.mse(band));
  CHECK(noisy.mse(best_circulant(noisy)) >= noisy.mse(free));
}

TEST_CASE("the hook: a linear layer set to M_fix of periodic data is fourier, as the optimum") {
  const config::Config config = config::parse_config(
      R"({"dataset": {"kind": "periodic", "n": 16, "d": 4, "freqs": [2, 5], "train_size": 64,
                      "test_size": 256}, "layer": {"mixer": "linear"}})",
      "t");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<float> model(16, 4, config.model, config.layer);
  model.mixer_parameters(0)[0] = dataset.fixed_operator.cast<float>();
  model.w_v(0).setIdentity();
  const auto metrics = analyze_model(dataset, model, config.analysis).metrics;
  CHECK(metrics["mixer"] == "linear");
  CHECK(metrics["mixer_parameters"] == 256);
  CHECK(metrics["closest_special_case"]["mixer"] == "fourier");
  CHECK(metrics["optimal"]["closest_special_case"]["mixer"] == "fourier");
  CHECK(metrics["optimal"]["closest_special_case"]["eta_of_operator"] == 1.0);
  CHECK(metrics["mixer_reach"]["best_fixed_eta"].get<double>() > 0.99);
  CHECK(metrics["explanation"].get<std::string>().find("this run reached it") != std::string::npos);
}

TEST_CASE("the hook: a universal layer set to attention on global data is attention") {
  const config::Config config = config::parse_config(
      R"({"dataset": {"kind": "global", "n": 16, "d": 16, "noise": 0.3, "train_size": 64,
                      "test_size": 256}})",
      "t");
  const data::Dataset dataset = data::generate(config.dataset, config.seed);
  model::Model<double> exact(16, 16, config.model, config.layer);
  model::set_attention(testing::universal_layer(exact), 2.0 * Eigen::MatrixXd::Identity(16, 16),
                       Eigen::MatrixXd::Identity(16, 16),
                       2.0 / (2.0 + 0.09) * Eigen::MatrixXd::Identity(16, 16));
  model::Model<float> model(16, 16, config.model, config.layer);
  for (std::size_t e = 0; e < model.params.values.size(); ++e)
    model.params.values[e] = float(exact.params.values[e]);
  const auto metrics = analyze_model(dataset, model, config.analysis).metrics;
  const auto& chosen = metrics["closest_special_case"];
  CHECK(chosen["mixer"] == "attention");  // its fit, γ forced to 1, has one parameter fewer
  CHECK(chosen["parameters"] == 2 * (16 + 16 + 1) * 16 + 16);
  CHECK(chosen["eta"].get<double>() == doctest::Approx(metrics["eta"].get<double>()).epsilon(1e-6));
  CHECK(metrics["optimal"]["closest_special_case"]["mixer"] == "attention");
  CHECK(metrics["optimal"]["negative_energy_share"] == 0.0);
  CHECK(metrics["explanation"].get<std::string>().find("past every such operator") !=
        std::string::npos);
}
