// The `mqar` kind, multi-query associative recall (Arora et al. 2023, "Zoology";
// docs/transformer.md §2). A sequence of n + 1 tokens: first the dataset.pairs key–value pairs
// k₁ v₁ k₂ v₂ … (keys distinct, from the vocabulary's first half; values distinct, from its second
// half), then the rest of the sequence, cut into slots of two positions: dataset.pairs slots,
// chosen at random, hold a query (a key of the pairs, each once, in random order) followed by its
// value; the other positions hold filler: with dataset.filler "random" tokens drawn from the whole
// vocabulary, as Zoology's random non-queries (a filler token that equals a key is a false match
// for a lookup), with "blank" one token of its own, numbered dataset.vocab, as Zoology's
// random_non_queries = False. Only the positions of queries are scored: there the next token, the
// model's target, is the query's value. Slots are drawn uniformly (Zoology draws them with a
// power law that favours early ones).
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// The labels of positions (TokenSplit::labels): only the queries, which predict their values, are
// scored.
constexpr std::uint8_t kOther = 0, kQuery = 1;

// Query slots of two positions after the pairs in a sequence of n + 1 tokens.
int query_slots(int n, int pairs) { return (n + 1 - 2 * pairs) / 2; }

// The most pairs whose queries fit in a sequence of n + 1 tokens.
int most_pairs(int n) {
  int pairs = 0;
  while (query_slots(n, pairs + 1) >= pairs + 1) ++pairs;
  return pairs;
}

bool blank_filler(const DatasetConfig& spec) { return spec.filler == "blank"; }

BrokenRule check_mqar(const DatasetConfig& spec) {
  if (spec.filler != "random" && !blank_filler(spec))
    return {"dataset.filler", "\"random\" or \"blank\""};
  if (spec.vocab < 4 || spec.vocab % 2 != 0) return {"dataset.vocab", "an even integer ≥ 4"};
  if (spec.pairs < 1) return {"dataset.pairs", "an integer ≥ 1"};
  if (spec.pairs > spec.vocab / 2)
    return {"dataset.pairs", "at most dataset.vocab / 2 = " + std::to_string(spec.vocab / 2) +
                                 " (distinct keys from the vocabulary's first half)"};
  if (query_slots(spec.n, spec.pairs) < spec.pairs) {
    // Each pair takes two positions and its query slot two more: n + 1 ≥ 4 × pairs.
    const std::string needed_n = std::to_string(4 * spec.pairs - 1);
    if (most_pairs(spec.n) == 0)  // not even one pair fits: n is what to change
      return {"dataset.n", "at least 4 × dataset.pairs − 1 = " + needed_n +
                               " for dataset.pairs = " + std::to_string(spec.pairs) +
                               " (each pair and its query take four of the n + 1 tokens; one "
                               "pair needs dataset.n ≥ 3)"};
    return {"dataset.pairs", "at most " + std::to_string(most_pairs(spec.n)) +
                                 " for dataset.n = " + std::to_string(spec.n) +
                                 " (the pairs and one query slot of two positions per pair must "
                                 "fit in n + 1 tokens); lower dataset.pairs, or raise dataset.n to "
                                 "4 × dataset.pairs − 1 = " +
                                 needed_n};
  }
  return {};
}

// Appends one sequence of n + 1 tokens to `split` with its positions' labels.
void draw_sequence(const DatasetConfig& spec, Rng& rng, TokenSplit& split) {
  const int n = spec.n, pairs = spec.pairs, half = spec.vocab / 2;
  // Distinct keys and values: the first `pairs` of a partial Fisher–Yates shuffle of the tokens
  // first + 0 … first + half − 1, with only the moved entries stored, so that a sequence costs
  // O(pairs) however large the vocabulary (the draws are those of the full shuffle).
  auto draw_distinct = [&](int first) {
    std::unordered_map<int, int> moved;
    auto at = [&](int k) {
      const auto found = moved.find(k);
      return found == moved.end() ? first + k : found->second;
    };
    std::vector<int> drawn(pairs);
    for (int k = 0; k < pairs; ++k) {
      const int j = k + int(rng.below(std::uint64_t(half - k)));
      drawn[k] = at(j);
      moved[j] = at(k);
    }
    return drawn;
  };
  const std::vector<int> keys = draw_distinct(0);
  const std::vector<int> values = draw_distinct(half);
  const std::int64_t start = std::int64_t(split.stream.size());
  split.starts.push_back(start);
  std::vector<std::int32_t> sequence(n + 1);
  std::vector<std::uint8_t> labels(n, kOther);
  for (int k = 0; k < pairs; ++k) {
    sequence[2 * k] = keys[k];
    sequence[2 * k + 1] = values[k];
  }
  if (blank_filler(spec))
    std::fill(sequence.begin() + 2 * pairs, sequence.end(), std::int32_t(spec.vocab));
  else
    for (int i = 2 * pairs; i <= n; ++i) sequence[i] = std::int32_t(rng.below(spec.vocab));
  const int slots = query_slots(n, pairs);
  std::vector<int> slot(slots), order(pairs);
  std::iota(slot.begin(), slot.end(), 0);
  std::iota(order.begin(), order.end(), 0);
  for (int k = 0; k < pairs; ++k) std::swap(slot[k], slot[k + int(rng.below(slots - k))]);
  rng.shuffle(order.begin(), order.end());
  for (int q = 0; q < pairs; ++q) {
    const int at = 2 * pairs + 2 * slot[q];
    sequence[at] = keys[order[q]];
    sequence[at + 1] = values[order[q]];
    labels[at] = kQuery;  // position `at` predicts token at + 1, the value
  }
  split.stream.insert(split.stream.end(), sequence.begin(), sequence.end());
  split.position_labels.insert(split.position_labels.end(), labels.begin(), labels.end());
}

TokenDataset draw_mqar(const DatasetConfig& spec, std::uint64_t seed) {
  TokenDataset data;
  for (int t = 0; t < spec.vocab; ++t)
    data.vocab.push_back(t < spec.vocab / 2 ? "k" + std::to_string(t)
                                            : "v" + std::to_string(t - spec.vocab / 2));
  if (blank_filler(spec)) data.vocab.push_back("_");
  draw_token_splits(spec, seed, data, draw_sequence);
  for (TokenSplit* split : {&data.train, &data.validation})
    split->labels = {{"other", 0.0f}, {"query", 1.0f}};  // kOther, kQuery
  return data;
}

}  // namespace

DatasetKind mqar_kind() {
  DatasetKind kind;
  kind.name = "mqar";
  kind.summary =
      "multi-query associative recall for next_token: dataset.pairs key–value pairs, then "
      "queries of their keys, each scored on its value";
  kind.claimed_operator = "attention";
  kind.check = check_mqar;
  kind.default_vocab = 256;
  kind.vocabulary_key = "dataset.vocab";
  kind.tokens = draw_mqar;
  kind.vocabulary_bound = [](const DatasetConfig& spec) {
    return double(spec.vocab + (blank_filler(spec) ? 1 : 0));
  };
  count_drawn_sequences(kind);
  return kind;
}

}  // namespace ufl::data
