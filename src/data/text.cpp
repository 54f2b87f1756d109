// The `text` kind (docs/transformer.md §2): characters of a UTF-8 text as tokens. dataset.path is
// a file, or a folder whose regular files that are UTF-8 text are read in name order (symbolic
// links and files that are not text, such as the .dat indexes beside Debian's fortunes, are
// skipped and listed). The vocabulary is the sorted set of the corpus's characters; the first
// 1 − val_fraction of the characters train (every window of n + 1 characters is a training
// sample), the rest validate on val_windows windows drawn once from the data seed.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

namespace fs = std::filesystem;

// The code points of `bytes`; false when they are not UTF-8 text (an invalid sequence or NUL).
bool decode_utf8(const std::string& bytes, std::vector<std::uint32_t>& points) {
  for (std::size_t at = 0; at < bytes.size();) {
    const unsigned char lead = static_cast<unsigned char>(bytes[at]);
    std::size_t length;
    std::uint32_t point;
    if (lead == 0) return false;
    if (lead < 0x80) {
      length = 1;
      point = lead;
    } else if ((lead >> 5) == 0x6) {
      length = 2;
      point = lead & 0x1F;
    } else if ((lead >> 4) == 0xE) {
      length = 3;
      point = lead & 0x0F;
    } else if ((lead >> 3) == 0x1E) {
      length = 4;
      point = lead & 0x07;
    } else {
      return false;
    }
    if (at + length > bytes.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(bytes[at + k]);
      if ((next >> 6) != 0x2) return false;
      point = point << 6 | (next & 0x3F);
    }
    const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < smallest[length] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF))
      return false;  // overlong, beyond Unicode, or a surrogate
    points.push_back(point);
    at += length;
  }
  return true;
}

std::string encode_utf8(std::uint32_t point) {
  std::string text;
  if (point < 0x80) {
    text += char(point);
  } else if (point < 0x800) {
    text += char(0xC0 | point >> 6);
    text += char(0x80 | (point & 0x3F));
  } else if (point < 0x10000) {
    text += char(0xE0 | point >> 12);
    text += char(0x80 | (point >> 6 & 0x3F));
    text += char(0x80 | (point & 0x3F));
  } else {
    text += char(0xF0 | point >> 18);
    text += char(0x80 | (point >> 12 & 0x3F));
    text += char(0x80 | (point >> 6 & 0x3F));
    text += char(0x80 | (point & 0x3F));
  }
  return text;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw std::invalid_argument("dataset.path: cannot read " + path.string() + ": " +
                                std::strerror(errno) +
                                "; point dataset.path at a readable text "
                                "file or folder");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

struct Corpus {
  std::vector<std::uint32_t> points;
  std::vector<std::string> files, skipped;
};

Corpus read_corpus(const std::string& path) {
  Corpus corpus;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw std::invalid_argument("dataset.path: " + path +
                                " does not exist; point it at a UTF-8 text file or a folder of "
                                "them (the default, Debian's fortunes, is installed by "
                                "scripts/install_deps.sh)");
  if (fs::is_regular_file(status)) {
    const std::string bytes = read_bytes(path);
    if (bytes.empty())
      throw std::invalid_argument("dataset.path: " + path + " is empty; give a text file");
    if (!decode_utf8(bytes, corpus.points))
      throw std::invalid_argument("dataset.path: " + path +
                                  " is not UTF-8 text (binary data or NUL bytes); give a text "
                                  "file");
    corpus.files.push_back(path);
    return corpus;
  }
  if (!fs::is_directory(status))
    throw std::invalid_argument("dataset.path: " + path +
                                " is neither a regular file nor a folder; give a text file or a "
                                "folder of them");
  std::vector<fs::path> entries;
  fs::directory_iterator listing(path, error);
  if (error)
    throw std::invalid_argument("dataset.path: cannot list " + path + ": " + error.message());
  for (const fs::directory_entry& entry : listing) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& entry : entries) {
    if (fs::is_symlink(fs::symlink_status(entry, error)) || !fs::is_regular_file(entry, error)) {
      if (!fs::is_directory(entry, error)) corpus.skipped.push_back(entry.string());
      continue;
    }
    std::string bytes;
    try {
      bytes = read_bytes(entry);
    } catch (const std::invalid_argument&) {
      corpus.skipped.push_back(entry.string());
      continue;
    }
    std::vector<std::uint32_t> points;
    if (bytes.empty() || !decode_utf8(bytes, points)) {
      corpus.skipped.push_back(entry.string());
      continue;
    }
    corpus.points.insert(corpus.points.end(), points.begin(), points.end());
    corpus.files.push_back(entry.string());
  }
  if (corpus.files.empty())
    throw std::invalid_argument("dataset.path: " + path + " holds no UTF-8 text file (" +
                                std::to_string(corpus.skipped.size()) +
                                " entries skipped: links or not text); give a text file or a "
                                "folder of them");
  return corpus;
}

