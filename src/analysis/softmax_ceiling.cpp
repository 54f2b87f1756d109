// The in-class ceiling of a single-head dot-product softmax operator; see softmax_ceiling.hpp.
#include "analysis/softmax_ceiling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "io/stop_request.hpp"

namespace ufl::analysis {
namespace {

using FloatRowMajor =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// One sample as the head sees it: its input, the Gram matrix of its keys, its target.
struct HeadSample {
  Eigen::MatrixXd input, gram, target;
};

std::vector<HeadSample> head_samples(const data::SampleSet& set, const HeadKeys& keys) {
  std::vector<HeadSample> samples(static_cast<std::size_t>(set.count));
#pragma omp parallel for schedule(static)
  for (int s = 0; s < set.count; ++s) {
    HeadSample& sample = samples[static_cast<std::size_t>(s)];
    sample.input = FloatRowMajor(set.input(s), set.n, set.d).cast<double>();
    sample.target = FloatRowMajor(set.target(s), set.n, set.d).cast<double>();
    const Eigen::MatrixXd k = keys(sample.input);
    sample.gram = k * k.transpose();
  }
  return samples;
}

// Σ⟨C, P⟩, Σ‖P‖² and Σ‖C‖² over the scored rows, P = softmax(βG + δI)·X: the error of c·P is
// Σ‖C‖² − 2cΣ⟨C, P⟩ + c²Σ‖P‖², least at c = Σ⟨C, P⟩/Σ‖P‖².
struct HeadSums {
  double cross = 0, output = 0, target = 0, elements = 0;
  double gain() const { return output > 0 ? cross / output : 0.0; }
  double best_mse() const {
    const double explained = output > 0 ? cross * cross / output : 0.0;
    return (target - explained) / elements;
  }
};

HeadSums head_sums(const std::vector<HeadSample>& samples, double scale, double offset,
                   const std::vector<int>& rows) {
  const int count = static_cast<int>(samples.size());
  std::vector<std::array<double, 3>> per_sample(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (int s = 0; s < count; ++s) {
    const HeadSample& sample = samples[static_cast<std::size_t>(s)];
    const int n = static_cast<int>(sample.gram.rows());
    std::array<double, 3> sums = {0, 0, 0};
    Eigen::RowVectorXd weights(n);
    auto add_row = [&](int i) {
      // A numerically stable row softmax of β·G_i + δ·e_i.
      weights = scale * sample.gram.row(i);
      weights(i) += offset;
      weights = (weights.array() - weights.maxCoeff()).exp();
      weights /= weights.sum();
      const Eigen::RowVectorXd estimate = weights * sample.input;
      sums[0] += estimate.dot(sample.target.row(i));
      sums[1] += estimate.squaredNorm();
      sums[2] += sample.target.row(i).squaredNorm();
    };
    if (rows.empty())
      for (int i = 0; i < n; ++i) add_row(i);
    else
      for (int i : rows) add_row(i);
    per_sample[static_cast<std::size_t>(s)] = sums;
  }
  HeadSums total;
  for (const auto& sums : per_sample) {  // in sample order: the same at any thread count
    total.cross += sums[0];
    total.output += sums[1];
    total.target += sums[2];
  }
  if (count > 0) {
    const double scored = rows.empty() ? double(samples.front().gram.rows()) : double(rows.size());
    total.elements = double(count) * scored * double(samples.front().input.cols());
  }
  return total;
}

}  // namespace

double softmax_head_mse(const data::SampleSet& set, const HeadKeys& keys, const SoftmaxHead& head,
                        const std::vector<int>& rows) {
  const HeadSums sums = head_sums(head_samples(set, keys), head.scale, head.offset, rows);
  return (sums.target - 2 * head.gain * sums.cross + head.gain * head.gain * sums.output) /
         sums.elements;
}

SoftmaxCeiling softmax_ceiling(const data::SampleSet& train, const data::SampleSet& test,
                               const HeadKeys& keys, const std::vector<int>& rows) {
  const std::vector<HeadSample> samples = head_samples(train, keys);
  // The search runs over u = log10(β·d) and δ: a score β·x_iᵀx_j is of the order β·d.
  const double d = train.d;
  SoftmaxCeiling ceiling;
  auto mse_at = [&](double u, double offset) {
    ++ceiling.evaluations;
    interrupt::throw_if_stop_requested("analysis");
    return head_sums(samples, std::pow(10.0, u) / d, offset, rows).best_mse();
  };
  // The grid: β·d from 10⁻² to 10 in half decades, δ from −24 to 24 in steps of 8.
  double best_u = 0, best_offset = 0, best = std::numeric_limits<double>::infinity();
  for (int a = 0; a <= 6; ++a)
    for (int b = -3; b <= 3; ++b) {
      const double u = -2.0 + 0.5 * a, offset = 8.0 * b, mse = mse_at(u, offset);
      if (mse < best) best = mse, best_u = u, best_offset = offset;
    }
  // Nelder–Mead from the best grid point (reflection 1, expansion 2, contraction ½, shrink ½).
  std::array<std::array<double, 3>, 3> simplex = {{{best_u, best_offset, best},
                                                   {best_u + 0.25, best_offset, 0},
                                                   {best_u, best_offset + 4.0, 0}}};
  for (int v = 1; v < 3; ++v) simplex[v][2] = mse_at(simplex[v][0], simplex[v][1]);
  for (int iteration = 0; iteration < 80; ++iteration) {
    std::sort(simplex.begin(), simplex.end(),
              [](const auto& x, const auto& y) { return x[2] < y[2]; });
    if (simplex[2][2] - simplex[0][2] <= 1e-12 * std::abs(simplex[0][2])) break;
    const double cu = (simplex[0][0] + simplex[1][0]) / 2, co = (simplex[0][1] + simplex[1][1]) / 2;
    auto point = [&](double t) {
      const double u = cu + t * (simplex[2][0] - cu), o = co + t * (simplex[2][1] - co);
      return std::array<double, 3>{u, o, mse_at(u, o)};
    };
    const auto reflected = point(-1.0);
    if (reflected[2] < simplex[0][2]) {
      const auto expanded = point(-2.0);
      simplex[2] = expanded[2] < reflected[2] ? expanded : reflected;
    } else if (reflected[2] < simplex[1][2]) {
      simplex[2] = reflected;
    } else {
      const auto contracted = point(reflected[2] < simplex[2][2] ? -0.5 : 0.5);
      if (contracted[2] < std::min(reflected[2], simplex[2][2])) {
        simplex[2] = contracted;
      } else {
        for (int v = 1; v < 3; ++v) {
          simplex[v][0] = (simplex[v][0] + simplex[0][0]) / 2;
          simplex[v][1] = (simplex[v][1] + simplex[0][1]) / 2;
          simplex[v][2] = mse_at(simplex[v][0], simplex[v][1]);
        }
      }
    }
  }
  std::sort(simplex.begin(), simplex.end(),
            [](const auto& x, const auto& y) { return x[2] < y[2]; });
  const double scale = std::pow(10.0, simplex[0][0]) / d, offset = simplex[0][1];
  const HeadSums sums = head_sums(samples, scale, offset, rows);
  ceiling.head = {scale, offset, sums.gain()};
  ceiling.train_mse = sums.best_mse();
  ceiling.test_mse = softmax_head_mse(test, keys, ceiling.head, rows);
  return ceiling;
}

}  // namespace ufl::analysis
