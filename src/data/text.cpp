// The `text` kind (docs/transformer.md §2): characters of a UTF-8 text as tokens. dataset.path is
// a file, or a folder whose regular files that are UTF-8 text are read in name order (symbolic
// links and files that are not text, such as the .dat indexes beside Debian's fortunes, are
// skipped and listed). The vocabulary is the sorted set of the corpus's characters; the first
// 1 − val_fraction of the characters train (every window of n + 1 characters is a training
// sample), the rest validate on val_windows windows drawn once from the data seed.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "data/kinds.hpp"
#include "io/available_memory.hpp"
#include "io/content_hash.hpp"
#include "io/log.hpp"

namespace ufl::data {
namespace {

namespace fs = std::filesystem;

// At most this much of a file is read before it is known to be text: a 2 GB file of NUL bytes
// is refused after 64 kB, not after reading it whole.
constexpr std::size_t kSniffBytes = 64 * 1024;

// Where bytes stop being UTF-8 text: the offset of the first NUL byte or invalid sequence and
// what it is ("a NUL byte"); `what` is empty when every byte is text.
struct TextFault {
  std::size_t offset = 0;
  std::string what;
  explicit operator bool() const { return !what.empty(); }
  std::string describe() const { return what + " at byte offset " + std::to_string(offset); }
};

// Decodes `bytes` into `points` (when given) up to the first fault. With `cut_end`, a sequence
// cut short by the end of `bytes` (a prefix of a file) is not a fault.
TextFault decode_utf8(std::string_view bytes, std::vector<std::uint32_t>* points,
                      bool cut_end = false) {
  auto invalid = [&](std::size_t at) {
    char what[48];
    std::snprintf(what, sizeof what, "a byte 0x%02X that is not UTF-8",
                  static_cast<unsigned char>(bytes[at]));
    return TextFault{at, what};
  };
  for (std::size_t at = 0; at < bytes.size();) {
    const unsigned char lead = static_cast<unsigned char>(bytes[at]);
    std::size_t length;
    std::uint32_t point;
    if (lead == 0) return {at, "a NUL byte"};
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
      return invalid(at);
    }
    if (at + length > bytes.size()) {
      if (cut_end) return {};
      return {at, "a UTF-8 sequence cut short by the end of the file"};
    }
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(bytes[at + k]);
      if ((next >> 6) != 0x2) return invalid(at + k);
      point = point << 6 | (next & 0x3F);
    }
    const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < smallest[length] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF))
      return {at, "an overlong, surrogate or out-of-range UTF-8 sequence"};
    if (points != nullptr) points->push_back(point);
    at += length;
  }
  return {};
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

std::invalid_argument unreadable(const fs::path& path) {
  return std::invalid_argument("dataset.path: cannot read " + path.string() + ": " +
                               std::strerror(errno) +
                               "; point dataset.path at a readable text file or folder");
}

// The first `limit` bytes of a file (all of it when shorter).
std::string read_bytes(const fs::path& path, std::size_t limit = std::string::npos) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw unreadable(path);
  if (limit == std::string::npos) {
    std::ostringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
  }
  std::string bytes(limit, '\0');
  file.read(bytes.data(), std::streamsize(limit));
  bytes.resize(std::size_t(file.gcount()));
  return bytes;
}

// What makes a file not text, judged from its first kSniffBytes; empty when they are text.
std::string prefix_fault(const fs::path& path) {
  const TextFault fault = decode_utf8(read_bytes(path, kSniffBytes), nullptr, true);
  return fault ? fault.describe() + ", found in its first 64 kB" : std::string();
}

std::invalid_argument not_text(const std::string& path, const std::string& fault) {
  return std::invalid_argument("dataset.path: " + path + " is not UTF-8 text (" + fault +
                               "); give a text file");
}

// Why a folder's entry is not read, in the singular and the plural.
struct SkipReason {
  const char* one;
  const char* many;
};
constexpr SkipReason kLink{"link", "links"}, kSubfolder{"subfolder", "subfolders"},
    kSpecialFile{"FIFO, socket or device", "FIFOs, sockets or devices"},
    kEmptyFile{"empty file", "empty files"},
    kNotText{"file that is not text", "files that are not text"},
    kUnreadable{"unreadable file", "unreadable files"};

