// The `copy` kind, in-context copying (docs/universal_head.md §4): lines of a random segment of
// dataset.segment_min … dataset.segment_max tokens drawn from dataset.vocab letters, a separator
// `|`, the same segment again and a newline, one line after another, cut into sequences of n + 1
// tokens that each enter their first line at a random token. The segment's length varies from
// line to line, so no fixed offset finds the letter to copy: a mixer must look it up by content
// or by the separator's position. Only the copied letters are scored: there the next token is the
// letter of the segment at the same place, which a model that does not copy can only guess
// (ln(dataset.vocab) nats).
#include <algorithm>
#include <string>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// The labels of positions (TokenSplit::labels): only the copied letters are scored.
constexpr std::uint8_t kOther = 0, kCopied = 1;

BrokenRule check_copy(const DatasetConfig& spec) {
  if (spec.vocab < 2) return {"dataset.vocab", "an integer ≥ 2 (the letters of a segment)"};
  if (spec.segment_min < 1) return {"dataset.segment_min", "an integer ≥ 1"};
  if (spec.segment_max < spec.segment_min)
    return {"dataset.segment_max",
            "at least dataset.segment_min = " + std::to_string(spec.segment_min)};
  if (2 * spec.segment_max + 2 > spec.n + 1)
    return {"dataset.segment_max",
            "at most (dataset.n − 1)/2 = " + std::to_string((spec.n - 1) / 2) +
                " for dataset.n = " + std::to_string(spec.n) +
                " (a whole line, segment, separator, copy and newline, must fit in n + 1 "
                "tokens); raise dataset.n or lower dataset.segment_max"};
  return {};
}

// Appends one sequence of n + 1 tokens with its positions' labels: lines one after another, the
// first entered at a random token, so that no position of the window marks where lines begin.
// Position p predicts token p + 1: the separator and every copied letter but the last are scored.
void draw_sequence(const DatasetConfig& spec, Rng& rng, TokenSplit& split) {
  const int n = spec.n;
  const std::int32_t separator = spec.vocab, newline = spec.vocab + 1;
  split.starts.push_back(std::int64_t(split.stream.size()));
  std::vector<std::int32_t> sequence;
  std::vector<std::uint8_t> labels;
  bool first_line = true;
  while (int(sequence.size()) < n + 1) {
    const int length =
        spec.segment_min + int(rng.below(std::uint64_t(spec.segment_max - spec.segment_min + 1)));
    const std::size_t first = sequence.size();
    for (int k = 0; k < length; ++k) sequence.push_back(std::int32_t(rng.below(spec.vocab)));
    sequence.push_back(separator);
    for (int k = 0; k < length; ++k) sequence.push_back(sequence[first + k]);
    sequence.push_back(newline);
    labels.resize(sequence.size(), kOther);
    std::fill_n(labels.begin() + std::ptrdiff_t(first + length), length, kCopied);
    if (first_line) {
      // Enter the first line at a random token of it; a copied letter whose source was cut off
      // is not scored (nothing in the window says what it is).
      const std::ptrdiff_t skip = std::ptrdiff_t(rng.below(sequence.size()));
      for (int k = 0; k < length && k < skip; ++k) labels[length + k] = kOther;
      sequence.erase(sequence.begin(), sequence.begin() + skip);
      labels.erase(labels.begin(), labels.begin() + skip);
      first_line = false;
    }
  }
  sequence.resize(n + 1);
  labels.resize(n);
  split.stream.insert(split.stream.end(), sequence.begin(), sequence.end());
  split.position_labels.insert(split.position_labels.end(), labels.begin(), labels.end());
}

TokenDataset draw_copy(const DatasetConfig& spec, std::uint64_t seed) {
  TokenDataset data;
  for (int t = 0; t < spec.vocab; ++t)
    data.vocab.push_back(spec.vocab <= 26 ? std::string(1, char('a' + t))
                                          : "c" + std::to_string(t));
  data.vocab.push_back("|");
  data.vocab.push_back("\n");
  draw_token_splits(spec, seed, data, draw_sequence);
  for (TokenSplit* split : {&data.train, &data.validation})
    split->labels = {{"other", 0.0f}, {"copied", 1.0f}};  // kOther, kCopied
  return data;
}

}  // namespace

DatasetKind copy_kind() {
  DatasetKind kind;
  kind.name = "copy";
  kind.summary =
      "in-context copying for next_token: random segments of dataset.vocab letters, `|`, the "
      "segment again; scored on the copied letters";
  kind.claimed_operator = "attention";
  kind.check = check_copy;
  kind.default_vocab = 26;
  kind.default_segment_min = 6;
  kind.default_segment_max = 20;
  kind.vocabulary_key = "dataset.vocab";
  kind.tokens = draw_copy;
  kind.vocabulary_bound = [](const DatasetConfig& spec) { return double(spec.vocab + 2); };
  count_drawn_sequences(kind);
  return kind;
}

}  // namespace ufl::data
