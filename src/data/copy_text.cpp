// The `copy_text` kind, the mixed token task (docs/transformer.md §13): windows of real text (the
// text kind's corpus, dataset.path) in which dataset.segments segments are repeated verbatim later
// in the same window, so that a model needs local statistics of text and in-context retrieval in
// one stream. Each window is n + 1 characters of the corpus at a random place; each copy of
// segment_min … segment_max characters overwrites the characters at its place, so the stream stays
// text, and repeats a stretch of the window's own text (never another copy) that ends at least
// gap_min characters before it. A position is labelled "copied" when the character it predicts
// lies in a copy after the copy's first character (which nothing announces), else "fresh"; both
// are scored. With copy_source "shuffled" (the control) each copy holds as many characters drawn
// from elsewhere in the split's text that the window holds nowhere before, so that the "copied"
// positions point to nothing.
#include <algorithm>
#include <set>
#include <string>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// The labels of positions (TokenSplit::labels).
constexpr std::uint8_t kFresh = 0, kCopied = 1;

bool shuffled(const DatasetConfig& spec) { return spec.copy_source == "shuffled"; }

// The first `prefix` characters of a window hold no copy, so that every copy has text of the
// window to repeat: the longest segment and the smallest gap.
int prefix(const DatasetConfig& spec) { return spec.segment_max + spec.gap_min; }

// The characters a window needs for the prefix and `segments` copies of the longest segment: every
// draw fits when this is at most n + 1.
int tightest_window(const DatasetConfig& spec, int segments) {
  return prefix(spec) + segments * spec.segment_max;
}

BrokenRule check_copy_text(const DatasetConfig& spec) {
  if (const BrokenRule broken = text_kind().check(spec)) return broken;
  if (spec.copy_source != "window" && !shuffled(spec))
    return {"dataset.copy_source", "\"window\" or \"shuffled\""};
  if (spec.segment_min < 2)
    return {"dataset.segment_min",
            "an integer ≥ 2 (a copy's first character is fresh: a segment of 1 copies nothing)"};
  if (spec.segment_max < spec.segment_min)
    return {"dataset.segment_max",
            "at least dataset.segment_min = " + std::to_string(spec.segment_min)};
  if (spec.gap_min < 0) return {"dataset.gap_min", "an integer ≥ 0"};
  if (spec.segments < 1) return {"dataset.segments", "an integer ≥ 1"};
  if (tightest_window(spec, spec.segments) > spec.n + 1) {
    const std::string rule =
        "(dataset.segments + 1) × dataset.segment_max + dataset.gap_min ≤ dataset.n + 1: the "
        "first segment_max + gap_min characters hold no copy, so that every copy has text to "
        "repeat, and the copies fit after them at the longest segment";
    if (tightest_window(spec, 1) > spec.n + 1)  // not even one segment fits: n is what to change
      return {"dataset.n", "at least 2 × dataset.segment_max + dataset.gap_min − 1 = " +
                               std::to_string(tightest_window(spec, 1) - 1) + " (" + rule +
                               "); raise dataset.n or lower dataset.segment_max or gap_min"};
    int most = 1;
    while (tightest_window(spec, most + 1) <= spec.n + 1) ++most;
    return {"dataset.segments",
            "at most " + std::to_string(most) + " for dataset.n = " + std::to_string(spec.n) +
                ", segment_max = " + std::to_string(spec.segment_max) +
                " and gap_min = " + std::to_string(spec.gap_min) + " (" + rule + ")"};
  }
  return {};
}

// A copy: `length` characters of the window starting at `source` written again at `destination`.
struct Copy {
  int length, source, destination;
};

// Where a window's copies go, drawn from `rng`, in order of destination: the lengths; then the
// copies' places, uniform over every way of putting them one after another without overlap after
// the prefix (stars and bars); then each copy's source, uniform over the starts whose `length`
// characters are all the window's own text (on no copy) and end at least gap_min characters
// before the copy. The start 0 always qualifies (the prefix holds no copy), so there is one.
std::vector<Copy> draw_copies(const DatasetConfig& spec, Rng& rng) {
  const int count = spec.segments;
  std::vector<int> lengths(count);
  int covered = 0;
  for (int& length : lengths) {
    length =
        spec.segment_min + int(rng.below(std::uint64_t(spec.segment_max - spec.segment_min + 1)));
    covered += length;
  }
  // The room left, slack = n + 1 − prefix − covered ≥ 0 (check_copy_text), goes into the
  // count + 1 stretches before, between and after the copies: `count` distinct bars among
  // slack + count places, drawn by Floyd's algorithm (exactly `count` draws).
  const int slack = spec.n + 1 - prefix(spec) - covered;
  std::set<int> bars;
  for (int top = slack; top < slack + count; ++top) {
    const int bar = int(rng.below(std::uint64_t(top + 1)));
    bars.insert(bars.count(bar) != 0 ? top : bar);
  }
  std::vector<Copy> copies;
  std::vector<bool> on_copy(std::size_t(spec.n + 1), false);
  int at = prefix(spec), previous = -1;
  for (int bar : bars) {
    const int length = lengths[copies.size()];
    at += bar - previous - 1;
    copies.push_back({length, 0, at});
    std::fill_n(on_copy.begin() + at, length, true);
    at += length;
    previous = bar;
  }
  for (Copy& copy : copies) {
    std::vector<int> starts;
    for (int start = 0; start + copy.length + spec.gap_min <= copy.destination; ++start)
      if (std::none_of(on_copy.begin() + start, on_copy.begin() + start + copy.length,
                       [](bool taken) { return taken; }))
        starts.push_back(start);
    copy.source = starts[std::size_t(rng.below(starts.size()))];
  }
  return copies;
}

