// The score kernel of the fused transformer heads (src/model/mixers/score_kernel.hpp): known scores
// in, known mixtures out (the dot product and the distance mixer's score function), and its
// backward against central differences in double.
#include "model/mixers/score_kernel.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "data/rng.hpp"
#include "model/mixers/distance.hpp"

using namespace ufl;
using namespace ufl::model;

namespace {

using Matrix = RowMatrix<double>;

ConstStridedMap<double> read(const Matrix& m) {
  return ConstStridedMap<double>(m.data(), m.rows(), m.cols(), Eigen::OuterStride<>(m.cols()));
}
StridedMap<double> write(Matrix& m) {
  return StridedMap<double>(m.data(), m.rows(), m.cols(), Eigen::OuterStride<>(m.cols()));
}

Matrix forward(const ScoreKernelShape& shape, const Matrix& q, const Matrix& k, const Matrix& v,
               double gamma, std::vector<double>& kept) {
  kept.assign(shape.kept_size(), 0.0);
  std::vector<double> temporaries(shape.temporaries_size());
  Matrix out = Matrix::Zero(shape.n, shape.values);
  score_kernel_forward<double>(
      shape, {read(q), read(k), read(v), gamma, kept.data(), write(out), temporaries.data()});
  return out;
}

Matrix random(int rows, int cols, data::Rng& rng) {
  Matrix m(rows, cols);
  for (Eigen::Index e = 0; e < m.size(); ++e) m.data()[e] = rng.normal();
  return m;
}

}  // namespace

TEST_CASE("scores of zero give each position the mean of the values it can see (causal)") {
  const ScoreKernelShape shape{4, 2, 1, true, false};
  const Matrix q = Matrix::Zero(4, 2), k = Matrix::Ones(4, 2);
  Matrix v(4, 1);
  v << 2, 4, 6, 8;
  std::vector<double> kept;
  const Matrix out = forward(shape, q, k, v, 1.0, kept);
  CHECK(out(0, 0) == doctest::Approx(2));
  CHECK(out(1, 0) == doctest::Approx(3));
  CHECK(out(2, 0) == doctest::Approx(4));
  CHECK(out(3, 0) == doctest::Approx(5));
  // P is kept, exactly zero above the diagonal.
  CHECK(kept[1] == 0.0);
  CHECK(kept[4 + 2] == 0.0);
  CHECK(kept[4 + 1] == doctest::Approx(0.5));
}

TEST_CASE("a closed gate (γ = 0) mixes with the scores: causal, each row's mean over j ≤ i") {
  const ScoreKernelShape shape{3, 2, 1, true, true};
  Matrix q(3, 2), k(3, 2), v(3, 1);
  q << 1, 0, 0, 1, 1, 1;
  k << 1, 0, 0, 2, 1, 0;  // S = QKᵀ = [1 0 1; 0 2 0; 1 2 1], masked: [1 0 0; 0 2 0; 1 2 1]
  v << 1, 2, 3;
  std::vector<double> kept;
  const Matrix out = forward(shape, q, k, v, 0.0, kept);
  // Row i of the masked S divided by i + 1 (docs/universal_head.md §1): [1 0 0; 0 1 0; ⅓ ⅔ ⅓].
  CHECK(out(0, 0) == doctest::Approx(1));
  CHECK(out(1, 0) == doctest::Approx(2));
  CHECK(out(2, 0) == doctest::Approx(8.0 / 3));
  // Not causal: every position reads every other, S·V.
  const ScoreKernelShape open{3, 2, 1, false, true};
  const Matrix all = forward(open, q, k, v, 0.0, kept);
  CHECK(all(0, 0) == doctest::Approx(4));
  CHECK(all(1, 0) == doctest::Approx(4));
  CHECK(all(2, 0) == doctest::Approx(8));
}

