#pragma once
// Token data for the next_token task (docs/transformer.md §2): the `text` and `mqar` kinds give
// sequences of token ids instead of float n×d samples. A sample is a window of n + 1 tokens of a
// split's stream: the model reads the first n and predicts the last n (position i predicts
// token i + 1).
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_config.hpp"

namespace ufl::data {

struct TokenSplit {
  int n = 0;                         // positions per sample
  std::vector<std::int32_t> stream;  // the split's token ids
  std::vector<std::int64_t> starts;  // sample s reads stream[starts[s] .. starts[s] + n]
  // count × n: the weight of each position's loss (mqar: 1 at the values that follow a query,
  // else 0). Empty: every position counts once.
  std::vector<float> weights;

  int count() const { return static_cast<int>(starts.size()); }
  const std::int32_t* window(int s) const { return stream.data() + starts[s]; }  // n + 1 ids
  const float* weights_of(int s) const {
    return weights.empty() ? nullptr : weights.data() + static_cast<std::size_t>(s) * n;
  }
};

// A file of a text corpus as it was read: its size and a hash of its bytes, which manifest.json
// records so that a resume can tell whether the corpus changed (docs/transformer.md §4).
struct CorpusFile {
  std::string path;
  std::uint64_t bytes = 0;
  std::uint64_t content_hash = 0;  // io/content_hash.hpp
};

struct TokenDataset {
  // Token id → its UTF-8 text (a character for text, "k17"/"v3"-style names for mqar), in id
  // order; written as vocab.json in the run folder.
  std::vector<std::string> vocab;
  TokenSplit train, validation;
  // text: the files read, in order, and those skipped (not regular UTF-8 text), for the manifest.
  std::vector<CorpusFile> files;
  std::vector<std::string> skipped_files;
};

// Reads or draws the token data of a token kind (text, mqar) from the spec and seed. Throws
// std::invalid_argument with one line naming the path or key for data that cannot be used.
TokenDataset generate_tokens(const DatasetConfig& spec, std::uint64_t seed);

}  // namespace ufl::data
