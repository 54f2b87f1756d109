// generate() and covariance_of(): pick the kind, draw the train and test sets, attach Γ and M_fix.
#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "data/dataset.hpp"
#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// Draws `count` (noisy, clean) pairs from one random stream. Per sample: the clean signal first
// (in the kind's documented order), then the noise E, n×d row-major (position i, channel c).
// Everything is computed in double and stored as float.
SampleSet draw_set(const DatasetConfig& spec, int count, Rng rng, const SignalDrawer& draw_signal,
                   bool has_partners) {
  SampleSet set;
  set.count = count;
  set.n = spec.n;
  set.d = spec.d;
  const size_t sample_size = static_cast<size_t>(spec.n) * spec.d;
  set.inputs.resize(count * sample_size);
  set.targets.resize(count * sample_size);
  if (has_partners) set.partners.resize(static_cast<size_t>(count) * spec.n);

  std::vector<double> clean(sample_size);
  std::vector<std::int32_t> partners(spec.n, -1);
  for (int sample = 0; sample < count; ++sample) {
    draw_signal(rng, clean.data(), partners.data());
    const size_t offset = sample * sample_size;
    for (size_t element = 0; element < sample_size; ++element) {
      const double noisy = clean[element] + spec.noise * rng.normal();
      set.inputs[offset + element] = static_cast<float>(noisy);
      set.targets[offset + element] = static_cast<float>(clean[element]);
    }
    if (has_partners) {
      std::copy(partners.begin(), partners.end(),
                set.partners.begin() + static_cast<std::ptrdiff_t>(sample) * spec.n);
    }
  }
  return set;
}

SignalDrawer signal_drawer(const Dataset& dataset) {
  const DatasetConfig& spec = dataset.spec;
  const int n = spec.n, d = spec.d;
  if (spec.kind == "local") {
    return [n, d, taps = local_taps(spec.kernel_width)](Rng& rng, double* clean, std::int32_t*) {
      draw_local_signal(n, d, taps, rng, clean);
    };
  }
  if (spec.kind == "global") {
    return [n, d](Rng& rng, double* clean, std::int32_t* partners) {
      draw_global_signal(n, d, rng, clean, partners);
    };
  }
  if (spec.kind == "periodic") {
    return [n, d, freqs = spec.freqs,
            variances = periodic_variances(spec.freqs, spec.amplitude_decay)](
               Rng& rng, double* clean, std::int32_t*) {
      draw_periodic_signal(n, d, freqs, variances, rng, clean);
    };
  }
  // lowrank (validate() has rejected every other kind).
  return [d, basis = dataset.lowrank_basis, singular_values = dataset.lowrank_singular_values](
             Rng& rng, double* clean, std::int32_t*) {
    draw_lowrank_signal(d, basis, singular_values, rng, clean);
  };
}

}  // namespace

Dataset generate(const DatasetConfig& spec, std::uint64_t seed) {
  validate(spec);
  Dataset dataset;
  dataset.spec = spec;
  dataset.seed = seed;
  if (spec.kind == "lowrank") {
    Rng structure_rng(seed, Stream::kDatasetStructure);
    dataset.lowrank_basis = lowrank_basis(spec.n, spec.rank, structure_rng);
    dataset.lowrank_singular_values =
        lowrank_singular_values(spec.n, spec.rank, spec.singular_value_decay);
  }
  dataset.covariance = covariance_of(spec, dataset.lowrank_basis, dataset.lowrank_singular_values);
  dataset.fixed_operator = wiener_operator(dataset.covariance, spec.noise);
  // spec §1: for global the best estimator averages each token with its partner, which no fixed
  // matrix can do.
  dataset.optimum_is_fixed = spec.kind != "global";

  const SignalDrawer draw_signal = signal_drawer(dataset);
  const bool has_partners = spec.kind == "global";
  dataset.train =
      draw_set(spec, spec.train_size, Rng(seed, Stream::kTrainSamples), draw_signal, has_partners);
  dataset.test =
      draw_set(spec, spec.test_size, Rng(seed, Stream::kTestSamples), draw_signal, has_partners);
  return dataset;
}

Eigen::MatrixXd covariance_of(const DatasetConfig& spec, const Eigen::MatrixXd& lowrank_basis,
                              const Eigen::VectorXd& lowrank_singular_values) {
  if (spec.kind == "local") return local_covariance(spec.n, spec.kernel_width);
  if (spec.kind == "global") return global_covariance(spec.n);
  if (spec.kind == "periodic") return periodic_covariance(spec.n, spec.freqs, spec.amplitude_decay);
  if (spec.kind == "lowrank") {
    if (lowrank_basis.rows() != spec.n || lowrank_basis.cols() != lowrank_singular_values.size()) {
      throw std::invalid_argument(
          "covariance_of: kind \"lowrank\" needs its n×k basis Q and k singular values s");
    }
    return lowrank_covariance(lowrank_basis, lowrank_singular_values);
  }
  throw std::invalid_argument("dataset.kind: unknown kind \"" + spec.kind +
                              "\" (expected local, global, periodic or lowrank)");
}

}  // namespace ufl::data
