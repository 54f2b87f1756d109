// The `copy_text` kind, the mixed token task (docs/transformer.md §13): windows of real text (the
// text kind's corpus, dataset.path) in which dataset.segments segments are repeated verbatim later
// in the same window, so that a model needs local statistics of text and in-context retrieval in
// one stream. Each window is n + 1 characters of the corpus at a random place; each segment of
// segment_min … segment_max characters is copied gap_min … gap_max characters after its end,
// overwriting the characters there, so the stream stays text. A position is labelled "copied"
// when the character it predicts lies in a copy after the copy's first character (which nothing
// announces), else "fresh"; both are scored. With copy_source "shuffled" (the control) each copy
// is replaced by as many characters drawn from elsewhere in the split's text that the window holds
// nowhere before, so that the "copied" positions point to nothing.
#include <algorithm>
#include <set>
#include <string>

#include "data/kinds.hpp"

namespace ufl::data {
namespace {

// The labels of positions (TokenSplit::labels).
constexpr std::uint8_t kFresh = 0, kCopied = 1;

bool shuffled(const DatasetConfig& spec) { return spec.copy_source == "shuffled"; }

// The first token a copy may start at so that every segment and gap fits before it, at the
// longest segment and gap: every placement of the copies then fits (docs/transformer.md §13).
int tightest_window(const DatasetConfig& spec, int segments) {
  return (segments + 1) * spec.segment_max + spec.gap_max;
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
  if (spec.gap_max < spec.gap_min)
    return {"dataset.gap_max", "at least dataset.gap_min = " + std::to_string(spec.gap_min)};
  if (spec.segments < 1) return {"dataset.segments", "an integer ≥ 1"};
  if (tightest_window(spec, spec.segments) > spec.n + 1) {
    const std::string rule =
        "(dataset.segments + 1) × dataset.segment_max + dataset.gap_max ≤ dataset.n + 1, so that "
        "every segment, gap and copy fits in a window at the longest segment and gap";
    if (tightest_window(spec, 1) > spec.n + 1)  // not even one segment fits: n is what to change
      return {"dataset.n", "at least 2 × dataset.segment_max + dataset.gap_max − 1 = " +
                               std::to_string(tightest_window(spec, 1) - 1) + " (" + rule +
                               "); raise dataset.n or lower dataset.segment_max or gap_max"};
    int most = 1;
    while (tightest_window(spec, most + 1) <= spec.n + 1) ++most;
    return {"dataset.segments",
            "at most " + std::to_string(most) + " for dataset.n = " + std::to_string(spec.n) +
                ", segment_max = " + std::to_string(spec.segment_max) +
                " and gap_max = " + std::to_string(spec.gap_max) + " (" + rule + ")"};
  }
  return {};
}

// A copy: `length` characters of the window starting at `source` written again at `destination`
// (destination = source + length + gap).
struct Copy {
  int length, source, destination;
};

// Where a window's copies go, drawn from `rng`: the lengths and gaps, then the copies' places,
// uniform over every way of putting them one after another, without overlap, after the first
// position every source fits before (stars and bars). In order of destination.
std::vector<Copy> draw_copies(const DatasetConfig& spec, Rng& rng) {
  const int count = spec.segments;
  std::vector<int> lengths(count), gaps(count);
  for (int& length : lengths)
    length =
        spec.segment_min + int(rng.below(std::uint64_t(spec.segment_max - spec.segment_min + 1)));
  for (int& gap : gaps)
    gap = spec.gap_min + int(rng.below(std::uint64_t(spec.gap_max - spec.gap_min + 1)));
  int first = 0, covered = 0;  // the first token a copy may start at; the copies' tokens
  for (int j = 0; j < count; ++j) {
    first = std::max(first, lengths[j] + gaps[j]);
    covered += lengths[j];
  }
  // The room left, slack = n + 1 − first − covered ≥ 0 (check_copy_text), goes into the count + 1
  // stretches before, between and after the copies: `count` distinct bars among slack + count
  // places, drawn by Floyd's algorithm (exactly `count` draws).
  const int slack = spec.n + 1 - first - covered;
  std::set<int> bars;
  for (int top = slack; top < slack + count; ++top) {
    const int bar = int(rng.below(std::uint64_t(top + 1)));
    bars.insert(bars.count(bar) != 0 ? top : bar);
  }
  std::vector<Copy> copies;
  int at = first, previous = -1, j = 0;
  for (int bar : bars) {
    at += bar - previous - 1;
    copies.push_back({lengths[j], at - gaps[j] - lengths[j], at});
    at += lengths[j];
    previous = bar;
    ++j;
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
    // In order of destination: a later copy never writes over an earlier copy's source (its
    // destination lies after that copy's), so every copy is verbatim in the finished window.
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
  // The corpus is read whole, and the windows drawn from it are kept.
  kind.token_count = [text](const DatasetConfig& spec) {
    return text.token_count(spec) + double(spec.train_size + spec.val_windows) * (spec.n + 1);
  };
  return kind;
}

}  // namespace ufl::data