struct Corpus {
  std::vector<std::uint32_t> points;
  std::vector<CorpusFile> files;
  std::vector<std::string> skipped;
  // Why entries were skipped, in order of first appearance, with their counts (the log line).
  std::vector<std::pair<const SkipReason*, int>> skipped_by_reason;
  void skip(const fs::path& entry, const SkipReason& reason) {
    skipped.push_back(entry.string());
    for (auto& [known, count] : skipped_by_reason)
      if (known == &reason) {
        ++count;
        return;
      }
    skipped_by_reason.push_back({&reason, 1});
  }
};

// Reads one text file into the corpus; the fault that makes it not text otherwise (checked on
// its first kSniffBytes before the whole file is read).
std::string add_text_file(const fs::path& path, Corpus& corpus) {
  if (const std::string fault = prefix_fault(path); !fault.empty()) return fault;
  const std::string bytes = read_bytes(path);
  std::vector<std::uint32_t> points;
  if (const TextFault fault = decode_utf8(bytes, &points)) return fault.describe();
  corpus.points.insert(corpus.points.end(), points.begin(), points.end());
  corpus.files.push_back({path.string(), bytes.size(), io::content_hash(bytes)});
  return {};
}

// "3 links, 1 subfolder": the skipped entries by reason.
std::string skipped_text(const Corpus& corpus) {
  std::string text;
  for (const auto& [reason, count] : corpus.skipped_by_reason)
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " +
            (count == 1 ? reason->one : reason->many);
  return text;
}

// A folder's own regular files, in name order. Subfolders are not read (a folder means its
// files, as when it was first read: docs/transformer.md §4), so no link, loop or mount can pull
// in a tree; links, FIFOs, sockets and devices are skipped without being opened.
void read_folder(const std::string& path, Corpus& corpus) {
  std::error_code error;
  std::vector<fs::path> entries;
  fs::directory_iterator listing(path, error);
  if (error)
    throw std::invalid_argument("dataset.path: cannot list " + path + ": " + error.message());
  for (const fs::directory_entry& entry : listing) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& entry : entries) {
    const fs::file_status status = fs::symlink_status(entry, error);
    if (fs::is_symlink(status)) {
      corpus.skip(entry, kLink);
    } else if (fs::is_directory(status)) {
      corpus.skip(entry, kSubfolder);
    } else if (!fs::is_regular_file(status)) {
      corpus.skip(entry, kSpecialFile);
    } else if (fs::file_size(entry, error) == 0) {
      corpus.skip(entry, kEmptyFile);
    } else {
      try {
        if (!add_text_file(entry, corpus).empty()) corpus.skip(entry, kNotText);
      } catch (const std::invalid_argument&) {
        corpus.skip(entry, kUnreadable);
      }
    }
  }
}

// dataset.path names a regular file or a folder, else std::invalid_argument; checked by `ufl train`
// and `ufl config` before the memory estimate, and again when the corpus is read. Returns whether
// it is a file.
bool check_corpus_path(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw std::invalid_argument("dataset.path: " + path +
                                " does not exist; point it at a UTF-8 text file or a folder of "
                                "them (the default, Debian's fortunes, is installed by "
                                "scripts/install_deps.sh)");
  if (fs::is_regular_file(status)) return true;
  if (!fs::is_directory(status))
    throw std::invalid_argument("dataset.path: " + path +
                                " is neither a regular file nor a folder; give a text file or a "
                                "folder of them");
  return false;
}

Corpus read_corpus(const std::string& path) {
  Corpus corpus;
  if (check_corpus_path(path)) {
    // A file of size 0 may still hold text: the kernel's files (/proc) report no size.
    if (read_bytes(path, 1).empty())
      throw std::invalid_argument("dataset.path: " + path + " is empty; give a text file");
    if (const std::string fault = add_text_file(path, corpus); !fault.empty())
      throw not_text(path, fault);
    return corpus;
  }
  read_folder(path, corpus);
  if (corpus.files.empty())
    throw std::invalid_argument("dataset.path: " + path + " holds no UTF-8 text file (skipped " +
                                std::to_string(corpus.skipped.size()) +
                                (corpus.skipped.empty() ? "" : ": ") + skipped_text(corpus) +
                                "); give a text file or a folder of them");
  std::uint64_t bytes = 0;
  for (const CorpusFile& file : corpus.files) bytes += file.bytes;
  spdlog::info("dataset.path {}: read {} file{} ({}), skipped {}{}{}", path, corpus.files.size(),
               corpus.files.size() == 1 ? "" : "s", io::format_bytes(double(bytes)),
               corpus.skipped.size(), corpus.skipped.empty() ? "" : ": ", skipped_text(corpus));
  return corpus;
}

