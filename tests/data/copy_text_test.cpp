// The `copy_text` kind (docs/transformer.md §13): windows of text in which dataset.segments
// segments of the window's own text (never a copy) are repeated verbatim later in it, at least
// gap_min characters after them; the positions that predict a copy's characters after its first are
// labelled "copied", every other position "fresh", and both are scored. The control (copy_source
// "shuffled") puts the same number of characters at the same places, drawn from elsewhere in the
// text and found nowhere earlier in the window. Same seed, same data; keys that cannot be met are
// refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "data/registry.hpp"

using namespace ufl;
namespace fs = std::filesystem;

namespace {

// A corpus of 20 000 characters of random words over 16 letters, so that a segment of 4 or more
// characters rarely occurs twice in a window by chance.
struct Corpus {
  fs::path path =
      fs::temp_directory_path() / ("ufl-copy-text-test-" + std::to_string(::getpid()) + ".txt");
  Corpus() {
    std::ofstream file(path);
    std::uint64_t state = 12345;
    for (int k = 0; k < 20000; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int draw = int(state >> 59);  // 0 … 31
      file << (draw < 16 ? char('a' + draw) : draw < 19 ? ' ' : char('a' + (draw & 15)));
    }
  }
  ~Corpus() { fs::remove(path); }
};

data::DatasetConfig copy_text_spec(const std::string& path) {
  data::DatasetConfig spec;
  spec.kind = "copy_text";
  spec.path = path;
  spec.n = 128;
  spec.segment_min = 8;
  spec.segment_max = 24;
  spec.segments = 3;
  spec.gap_min = 8;
  spec.train_size = 300;
  spec.val_windows = 50;
  return spec;
}

// One copy as the labels show it: the tokens first … last of the window (the copied positions
// first … last − 1 predict first + 1 … last; the copy's first token, predicted at first − 1, is
// fresh).
struct Run {
  int first, last;
};
std::vector<Run> copied_runs(const data::TokenSplit& split, int s) {
  const std::uint8_t* labels = split.label_of(s);
  std::vector<Run> runs;
  for (int p = 0; p < split.n; ++p)
    if (split.labels[labels[p]].name == "copied") {
      if (runs.empty() || runs.back().last != p) runs.push_back({p, p});
      runs.back().last = p + 1;
    }
  return runs;
}

// The starts of every earlier occurrence of window[first … last] in the window's own text (on no
// copy of `copies`) that ends at least gap_min characters before `first`.
std::vector<int> sources(const std::int32_t* window, Run copy, const std::vector<Run>& copies,
                         const data::DatasetConfig& spec) {
  const int length = copy.last - copy.first + 1;
  std::vector<int> found;
  for (int source = 0; source + length + spec.gap_min <= copy.first; ++source) {
    const bool on_copy = std::any_of(copies.begin(), copies.end(), [&](const Run& other) {
      return source <= other.last && source + length - 1 >= other.first;
    });
    if (!on_copy && std::equal(window + source, window + source + length, window + copy.first))
      found.push_back(source);
  }
  return found;
}

std::string refusal(const data::DatasetConfig& spec) {
  try {
    data::validate(spec);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("copy_text: each window repeats its segments verbatim where the labels say") {
  const Corpus corpus;
  const data::DatasetConfig spec = copy_text_spec(corpus.path.string());
  const data::TokenDataset data = data::generate_tokens(spec, 3);
  CHECK(data.train.count() == 300);
  CHECK(data.validation.count() == 50);
  REQUIRE(data.train.labels.size() == 2);
  CHECK(data.train.labels[0].name == "fresh");
  CHECK(data.train.labels[1].name == "copied");
  CHECK(data.train.labels[0].weight == 1.0f);  // both are scored
  CHECK(data.train.labels[1].weight == 1.0f);
  CHECK(data.files.size() == 1);  // the corpus is recorded, as for text
  std::vector<bool> lengths_seen(25, false);
  for (const data::TokenSplit* split : {&data.train, &data.validation})
    for (int s = 0; s < split->count(); ++s) {
      const std::int32_t* window = split->window(s);
      const std::vector<Run> runs = copied_runs(*split, s);
      REQUIRE(runs.size() == 3);            // dataset.segments copies, never touching
      CHECK(runs.front().first >= 24 + 8);  // the prefix of segment_max + gap_min holds none
      for (const Run& copy : runs) {
        const int length = copy.last - copy.first + 1;
        CHECK(length >= 8);
        CHECK(length <= 24);
        lengths_seen[std::size_t(length)] = true;
        // The copy's first character is in it (it matches the source) but is not labelled: the
        // position that predicts it is fresh.
        CHECK(!sources(window, copy, runs, spec).empty());
        REQUIRE(copy.first >= 1);
        CHECK(split->labels[split->label_of(s)[copy.first - 1]].name == "fresh");
      }
    }
  for (int length = 8; length <= 24; ++length) CHECK_MESSAGE(lengths_seen[length], length);
}

TEST_CASE("copy_text: windows are the corpus's text outside the copies") {
  const Corpus corpus;
  data::DatasetConfig spec = copy_text_spec(corpus.path.string());
  data::DatasetConfig text = spec;
  text.kind = "text";
  const data::TokenDataset plain = data::generate_tokens(text, 3);
  const data::TokenDataset data = data::generate_tokens(spec, 3);
  CHECK(data.vocab == plain.vocab);
  // Each window outside its copies is a stretch of the training text.
  const std::vector<std::int32_t>& stream = plain.train.stream;
  for (int s = 0; s < 20; ++s) {
    const std::int32_t* window = data.train.window(s);
    const std::vector<Run> runs = copied_runs(data.train, s);
    // The text before the first copy locates the window in the corpus.
    const int head = runs.front().first;
    REQUIRE(head >= 16);  // at least the shortest segment and gap come before it
    const auto at = std::search(stream.begin(), stream.end(), window, window + head);
    REQUIRE(at != stream.end());
    int outside = 0, matching = 0;
    for (int t = 0; t <= spec.n; ++t) {
      const bool copied = std::any_of(runs.begin(), runs.end(), [&](const Run& copy) {
        return t >= copy.first && t <= copy.last;
      });
      if (copied) continue;
      ++outside;
      matching += window[t] == at[t];
    }
    CHECK(matching == outside);
  }
}

TEST_CASE("copy_text: a third to a half of the positions after the first quarter are copied") {
  const Corpus corpus;
  data::DatasetConfig spec = copy_text_spec(corpus.path.string());
  spec.train_size = 2000;
  const data::TokenDataset data = data::generate_tokens(spec, 1);
  std::int64_t copied = 0, after_quarter = 0, all_copied = 0;
  for (int s = 0; s < data.train.count(); ++s) {
    const std::uint8_t* labels = data.train.label_of(s);
    for (int p = 0; p < spec.n; ++p) {
      all_copied += labels[p] == 1;
      if (p < spec.n / 4) continue;
      ++after_quarter;
      copied += labels[p] == 1;
    }
  }
  const double fraction = double(copied) / double(after_quarter);
  MESSAGE("copied share of the positions after the first quarter: ", fraction);
  CHECK(fraction > 1.0 / 3);
  CHECK(fraction < 0.5);
  // The mean length is 16: three copies label 3 × 15 = 45 of the 128 positions per window.
  CHECK(double(all_copied) / double(data.train.count()) == doctest::Approx(45.0).epsilon(0.02));
}

TEST_CASE("copy_text's control: the same places hold text the window has nowhere before") {
  const Corpus corpus;
  data::DatasetConfig spec = copy_text_spec(corpus.path.string());
  const data::TokenDataset copies = data::generate_tokens(spec, 5);
  spec.copy_source = "shuffled";
  const data::TokenDataset control = data::generate_tokens(spec, 5);
  // The same windows, copies and labels; only what the copies hold differs.
  CHECK(control.train.position_labels == copies.train.position_labels);
  CHECK(control.validation.position_labels == copies.validation.position_labels);
  int differ = 0;
  for (const data::TokenDataset* data : {&control, &copies})
    for (const data::TokenSplit* split : {&data->train, &data->validation})
      for (int s = 0; s < split->count(); ++s) {
        const std::int32_t* window = split->window(s);
        for (const Run& copy : copied_runs(*split, s)) {
          // Whether the copy's characters occur anywhere in the window starting before it.
          bool earlier = false;
          for (int start = 0; start < copy.first; ++start)
            earlier =
                earlier || std::equal(window + copy.first, window + copy.last + 1, window + start);
          CHECK(earlier == (data == &copies));  // the copies do; the control's never
        }
      }
  for (int s = 0; s < copies.train.count(); ++s)
    differ += !std::equal(copies.train.window(s), copies.train.window(s) + spec.n + 1,
                          control.train.window(s));
  CHECK(differ == copies.train.count());
}

TEST_CASE("copy_text: the same seed draws the same data, another seed other data") {
  const Corpus corpus;
  for (const char* source : {"window", "shuffled"}) {
    CAPTURE(source);
    data::DatasetConfig spec = copy_text_spec(corpus.path.string());
    spec.copy_source = source;
    const data::TokenDataset a = data::generate_tokens(spec, 7), b = data::generate_tokens(spec, 7);
    CHECK(a.train.stream == b.train.stream);
    CHECK(a.train.position_labels == b.train.position_labels);
    CHECK(a.validation.stream == b.validation.stream);
    CHECK(a.validation.position_labels == b.validation.position_labels);
    const data::TokenDataset c = data::generate_tokens(spec, 8);
    CHECK(c.train.stream != a.train.stream);
    CHECK(c.train.position_labels != a.train.position_labels);
    // The validation windows do not depend on how many training windows are drawn.
    spec.train_size = 17;
    CHECK(data::generate_tokens(spec, 7).validation.stream == a.validation.stream);
  }
}

TEST_CASE("copy_text: keys that cannot be met are refused with the key and what it must be") {
  const Corpus corpus;
  const data::DatasetConfig good = copy_text_spec(corpus.path.string());
  CHECK(refusal(good).empty());
  struct Case {
    std::function<void(data::DatasetConfig&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](data::DatasetConfig& s) { s.segment_min = 30; },
       "dataset.segment_max: must be at least dataset.segment_min = 30"},
      {[](data::DatasetConfig& s) { s.segment_min = 1; },
       "dataset.segment_min: must be an integer ≥ 2"},
      {[](data::DatasetConfig& s) { s.gap_min = -1; }, "dataset.gap_min: must be an integer ≥ 0"},
      {[](data::DatasetConfig& s) { s.segments = 0; }, "dataset.segments: must be an integer ≥ 1"},
      // (5 + 1) × 24 + 8 = 152 > 129.
      {[](data::DatasetConfig& s) { s.segments = 5; },
       "dataset.segments: must be at most 4 for dataset.n = 128, segment_max = 24 and gap_min = "
       "8"},
      // Not even one: 2 × 24 + 8 = 56 > 51.
      {[](data::DatasetConfig& s) { s.n = 50; },
       "dataset.n: must be at least 2 × dataset.segment_max + dataset.gap_min − 1 = 55"},
      {[](data::DatasetConfig& s) { s.copy_source = "elsewhere"; },
       "dataset.copy_source: must be \"window\" or \"shuffled\""},
      {[](data::DatasetConfig& s) { s.val_windows = 0; }, "dataset.val_windows"},
  };
  for (const Case& c : cases) {
    data::DatasetConfig spec = good;
    c.edit(spec);
    const std::string message = refusal(spec);
    CAPTURE(message);
    CHECK(message.find(c.message) != std::string::npos);
  }
  // The tightest setting that fits: (3 + 1) × 24 + 8 = 104 ≤ n + 1 with n = 103.
  data::DatasetConfig tight = good;
  tight.n = 103;
  CHECK(refusal(tight).empty());
  tight.train_size = 200;
  const data::TokenDataset data = data::generate_tokens(tight, 2);
  for (int s = 0; s < data.train.count(); ++s) {
    const std::vector<Run> runs = copied_runs(data.train, s);
    CHECK(runs.size() == 3);
    for (const Run& copy : runs) CHECK(!sources(data.train.window(s), copy, runs, tight).empty());
  }
}

TEST_CASE("copy_text's control refuses a text too repetitive to hold unseen segments") {
  const fs::path path =
      fs::temp_directory_path() / ("ufl-copy-text-same-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << std::string(150000, 'a');  // ≥ 10 windows in the validation tenth
  data::DatasetConfig spec = copy_text_spec(path.string());
  CHECK_NOTHROW(data::generate_tokens(spec, 1));  // copies of "aaaa…" are still copies
  spec.copy_source = "shuffled";
  CHECK_THROWS_WITH_AS(data::generate_tokens(spec, 1),
                       doctest::Contains("dataset.copy_source: \"shuffled\" drew 1000 segments"),
                       std::invalid_argument);
  fs::remove(path);
}
