// What the drawn token kinds (mqar, copy) share: independent sequences of n + 1 tokens, the
// training ones from the training stream and the held-out ones from the test stream, and the
// counts their records report.
#include "data/kinds.hpp"

namespace ufl::data {

void draw_token_splits(const DatasetConfig& spec, std::uint64_t seed, TokenDataset& data,
                       const SequenceDrawer& draw_sequence) {
  data.train.n = data.validation.n = spec.n;
  Rng train_rng(seed, Stream::kTrainSamples), test_rng(seed, Stream::kTestSamples);
  for (int s = 0; s < spec.train_size; ++s) draw_sequence(spec, train_rng, data.train);
  for (int s = 0; s < spec.test_size; ++s) draw_sequence(spec, test_rng, data.validation);
}

void count_drawn_sequences(DatasetKind& kind) {
  // Of the keys that size float samples, the sequences' counts only (no channels, no noise).
  kind.shared_keys = {"dataset.train_size", "dataset.test_size"};
  kind.held_out_windows = [](const DatasetConfig& spec) { return spec.test_size; };
  kind.token_count = [](const DatasetConfig& spec) {
    return double(spec.train_size + spec.test_size) * (spec.n + 1);
  };
}

}  // namespace ufl::data
