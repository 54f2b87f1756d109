// generate(): ask the kind's record for its structure and samples; attach Γ and M_fix.
#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "data/registry.hpp"
#include "io/stop_request.hpp"

namespace ufl::data {
namespace {

// Draws `count` (noisy, clean) pairs from one random stream. Per sample: the clean signal first
// (in the kind's documented order), then the noise E, n×d row-major (position i, channel c).
// At hidden positions the input is the noise alone. Everything is computed in double and stored
// as float.
SampleSet draw_set(const DatasetConfig& spec, int count, Rng rng, const SignalDrawer& draw_signal,
                   bool has_partners, const std::vector<bool>& hidden,
                   const Eigen::MatrixXd& mixing) {
  SampleSet set;
  set.count = count;
  set.n = spec.n;
  set.d = spec.d;
  const size_t sample_size = static_cast<size_t>(spec.n) * spec.d;
  set.inputs.resize(count * sample_size);
  set.targets.resize(count * sample_size);
  if (has_partners) set.partners.resize(static_cast<size_t>(count) * spec.n);

  std::vector<double> clean(sample_size), shown(mixing.size() > 0 ? sample_size : 0);
  std::vector<std::int32_t> partners(spec.n, -1);
  for (int sample = 0; sample < count; ++sample) {
    interrupt::throw_if_stop_requested("data generation");
    draw_signal(rng, clean.data(), partners.data());
    if (mixing.size() > 0) {  // X = A·C + σE: the input shows the signal mixed by A
      for (int i = 0; i < spec.n; ++i)
        for (int c = 0; c < spec.d; ++c) {
          double value = 0.0;  // summed over j in order: independent of vectorisation
          for (int j = 0; j < spec.n; ++j) value += mixing(i, j) * clean[size_t(j) * spec.d + c];
          shown[size_t(i) * spec.d + c] = value;
        }
    }
    const std::vector<double>& signal_of = mixing.size() > 0 ? shown : clean;
    const size_t offset = sample * sample_size;
    for (size_t element = 0; element < sample_size; ++element) {
      const double signal = hidden[element / spec.d] ? 0.0 : signal_of[element];
      const double noisy = signal + spec.noise * rng.normal();
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

}  // namespace

Dataset generate(const DatasetConfig& spec, std::uint64_t seed) {
  validate(spec);
  Dataset dataset;
  dataset.spec = spec;
  dataset.seed = seed;
  const DatasetKind& kind = dataset_kind(spec.kind);
  if (kind.tokens)
    throw std::invalid_argument("dataset.kind \"" + spec.kind +
                                "\" is token data, read or drawn when a next_token run starts; "
                                "there are no float samples to generate");
  dataset.kind = &kind;
  if (kind.draw_structure) {
    Rng structure_rng(seed, Stream::kDatasetStructure);
    kind.draw_structure(dataset, structure_rng);
  }
  interrupt::throw_if_stop_requested("data generation");
  dataset.covariance = kind.covariance(dataset);
  std::vector<bool> hidden(spec.n, false);
  if (dataset.input_mixing.size() > 0) {
    dataset.fixed_operator =
        mixed_fixed_operator(dataset.covariance, dataset.input_mixing, spec.noise);
  } else if (kind.hidden_rows) {
    for (int position : kind.hidden_rows(spec)) hidden.at(position) = true;
    dataset.fixed_operator = best_fixed_operator(dataset.covariance, hidden, spec.noise);
  } else {
    dataset.fixed_operator = wiener_operator(dataset.covariance, spec.noise);
  }

  interrupt::throw_if_stop_requested("data generation");
  const SignalDrawer draw_signal = kind.signal_drawer(dataset);
  dataset.train = draw_set(spec, spec.train_size, Rng(seed, Stream::kTrainSamples), draw_signal,
                           kind.has_partners, hidden, dataset.input_mixing);
  dataset.test = draw_set(spec, spec.test_size, Rng(seed, Stream::kTestSamples), draw_signal,
                          kind.has_partners, hidden, dataset.input_mixing);
  return dataset;
}

}  // namespace ufl::data
