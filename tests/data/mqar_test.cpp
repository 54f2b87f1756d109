// The `mqar` kind (docs/transformer.md §2): pairs first, then each key queried once and followed by
// its value; only the queries are scored, keys and values come from disjoint halves of the
// vocabulary; pairs that do not fit are refused with the largest that would.
#include <doctest/doctest.h>

#include <set>

#include "data/registry.hpp"

using namespace ufl;

namespace {

data::DatasetConfig mqar_spec(int n = 24, int pairs = 4) {
  data::DatasetConfig spec;
  spec.kind = "mqar";
  spec.n = n;
  spec.vocab = 20;
  spec.pairs = pairs;
  spec.train_size = 50;
  spec.test_size = 10;
  return spec;
}

}  // namespace

TEST_CASE("mqar sequences: pairs, then every key queried once and followed by its value") {
  const data::DatasetConfig spec = mqar_spec();
  const data::TokenDataset data = data::generate_tokens(spec, 3);
  CHECK(data.vocab.size() == 20);
  CHECK(data.vocab[0] == "k0");
  CHECK(data.vocab[10] == "v0");
  CHECK(data.train.count() == 50);
  CHECK(data.validation.count() == 10);
  // Positions are labelled: the queries scored, the rest not.
  REQUIRE(data.train.labels.size() == 2);
  CHECK(data.train.labels[1].name == "query");
  CHECK(data.train.labels[1].weight == 1.0f);
  CHECK(data.train.labels[0].weight == 0.0f);
  CHECK(data.validation.labels.size() == 2);
  for (int s = 0; s < data.train.count(); ++s) {
    const std::int32_t* window = data.train.window(s);
    std::vector<float> weights(spec.n);  // each position's weight, from its label
    for (int i = 0; i < spec.n; ++i) weights[i] = data.train.weight(s, i);
    std::set<int> keys;
    for (int k = 0; k < 4; ++k) {
      CHECK(window[2 * k] < 10);       // keys from the first half
      CHECK(window[2 * k + 1] >= 10);  // values from the second
      keys.insert(window[2 * k]);
    }
    CHECK(keys.size() == 4);  // distinct keys
    int queries = 0;
    for (int i = 0; i < spec.n; ++i) {
      if (weights[i] == 0) continue;
      ++queries;
      CHECK(i >= 8);
      // The scored position holds a key; its target, the next token, is that key's value.
      int pair = -1;
      for (int k = 0; k < 4; ++k)
        if (window[2 * k] == window[i]) pair = k;
      REQUIRE(pair >= 0);
      CHECK(window[i + 1] == window[2 * pair + 1]);
    }
    CHECK(queries == 4);
  }
  // Deterministic for a seed; another seed, other sequences.
  CHECK(data::generate_tokens(spec, 3).train.stream == data.train.stream);
  CHECK(data::generate_tokens(spec, 4).train.stream != data.train.stream);
}

TEST_CASE("mqar pairs that do not fit in n are refused, naming the most that fit") {
  const data::DatasetKind& kind = data::dataset_kind("mqar");
  const data::BrokenRule broken = kind.check(mqar_spec(16, 8));
  CHECK(broken.key == "dataset.pairs");
  CHECK(broken.rule.find("at most 4 for dataset.n = 16") != std::string::npos);
  CHECK(!kind.check(mqar_spec(16, 4)));
  CHECK(kind.check(mqar_spec(64, 11)).key == "dataset.pairs");  // more than vocab/2 keys
}

TEST_CASE(
    "mqar with dataset.filler blank: every position off the pairs and queries is one blank "
    "token of its own, numbered vocab") {
  data::DatasetConfig spec = mqar_spec();
  spec.filler = "blank";
  const data::TokenDataset data = data::generate_tokens(spec, 3);
  REQUIRE(data.vocab.size() == 21);
  CHECK(data.vocab[20] == "_");
  for (int s = 0; s < data.train.count(); ++s) {
    const std::int32_t* window = data.train.window(s);
    std::vector<float> weights(spec.n);  // each position's weight, from its label
    for (int i = 0; i < spec.n; ++i) weights[i] = data.train.weight(s, i);
    int blanks = 0;
    for (int i = 8; i <= spec.n; ++i) {
      const bool query = i < spec.n && weights[i] != 0;
      const bool answer = weights[i - 1] != 0;
      if (query || answer) {
        CHECK(window[i] < 20);
      } else {
        CHECK(window[i] == 20);
        ++blanks;
      }
    }
    CHECK(blanks == spec.n + 1 - 8 - 2 * 4);  // n + 1 tokens: 8 of pairs, 4 queries and answers
  }
  // The default stays "random", and other words are refused.
  CHECK(mqar_spec().filler == "random");
  spec.filler = "zeros";
  CHECK(data::dataset_kind("mqar").check(spec).key == "dataset.filler");
}
