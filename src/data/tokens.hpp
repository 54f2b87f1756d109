#pragma once
// Token data for the next_token task (docs/transformer.md §2): the token kinds (text, mqar, copy,
// copy_text) give sequences of token ids instead of float n×d samples. A sample is a window of
// n + 1 tokens of a split's stream: the model reads the first n and predicts the last n (position
// i predicts token i + 1).
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_config.hpp"

namespace ufl::data {

// What a position of a window is, for kinds that tell positions apart (docs/transformer.md §1):
// the label's name and the weight of the loss at its positions (0: not scored).
struct PositionLabel {
  std::string name;  // "copied", "fresh", "query", "other"
  float weight = 1;
};

struct TokenSplit {
  int n = 0;                         // positions per sample
  std::vector<std::int32_t> stream;  // the split's token ids
  std::vector<std::int64_t> starts;  // sample s reads stream[starts[s] .. starts[s] + n]
  // The labels this kind gives positions (copy: "copied", scored, and "other", not; mqar: "query"
  // and "other"; copy_text: "fresh" and "copied", both scored) and, count × n, the index into
  // `labels` of each position: position i of window s is labels[label_of(s)[i]]. Position i
  // predicts token i + 1, so its label says what that token is. Empty: every position is scored
  // with weight 1.
  std::vector<PositionLabel> labels;
  std::vector<std::uint8_t> position_labels;

  int count() const { return static_cast<int>(starts.size()); }
  const std::int32_t* window(int s) const { return stream.data() + starts[s]; }  // n + 1 ids
  const std::uint8_t* label_of(int s) const {
    return position_labels.empty() ? nullptr
                                   : position_labels.data() + static_cast<std::size_t>(s) * n;
  }
  // The weight of position i of window s in the loss.
  float weight(int s, int i) const {
    const std::uint8_t* label = label_of(s);
    return label == nullptr ? 1.0f : labels[label[i]].weight;
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