// Whether `span` occurs in `window` starting before `end`.
bool occurs_before(const std::vector<std::int32_t>& window, int end,
                   const std::vector<std::int32_t>& span) {
  for (int start = 0; start < end; ++start)
    if (start + int(span.size()) <= int(window.size()) &&
        std::equal(span.begin(), span.end(), window.begin() + start))
      return true;
  return false;
}

// The control: writes over the copy of `length` characters at `destination` as many characters
// of `text` from a random place, drawn again while they occur in the window starting anywhere
// before `destination` (as they stand once written, so that no repeat overlapping the copy's
// start is left either).
void write_unseen_span(const std::vector<std::int32_t>& text, int length,
                       std::vector<std::int32_t>& window, int destination, Rng& rng) {
  constexpr int kAttempts = 1000;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const std::size_t at = std::size_t(rng.below(text.size() - std::size_t(length) + 1));
    const std::vector<std::int32_t> span(text.begin() + std::ptrdiff_t(at),
                                         text.begin() + std::ptrdiff_t(at) + length);
    std::copy(span.begin(), span.end(), window.begin() + destination);
    if (!occurs_before(window, destination, span)) return;
  }
  throw std::invalid_argument(
      "dataset.copy_source: \"shuffled\" drew " + std::to_string(kAttempts) + " segments of " +
      std::to_string(length) +
      " characters and each occurred earlier in its window: the text of dataset.path repeats "
      "itself too much for the control; give a more varied text");
}

// Appends `count` windows of n + 1 characters of `text` with their copies and labels to `split`.
void draw_windows(const DatasetConfig& spec, const std::vector<std::int32_t>& text, int count,
                  Rng& rng, Rng& shuffle_rng, TokenSplit& split) {
  const int n = spec.n;
  split.n = n;
  split.stream.clear();
  split.stream.reserve(std::size_t(count) * (n + 1));
  split.position_labels.reserve(std::size_t(count) * n);
  const std::uint64_t room = text.size() - std::size_t(n);  // text holds ≥ 10 windows (text kind)
  for (int w = 0; w < count; ++w) {
    const std::size_t start = std::size_t(rng.below(room));
    std::vector<std::int32_t> window(text.begin() + std::ptrdiff_t(start),
                                     text.begin() + std::ptrdiff_t(start) + n + 1);
    std::vector<std::uint8_t> labels(n, kFresh);
    // No copy lies on a source, so every copy is verbatim in the finished window.
    for (const Copy& copy : draw_copies(spec, rng)) {
      if (shuffled(spec))
        write_unseen_span(text, copy.length, window, copy.destination, shuffle_rng);
      else
        std::copy_n(window.begin() + copy.source, copy.length, window.begin() + copy.destination);
      // Position p predicts token p + 1: the copy's characters after its first.
      std::fill_n(labels.begin() + copy.destination, copy.length - 1, kCopied);
    }
    split.starts.push_back(std::int64_t(split.stream.size()));
    split.stream.insert(split.stream.end(), window.begin(), window.end());
    split.position_labels.insert(split.position_labels.end(), labels.begin(), labels.end());
  }
  split.labels = {{"fresh", 1.0f}, {"copied", 1.0f}};  // kFresh, kCopied
}

TokenDataset draw_copy_text(const DatasetConfig& spec, std::uint64_t seed) {
  TokenDataset data = read_text_streams(spec);
  const std::vector<std::int32_t> train_text = std::move(data.train.stream);
  const std::vector<std::int32_t> validation_text = std::move(data.validation.stream);
  Rng train_rng(seed, Stream::kTrainSamples), test_rng(seed, Stream::kTestSamples);
  Rng train_shuffle(seed, Stream::kTrainShuffled), test_shuffle(seed, Stream::kTestShuffled);
  draw_windows(spec, train_text, spec.train_size, train_rng, train_shuffle, data.train);
  draw_windows(spec, validation_text, spec.val_windows, test_rng, test_shuffle, data.validation);
  return data;
}

}  // namespace

DatasetKind copy_text_kind() {
  const DatasetKind text = text_kind();
  DatasetKind kind;
  kind.name = "copy_text";
  kind.summary =
      "text (dataset.path) in which dataset.segments segments of each window are repeated "
      "later in it, for next_token; the loss reported apart on copied and fresh positions";
  kind.claimed_operator = "none";
  kind.check = check_copy_text;
  kind.tokens = draw_copy_text;
  kind.check_files = text.check_files;
  kind.vocabulary_key = "dataset.path";
  kind.vocabulary_bound = text.vocabulary_bound;
  kind.default_segment_min = 8;
  kind.default_segment_max = 24;
  kind.held_out_windows = [](const DatasetConfig& spec) { return spec.val_windows; };
  // It draws dataset.train_size training windows; its validation is dataset.val_windows windows.
  kind.shared_keys = {"dataset.train_size"};
  // The corpus is read whole, and the windows drawn from it are kept.
  kind.token_count = [text](const DatasetConfig& spec) {
    return text.token_count(spec) + double(spec.train_size + spec.val_windows) * (spec.n + 1);
  };
  return kind;
}

}  // namespace ufl::data
