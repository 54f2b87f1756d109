// The `copy` kind (docs/universal_head.md §4): lines of a random segment, `|`, the same segment and
// a newline, each sequence entering its first line at a random token; the separator and the
// copied letters but the last are scored (labelled "copied"), so the scored targets are exactly
// the copied letters; lines that cannot fit are refused with the largest segment that would.
#include <doctest/doctest.h>

#include "data/registry.hpp"

using namespace ufl;

namespace {

data::DatasetConfig copy_spec(int n = 32, int shortest = 3, int longest = 7) {
  data::DatasetConfig spec;
  spec.kind = "copy";
  spec.n = n;
  spec.vocab = 5;
  spec.segment_min = shortest;
  spec.segment_max = longest;
  spec.train_size = 40;
  spec.test_size = 10;
  return spec;
}

}  // namespace

TEST_CASE("copy sequences: each line's second half repeats its segment; the copies are scored") {
  const data::DatasetConfig spec = copy_spec();
  const data::TokenDataset data = data::generate_tokens(spec, 4);
  REQUIRE(data.vocab.size() == 7);
  CHECK(data.vocab[0] == "a");
  CHECK(data.vocab[4] == "e");
  CHECK(data.vocab[5] == "|");
  CHECK(data.vocab[6] == "\n");
  CHECK(data.train.count() == 40);
  CHECK(data.validation.count() == 10);
  // Positions are labelled: the copied letters scored, the rest not.
  REQUIRE(data.train.labels.size() == 2);
  CHECK(data.train.labels[1].name == "copied");
  CHECK(data.train.labels[1].weight == 1.0f);
  CHECK(data.train.labels[0].weight == 0.0f);
  int lengths_seen = 0;
  std::vector<bool> seen(8, false);
  for (int s = 0; s < data.train.count(); ++s) {
    const std::int32_t* window = data.train.window(s);
    std::vector<float> weights(spec.n);  // each position's weight, from its label
    for (int i = 0; i < spec.n; ++i) weights[i] = data.train.weight(s, i);
    // The window enters its first line at a random token: a scored position there predicts a
    // letter; whole lines follow the first newline.
    int line = 0;
    while (line < spec.n && window[line] != 6) {
      if (weights[line] != 0.0f) CHECK(window[line + 1] < 5);
      ++line;
    }
    ++line;
    // Walk the lines: letters up to `|`, then the copy.
    while (line <= spec.n) {
      int length = 0;
      while (line + length <= spec.n && window[line + length] < 5) ++length;
      if (line + length > spec.n) break;  // the window ends inside a segment
      REQUIRE(window[line + length] == 5);
      CHECK(length >= 3);
      CHECK(length <= 7);
      if (!seen[length]) ++lengths_seen, seen[length] = true;
      for (int k = 0; k < length && line + length + 1 + k <= spec.n; ++k) {
        CHECK(window[line + length + 1 + k] == window[line + k]);  // the copy
        CHECK(weights[line + length + k] == 1.0f);  // the position before it predicts it
      }
      for (int k = 0; k < length; ++k) CHECK(weights[line + k] == 0.0f);  // segment: unscored
      const int newline = line + 2 * length + 1;
      if (newline <= spec.n) CHECK(window[newline] == 6);
      if (newline - 1 < spec.n) CHECK(weights[newline - 1] == 0.0f);  // predicts the newline
      line = newline + 1;
    }
  }
  CHECK(lengths_seen == 5);  // every length from 3 to 7 occurs
  // Windows start at different places of their first line.
  std::vector<bool> first_tokens(7, false);
  for (int s = 0; s < data.train.count(); ++s) first_tokens[data.train.window(s)[0]] = true;
  CHECK(first_tokens[5]);  // some windows start at a separator
  CHECK(first_tokens[6]);  // some at a newline
  // Deterministic for a seed; another seed, other sequences.
  CHECK(data::generate_tokens(spec, 4).train.stream == data.train.stream);
  CHECK(data::generate_tokens(spec, 5).train.stream != data.train.stream);
}

TEST_CASE("copy: lines that do not fit in n + 1 tokens are refused with the longest that fits") {
  try {
    data::validate(copy_spec(16, 3, 9));
    FAIL("accepted");
  } catch (const std::invalid_argument& error) {
    CHECK(std::string(error.what()).find("dataset.segment_max") != std::string::npos);
    CHECK(std::string(error.what()).find("at most (dataset.n − 1)/2 = 7") != std::string::npos);
  }
  CHECK_NOTHROW(data::validate(copy_spec(16, 3, 7)));
  CHECK_THROWS_WITH_AS(data::validate(copy_spec(32, 5, 4)),
                       doctest::Contains("dataset.segment_max"), std::invalid_argument);
}