BrokenRule check_text(const DatasetConfig& spec) {
  if (!(spec.val_fraction > 0 && spec.val_fraction < 1))
    return {"dataset.val_fraction", "a number between 0 and 1 (exclusive)"};
  if (spec.val_windows < 1) return {"dataset.val_windows", "an integer ≥ 1"};
  if (spec.path.empty()) return {"dataset.path", "a text file or a folder of them"};
  return {};
}

TokenDataset read_text(const DatasetConfig& spec, std::uint64_t seed) {
  Corpus corpus = read_corpus(spec.path);
  TokenDataset data;
  std::vector<std::uint32_t> characters = corpus.points;
  std::sort(characters.begin(), characters.end());
  characters.erase(std::unique(characters.begin(), characters.end()), characters.end());
  for (std::uint32_t point : characters) data.vocab.push_back(encode_utf8(point));
  const std::size_t total = corpus.points.size();
  const std::size_t train_size = std::size_t(double(total) * (1 - spec.val_fraction));
  const std::size_t needed = 10 * std::size_t(spec.n + 1);
  if (train_size < needed || total - train_size < needed)
    throw std::invalid_argument(
        "dataset.path: " + spec.path + " has " + std::to_string(total) +
        " characters: the training split holds " + std::to_string(train_size) +
        " and the validation split " + std::to_string(total - train_size) +
        ", fewer than 10 windows of dataset.n + 1 = " + std::to_string(spec.n + 1) +
        " characters (" + std::to_string(needed) + ") each; give a longer text or a smaller " +
        "dataset.n");
  for (TokenSplit* split : {&data.train, &data.validation}) split->n = spec.n;
  data.train.stream.reserve(train_size);
  data.validation.stream.reserve(total - train_size);
  for (std::size_t k = 0; k < total; ++k) {
    const auto id =
        std::int32_t(std::lower_bound(characters.begin(), characters.end(), corpus.points[k]) -
                     characters.begin());
    (k < train_size ? data.train.stream : data.validation.stream).push_back(id);
  }
  for (std::size_t s = 0; s + spec.n < data.train.stream.size(); ++s)
    data.train.starts.push_back(std::int64_t(s));
  Rng rng(seed, Stream::kTestSamples);
  const std::uint64_t room = data.validation.stream.size() - spec.n;
  for (int w = 0; w < spec.val_windows; ++w)
    data.validation.starts.push_back(std::int64_t(rng.below(room)));
  data.files = std::move(corpus.files);
  data.skipped_files = std::move(corpus.skipped);
  return data;
}

}  // namespace

DatasetKind text_kind() {
  DatasetKind kind;
  kind.name = "text";
  kind.summary =
      "characters of a UTF-8 text (dataset.path, a file or a folder) for next_token; the last "
      "dataset.val_fraction validates";
  kind.claimed_operator = "none";
  kind.check = check_text;
  kind.tokens = read_text;
  kind.vocabulary_bound = [](const DatasetConfig&) { return 256.0; };
  kind.held_out_windows = [](const DatasetConfig& spec) { return spec.val_windows; };
  kind.token_count = [](const DatasetConfig& spec) {
    std::error_code error;
    double bytes = 0;
    if (fs::is_regular_file(spec.path, error)) return double(fs::file_size(spec.path, error));
    if (fs::is_directory(spec.path, error))
      for (const auto& entry : fs::directory_iterator(spec.path, error))
        if (!entry.is_symlink(error) && entry.is_regular_file(error))
          bytes += double(entry.file_size(error));
    return bytes;  // at most one character per byte
  };
  return kind;
}

}  // namespace ufl::data
