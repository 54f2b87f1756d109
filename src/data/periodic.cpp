// The `periodic` dataset of docs/experiment.md §1: random sums of cosines and sines at a few
// frequencies.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// The angle 2π·f·t/n for t ≥ 0, with f·t reduced mod n first so that it stays in [0, 2π) and equal
// phases give bit-identical cosines.
double phase(int frequency, int position, int n) {
  const long long turns = (static_cast<long long>(frequency) * position) % n;
  return 2.0 * std::numbers::pi * static_cast<double>(turns) / n;
}

}  // namespace

std::vector<double> periodic_variances(const std::vector<int>& freqs, double amplitude_decay) {
  // docs/experiment.md §1: v_f ∝ amplitude_decay^index, Σ v_f = 1. Distinct variances keep the
  // singular vectors of Γ unique (up to the cos/sin pair of each frequency).
  std::vector<double> variances(freqs.size());
  double total = 0.0;
  for (size_t index = 0; index < freqs.size(); ++index) {
    variances[index] = std::pow(amplitude_decay, static_cast<double>(index));
    total += variances[index];
  }
  for (double& variance : variances) variance /= total;
  return variances;
}

Eigen::MatrixXd periodic_covariance(int n, const std::vector<int>& freqs, double amplitude_decay) {
  // E[C_t C_s] = Σ_f v_f (cos·cos + sin·sin) = Σ_f v_f cos(2π f (t−s)/n); the lag is taken as
  // |t−s| so that Γ is exactly symmetric.
  const std::vector<double> variances = periodic_variances(freqs, amplitude_decay);
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(n, n);
  for (int t = 0; t < n; ++t) {
    for (int s = 0; s < n; ++s) {
      for (size_t index = 0; index < freqs.size(); ++index) {
        covariance(t, s) += variances[index] * std::cos(phase(freqs[index], std::abs(t - s), n));
      }
    }
  }
  return covariance;
}

void draw_periodic_signal(int n, int d, const std::vector<int>& freqs,
                          const std::vector<double>& variances, Rng& rng, double* clean) {
  const int frequency_count = static_cast<int>(freqs.size());
  // The waves cos(2πft/n), sin(2πft/n), position-major: waves[(t·K + index)·2 + {0, 1}].
  std::vector<double> waves(static_cast<size_t>(n) * frequency_count * 2);
  for (int position = 0; position < n; ++position) {
    for (int index = 0; index < frequency_count; ++index) {
      const double angle = phase(freqs[index], position, n);
      waves[(position * frequency_count + index) * 2] = std::cos(angle);
      waves[(position * frequency_count + index) * 2 + 1] = std::sin(angle);
    }
  }
  // Draw order: channel by channel; within a channel, for each frequency in the order of
  // `freqs`, a_f then b_f.
  std::vector<double> amplitudes(frequency_count * 2);
  for (int channel = 0; channel < d; ++channel) {
    for (int index = 0; index < frequency_count; ++index) {
      const double amplitude_std = std::sqrt(variances[index]);
      amplitudes[index * 2] = amplitude_std * rng.normal();
      amplitudes[index * 2 + 1] = amplitude_std * rng.normal();
    }
    for (int position = 0; position < n; ++position) {
      const double* wave = &waves[static_cast<size_t>(position) * frequency_count * 2];
      double value = 0.0;
      for (int term = 0; term < frequency_count * 2; ++term) value += amplitudes[term] * wave[term];
      clean[position * d + channel] = value;
    }
  }
}

DatasetKind periodic_kind() {
  DatasetKind kind;
  kind.name = "periodic";
  kind.summary =
      "random sums of cosines and sines at the frequencies freqs; optimum: a projection "
      "onto those frequencies, a circulant of rank 2K";
  kind.claimed_operator = "fourier";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    const std::string half =
        spec.n % 2 == 0 ? std::to_string(spec.n / 2) : std::to_string(spec.n / 2) + ".5";
    const std::string window = "frequencies f with 1 ≤ f < n/2 = " + half;
    if (spec.freqs.empty()) return {"dataset.freqs", "a non-empty list of " + window};
    std::vector<int> sorted = spec.freqs;
    std::sort(sorted.begin(), sorted.end());
    // f ≥ n/2 would alias onto n − f or, at f = n/2, lose its sine: Γ would not have rank 2K.
    if (sorted.front() < 1 || 2LL * sorted.back() >= spec.n) return {"dataset.freqs", window};
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return {"dataset.freqs", "distinct frequencies"};
    if (!(std::isfinite(spec.amplitude_decay) && spec.amplitude_decay > 0))
      return {"dataset.amplitude_decay", "a number > 0"};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) {
    return periodic_covariance(dataset.spec.n, dataset.spec.freqs, dataset.spec.amplitude_decay);
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    const DatasetConfig& spec = dataset.spec;
    return [n = spec.n, d = spec.d, freqs = spec.freqs,
            variances = periodic_variances(spec.freqs, spec.amplitude_decay)](
               Rng& rng, double* clean, std::int32_t*) {
      draw_periodic_signal(n, d, freqs, variances, rng, clean);
    };
  };
  return kind;
}

}  // namespace ufl::data