BrokenRule check_text(const DatasetConfig& spec) {
  if (!(spec.val_fraction > 0 && spec.val_fraction < 1))
    return {"dataset.val_fraction", "a number between 0 and 1 (exclusive)"};
  if (spec.val_windows < 1) return {"dataset.val_windows", "an integer ≥ 1"};
  if (spec.path.empty()) return {"dataset.path", "a text file or a folder of them"};
  return {};
}

}  // namespace

TokenDataset read_text_streams(const DatasetConfig& spec) {
  Corpus corpus = read_corpus(spec.path);
  TokenDataset data;
  std::vector<std::uint32_t> characters = corpus.points;
  std::sort(characters.begin(), characters.end());
  characters.erase(std::unique(characters.begin(), characters.end()), characters.end());
  for (std::uint32_t point : characters) data.vocab.push_back(encode_utf8(point));
  const std::size_t total = corpus.points.size();
  const std::size_t train_size = std::size_t(double(total) * (1 - spec.val_fraction));
  const std::size_t needed = 10 * std::size_t(spec.n + 1);
  if (train_size < needed || total - train_size < needed) {
    // Too short for both splits, or split too unevenly by dataset.val_fraction.
    std::string fix = "give a longer text or a smaller dataset.n";
    if (total >= 2 * needed + 2) {
      const double low = double(needed + 1) / double(total), high = 1 - low;
      fix = (train_size < needed ? fmt::format("lower dataset.val_fraction = {} to at most {:.3g}",
                                               spec.val_fraction, std::floor(high * 1e3) / 1e3)
                                 : fmt::format("raise dataset.val_fraction = {} to at least {:.3g}",
                                               spec.val_fraction, std::ceil(low * 1e3) / 1e3)) +
            ", or " + fix;
    }
    throw std::invalid_argument(
        "dataset.path: " + spec.path + " has " + std::to_string(total) +
        (total == 1 ? " character" : " characters") + ": the training split holds " +
        std::to_string(train_size) + " and the validation split " +
        std::to_string(total - train_size) + ", fewer than 10 windows of dataset.n + 1 = " +
        std::to_string(spec.n + 1) + " characters (" + std::to_string(needed) + ") each; " + fix);
  }
  for (TokenSplit* split : {&data.train, &data.validation}) split->n = spec.n;
  data.train.stream.reserve(train_size);
  data.validation.stream.reserve(total - train_size);
  for (std::size_t k = 0; k < total; ++k) {
    const auto id =
        std::int32_t(std::lower_bound(characters.begin(), characters.end(), corpus.points[k]) -
                     characters.begin());
    (k < train_size ? data.train.stream : data.validation.stream).push_back(id);
  }
  data.files = std::move(corpus.files);
  data.skipped_files = std::move(corpus.skipped);
  return data;
}

namespace {

TokenDataset read_text(const DatasetConfig& spec, std::uint64_t seed) {
  TokenDataset data = read_text_streams(spec);
  for (std::size_t s = 0; s + spec.n < data.train.stream.size(); ++s)
    data.train.starts.push_back(std::int64_t(s));
  Rng rng(seed, Stream::kTestSamples);
  const std::uint64_t room = data.validation.stream.size() - spec.n;
  for (int w = 0; w < spec.val_windows; ++w)
    data.validation.starts.push_back(std::int64_t(rng.below(room)));
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
  kind.vocabulary_key = "dataset.path";
  kind.tokens = read_text;
  kind.shared_keys = {};  // its size is its text's, its validation dataset.val_fraction's
  kind.size_key = "dataset.path";
  kind.check_files = [](const DatasetConfig& spec) {
    if (!check_corpus_path(spec.path)) return;  // a folder: its files are judged when read
    if (const std::string fault = prefix_fault(spec.path); !fault.empty())
      throw not_text(spec.path, fault);
  };
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