TEST_CASE("the distance form: S_ij = −½‖Q_i − K_j‖², mixed by a closed gate or the softmax") {
  const ScoreKernelShape shape{3, 2, 1, false, true, &negative_distance_scores()};
  Matrix q(3, 2), k(3, 2), v(3, 1);
  q << 0, 0, 1, 0, 0, 2;
  k << 0, 0, 1, 1, 2, 0;  // S = −½·[0 2 4; 1 1 1; 4 2 8]
  v << 1, 2, 3;
  std::vector<double> kept;
  const Matrix linear = forward(shape, q, k, v, 0.0, kept);
  CHECK(linear(0, 0) == doctest::Approx(-0.5 * (0 + 4 + 12)));
  CHECK(linear(1, 0) == doctest::Approx(-0.5 * (1 + 2 + 3)));
  CHECK(linear(2, 0) == doctest::Approx(-0.5 * (4 + 4 + 24)));
  // γ = 1: softmax weights exp(−½‖q_i − k_j‖²); row 1 sees equal distances, the mean.
  const Matrix smoothed = forward(shape, q, k, v, 1.0, kept);
  const double w1 = std::exp(-1.0), w2 = std::exp(-2.0);
  CHECK(smoothed(0, 0) == doctest::Approx((1 + 2 * w1 + 3 * w2) / (1 + w1 + w2)));
  CHECK(smoothed(1, 0) == doctest::Approx(2));
  // Causal, γ = 0: row i's mean over j ≤ i of S_ij (the norms subtracted there too).
  const ScoreKernelShape causal{3, 2, 1, true, true, &negative_distance_scores()};
  const Matrix masked = forward(causal, q, k, v, 0.0, kept);
  CHECK(masked(0, 0) == doctest::Approx(0));
  CHECK(masked(1, 0) == doctest::Approx(-0.5 * (1 + 2) / 2));
  CHECK(masked(2, 0) == doctest::Approx(-0.5 * (4 + 4 + 24) / 3));
}

TEST_CASE("the score kernel's backward matches central differences, gated or not, causal or not") {
  for (bool distance : {false, true})
    for (bool gated : {false, true})
      for (bool causal : {false, true}) {
        CAPTURE(distance);
        CAPTURE(gated);
        CAPTURE(causal);
        const ScoreKernelShape shape{
            5, 3, 2, causal, gated, distance ? &negative_distance_scores() : &dot_scores()};
        data::Rng rng(7, data::Stream::kMonteCarlo);
        Matrix q = random(5, 3, rng), k = random(5, 3, rng), v = random(5, 2, rng);
        const Matrix weights = random(5, 2, rng);  // loss = Σ weights ⊙ out
        double gamma = 0.3;
        std::vector<double> kept;
        forward(shape, q, k, v, gamma, kept);
        Matrix dq(5, 3), dk(5, 3), dv(5, 2);
        double d_gamma = 0;
        std::vector<double> temporaries(shape.temporaries_size());
        score_kernel_backward<double>(
            shape, {read(q), read(k), read(v), gamma, kept.data(), read(weights), write(dq),
                    write(dk), write(dv), gated ? &d_gamma : nullptr, temporaries.data()});
        auto loss = [&] {
          std::vector<double> scratch;
          return (forward(shape, q, k, v, gamma, scratch).array() * weights.array()).sum();
        };
        auto numeric = [&](double& x) {
          const double keep = x, h = 1e-6;
          x = keep + h;
          const double up = loss();
          x = keep - h;
          const double down = loss();
          x = keep;
          return (up - down) / (2 * h);
        };
        double worst = 0;
        for (auto [matrix, gradient] : {std::pair{&q, &dq}, {&k, &dk}, {&v, &dv}})
          for (Eigen::Index e = 0; e < matrix->size(); ++e)
            worst = std::max(worst, std::abs(numeric(matrix->data()[e]) - gradient->data()[e]));
        if (gated) worst = std::max(worst, std::abs(numeric(gamma) - d_gamma));
        CHECK(worst <= 1e-7);
      }
}
