// The key table (config/keys.hpp): one entry per config key, with the spec's default (the
// struct's), its rule and its meaning. Cross-key rules name the other key and its value.
#include "config/keys.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "data/registry.hpp"
#include "model/block.hpp"
#include "model/mixers/registry.hpp"
#include "task/registry.hpp"

namespace ufl::config {
namespace {

using nlohmann::json;

template <class Field>
constexpr ValueType value_type_of() {
  if constexpr (std::is_same_v<Field, std::string>) return ValueType::kString;
  if constexpr (std::is_same_v<Field, double>) return ValueType::kNumber;
  if constexpr (std::is_same_v<Field, std::vector<int>>) return ValueType::kIntegerList;
  if constexpr (std::is_same_v<Field, bool>) return ValueType::kBoolean;
  return ValueType::kInteger;  // int, std::uint64_t
}

template <class Field>
void assign(Field& field, const json& value) {
  if constexpr (std::is_same_v<Field, std::uint64_t>) {
    field = value.is_number_unsigned() ? value.get<std::uint64_t>()
                                       : static_cast<std::uint64_t>(value.get<double>());
  } else if constexpr (std::is_same_v<Field, int>) {
    field = static_cast<int>(value.get<double>());
  } else if constexpr (std::is_same_v<Field, std::vector<int>>) {
    field.clear();
    for (const json& element : value) field.push_back(static_cast<int>(element.get<double>()));
  } else {
    field = value.get<Field>();
  }
}

std::string number_text(double value) { return json(value).dump(); }

// "0.5, or 0.99 in transformer blocks; 0.99 for the distance mixer": the first block kind's
// default γ, each other kind's where it differs (model/blocks/), and the mixers' own defaults,
// which win.
std::string gate_init_text() {
  const std::vector<const model::BlockKind*>& kinds = model::block_kinds();
  const double first = kinds.front()->default_gate_init();
  std::string text = number_text(first);
  for (const model::BlockKind* kind : kinds)
    if (kind->default_gate_init() != first)
      text += ", or " + number_text(kind->default_gate_init()) + " in " + kind->name() + " blocks";
  for (const model::Mixer<float>* mixer : model::mixers<float>())
    if (const std::optional<double> own = mixer->default_gate_init())
      text += "; " + number_text(*own) + " for the " + std::string(mixer->name()) + " mixer";
  return text;
}

// Builds one Key from an accessor of its field; rules are added with .rule().
template <class Field>
class Entry {
 public:
  using Access = std::function<Field&(Config&)>;

  // A top-level key (name, seed) or a key of a section (dataset.n): the member pointers to it.
  Entry(std::string path, Field Config::*member, std::string meaning)
      : Entry(std::move(path), Access([member](Config& c) -> Field& { return c.*member; }),
              std::move(meaning)) {}
  template <class Section>
  Entry(std::string path, Section Config::*section, Field Section::*member, std::string meaning)
      : Entry(std::move(path),
              Access([section, member](Config& c) -> Field& { return c.*section.*member; }),
              std::move(meaning)) {}

  Entry(std::string path, Access access, std::string meaning) : access_(access) {
    key_.path = std::move(path);
    key_.type = value_type_of<Field>();
    key_.meaning = std::move(meaning);
    if constexpr (std::is_same_v<Field, std::uint64_t>) {
      key_.integer_min = 0;
      key_.integer_max = double(std::numeric_limits<std::uint64_t>::max());
    } else {
      key_.integer_min = std::numeric_limits<int>::min();
      key_.integer_max = std::numeric_limits<int>::max();
    }
    key_.read = [access](const Config& config) {
      return json(access(const_cast<Config&>(config)));  // read only
    };
    key_.write = [access](Config& config, const json& value) { assign(access(config), value); };
  }

  // `words` is the rule as --describe and errors show it; `detail`, when given, is the error's
  // version with the values of the other keys the rule reads.
  Entry& rule(std::string words, std::function<bool(const Field&, const Config&)> holds,
              std::function<std::string(const Config&)> detail = {}) {
    key_.rule = words;
    const Access access = access_;  // a copy: the Entry is gone when the key is used
    key_.violation = [access, words, holds, detail](const Config& config) -> std::string {
      if (holds(access(const_cast<Config&>(config)), config)) return "";
      return detail ? detail(config) : words;
    };
    return *this;
  }
  // A key of one dataset kind: its rules are the kind's (its record's check, data/registry.hpp);
  // `words` says them for --describe.
  Entry& owned_by(std::string kind, std::string words) {
    return owned_by_kinds({std::move(kind)}, std::move(words));
  }
  Entry& owned_by_kinds(std::vector<std::string> kinds, std::string words) {
    key_.owners = KeyOwners{"dataset.kind", "dataset kind", std::move(kinds)};
    key_.rule = std::move(words);
    return *this;
  }
  // A key that only some kinds of block read: those that list it (BlockKind::config_keys), so a
  // new kind claims its keys without an edit here. Giving it to another kind is an error, and
  // another kind's config.json does not hold it.
  Entry& used_by_blocks() {
    key_.owners = KeyOwners{"model.block", "block", {}};
    for (const model::BlockKind* kind : model::block_kinds()) {
      const std::vector<std::string> reads = kind->config_keys();
      if (std::find(reads.begin(), reads.end(), key_.path) != reads.end())
        key_.owners.values.push_back(kind->name());
    }
    return *this;
  }
  // A layer key that only some mixers read: those that list it (Mixer::config_keys), so a new
  // mixer claims its keys without an edit here. Its rule is checked as any other's.
  Entry& used_by_mixers() {
    key_.owners = KeyOwners{"layer.mixer", "mixer", {}};
    for (const model::Mixer<float>* mixer : model::mixers<float>()) {
      const std::vector<std::string> reads = mixer->config_keys();
      if (std::find(reads.begin(), reads.end(), key_.path) != reads.end())
        key_.owners.values.emplace_back(mixer->name());
    }
    return *this;
  }
  // A key every run holds that only the dataset kinds listing it read (DatasetKind::shared_keys).
  Entry& read_by_kinds() {
    key_.readers = KeyOwners{"dataset.kind", "dataset kind", {}};
    for (const data::DatasetKind& kind : data::dataset_kinds())
      if (std::find(kind.shared_keys.begin(), kind.shared_keys.end(), key_.path) !=
          kind.shared_keys.end())
        key_.readers.values.push_back(kind.name);
    return *this;
  }
  // A string key that also takes a non-empty list of strings, written to `list` (the string then
  // empty): layer.mixer, one mixer for every head or one per head. Read back as it was given.
  template <class Section>
  Entry& or_list(Section Config::*section, std::vector<std::string> Section::*list) {
    key_.type = ValueType::kNameOrNames;
    const Access access = access_;
    key_.read = [access, section, list](const Config& config) {
      Config& c = const_cast<Config&>(config);  // read only
      const std::vector<std::string>& names = c.*section.*list;
      return names.empty() ? json(access(c)) : json(names);
    };
    key_.write = [access, section, list](Config& config, const json& value) {
      std::vector<std::string>& names = config.*section.*list;
      names.clear();
      if (value.is_array()) {
        for (const json& name : value) names.push_back(name.get<std::string>());
        access(config).clear();
      } else {
        access(config) = value.get<std::string>();
      }
    };
    return *this;
  }
  Entry& follows(std::string words, std::function<void(Config&)> derive) {
    key_.default_text = std::move(words);
    key_.derive_default = std::move(derive);
    return *this;
  }
  operator Key() const { return key_; }

 private:
  Key key_;
  Access access_;
};

// Common rules.
template <class Field>
std::function<bool(const Field&, const Config&)> at_least(Field minimum) {
  return [minimum](const Field& value, const Config&) { return value >= minimum; };
}
std::function<bool(const double&, const Config&)> positive() {
  return [](const double& value, const Config&) { return value > 0; };
}
std::function<bool(const double&, const Config&)> unit_interval() {
  return [](const double& value, const Config&) { return value >= 0 && value <= 1; };
}

// The mixers layer.mixer names: its one mixer, or its list, one per head.
std::vector<std::string> named_mixers(const Config& c) {
  return c.layer.head_mixers.empty() ? std::vector<std::string>{c.layer.mixer}
                                     : c.layer.head_mixers;
}

// "a, b": the names of what `is` holds for among `all`.
template <class Item, class Name, class Predicate>
std::string names_where(const std::vector<const Item*>& all, Name name, Predicate is) {
  std::string names;
  for (const Item* item : all)
    if (is(*item)) names += (names.empty() ? "" : ", ") + std::string(name(*item));
  return names;
}

// "" when layer.mixer names registered mixers this run can have: one mixer, or in a block with
// heads a list of layer.heads of them; under a token task only mixers with a causal form. Else
// what it must be, naming the fix.
std::string mixer_problem(const Config& c) {
  const bool list = !c.layer.head_mixers.empty();
  const std::vector<std::string> names = named_mixers(c);
  for (const std::string& name : names)
    if (model::find_mixer<float>(name) == nullptr)
      return list ? "a list of registered mixers, each one of " + model::mixer_names() + " (\"" +
                        name + "\" is none)"
                  : "one of " + model::mixer_names();
  const model::BlockKind* block = model::find_block_kind(c.model.block);
  if (list && block != nullptr && !block->takes_heads())
    return "one mixer's name with model.block = \"" + c.model.block +
           "\" (a list gives each head its mixer: a block with heads, model.block = one of " +
           names_where(
               model::block_kinds(), [](const model::BlockKind& kind) { return kind.name(); },
               [](const model::BlockKind& kind) { return kind.takes_heads(); }) +
           ")";
  if (list && int(names.size()) != c.layer.heads)
    return "a list of layer.heads = " + std::to_string(c.layer.heads) +
           " mixers, one per head (it names " + std::to_string(names.size()) +
           ": give one per head, or set layer.heads = " + std::to_string(names.size()) + ")";
  const task::TaskRecord* record = task::find_task(c.task.kind);
  if (record == nullptr || !record->tokens) return "";
  for (const std::string& name : names) {
    if (model::find_mixer<float>(name)->has_causal_form()) continue;
    return std::string(list ? "mixers" : "a mixer") + " with a causal form under task.kind = \"" +
           c.task.kind + "\" (" + name +
           " mixes every position with every other, so a position would see the tokens it "
           "predicts): " +
           (list ? "each " : "") + "one of " +
           names_where(
               model::mixers<float>(),
               [](const model::Mixer<float>& mixer) { return mixer.name(); },
               [](const model::Mixer<float>& mixer) { return mixer.has_causal_form(); });
  }
  return "";
}

std::vector<Key> build_table() {
  return {
      Entry<std::string>("name", &Config::name,
                         "the run's name; its folder is results/<name> unless --out says "
                         "otherwise")
          .rule("a non-empty folder name without '/'",
                [](const std::string& name, const Config&) {
                  return !name.empty() && name.find('/') == std::string::npos && name != "." &&
                         name != "..";
                }),
      Entry<std::uint64_t>("seed", &Config::seed,
                           "seed of the initialisation and the minibatch order, and of the data "
                           "unless dataset.seed is given (docs/seeds.md)"),
      Entry<std::uint64_t>("dataset.seed", &Config::dataset_seed,
                           "seed of the data (structure, train and test samples); with --data, "
                           "the folder's (docs/seeds.md)")
          .follows("seed", [](Config& c) { c.dataset_seed = c.seed; }),
      Entry<std::string>("task.kind", &Config::task, &task::TaskConfig::kind,
                         "what the model learns: denoising synthetic samples (MSE) or the next "
                         "token of text or mqar sequences (cross-entropy); docs/transformer.md")
          .rule(
              "one of " + task::task_names() +
                  "; next_token needs model.block = \"transformer\" and a token dataset kind, "
                  "denoise a float one",
              [](const std::string& kind, const Config& c) {
                const task::TaskRecord* record = task::find_task(kind);
                const model::BlockKind* block = model::find_block_kind(c.model.block);
                const data::DatasetKind* data = data::find_dataset_kind(c.dataset.kind);
                if (record == nullptr) return false;
                if (data != nullptr && record->tokens != bool(data->tokens)) return false;
                return !record->tokens || (block != nullptr && block->takes_tokens());
              },
              [](const Config& c) -> std::string {
                const task::TaskRecord* record = task::find_task(c.task.kind);
                if (record == nullptr) return "one of " + task::task_names();
                const data::DatasetKind* data = data::find_dataset_kind(c.dataset.kind);
                if (data != nullptr && record->tokens != bool(data->tokens)) {
                  std::string readers;  // the kinds the given task reads
                  for (const data::DatasetKind& kind : data::dataset_kinds())
                    if (bool(kind.tokens) == record->tokens)
                      readers += (readers.empty() ? "" : ", ") + kind.name;
                  for (const task::TaskRecord& other : task::tasks())
                    if (other.tokens == bool(data->tokens))
                      return other.name + " for dataset.kind = \"" + c.dataset.kind + "\" (" +
                             c.task.kind + " reads " + readers + ")";
                }
                return "denoise with model.block = \"" + c.model.block +
                       "\" (next_token needs model.block = \"transformer\", whose embeddings "
                       "and tied unembedding it reads)";
              }),
      Entry<std::string>("dataset.kind", &Config::dataset, &data::DatasetConfig::kind,
                         "which data: a synthetic denoising kind (docs/experiment.md §1) or a "
                         "token kind for next_token (docs/transformer.md §2)")
          .rule("one of " + data::dataset_kind_names(),
                [](const std::string& kind, const Config&) {
                  return data::find_dataset_kind(kind) != nullptr;
                }),
      Entry<int>("dataset.n", &Config::dataset, &data::DatasetConfig::n,
                 "positions per sample (the sequence length the layer mixes)")
          .rule("an integer ≥ 2", at_least(2)),
      Entry<int>("dataset.d", &Config::dataset, &data::DatasetConfig::d, "channels per position")
          .rule("an integer ≥ 1", at_least(1))
          .read_by_kinds(),
      Entry<double>("dataset.noise", &Config::dataset, &data::DatasetConfig::noise,
                    "σ: the noise X = C + σE added to every element of the clean signal C")
          .rule("a number ≥ 0", at_least(0.0))
          .read_by_kinds(),
      Entry<int>("dataset.train_size", &Config::dataset, &data::DatasetConfig::train_size,
                 "training samples")
          .rule("an integer ≥ 1", at_least(1))
          .read_by_kinds(),
      Entry<int>("dataset.test_size", &Config::dataset, &data::DatasetConfig::test_size,
                 "held-out test samples, on which every measurement is made")
          .rule("an integer ≥ 1", at_least(1))
          .read_by_kinds(),
      Entry<int>("dataset.kernel_width", &Config::dataset, &data::DatasetConfig::kernel_width,
                 "width w of the Gaussian bump that filters white noise; taps −⌊w/2⌋..⌊w/2⌋")
          .owned_by("local", "an integer, 1 ≤ w ≤ dataset.n"),
      Entry<std::vector<int>>("dataset.freqs", &Config::dataset, &data::DatasetConfig::freqs,
                              "the frequencies f of the cosines and sines in each signal")
          .owned_by("periodic", "distinct frequencies f with 1 ≤ f < n/2"),
      Entry<double>("dataset.amplitude_decay", &Config::dataset,
                    &data::DatasetConfig::amplitude_decay,
                    "the variance of the k-th frequency's amplitudes ∝ amplitude_decay^k")
          .owned_by("periodic", "a number > 0"),
      Entry<int>("dataset.rank", &Config::dataset, &data::DatasetConfig::rank,
                 "k, the rank of the clean signal C = Q diag(s) Z")
          .owned_by("lowrank", "an integer, 1 ≤ k ≤ dataset.n"),
      Entry<double>("dataset.singular_value_decay", &Config::dataset,
                    &data::DatasetConfig::singular_value_decay,
                    "the singular values s_j ∝ singular_value_decay^j")
          .owned_by("lowrank", "a number > 0"),
      Entry<std::vector<int>>("dataset.walsh", &Config::dataset, &data::DatasetConfig::walsh,
                              "the Walsh functions (rows k of the Walsh–Hadamard matrix, natural "
                              "order) each signal is a random combination of (docs/planted.md)")
          .owned_by("hadamard", "distinct indices k with 0 ≤ k < n, n a power of two"),
      Entry<double>("dataset.scale_decay", &Config::dataset, &data::DatasetConfig::scale_decay,
                    "the variance of a Haar coefficient ∝ scale_decay^scale, scale 0 the "
                    "coarsest (docs/planted.md)")
          .owned_by("haar", "a number > 0, n a power of two"),
      Entry<std::vector<int>>("dataset.band", &Config::dataset, &data::DatasetConfig::band,
                              "the DCT-II basis vectors band[0] … band[1] each signal is a random "
                              "combination of (docs/planted.md)")
          .owned_by("dct", "[first, last] with 0 ≤ first ≤ last < n, n a power of two"),
      Entry<std::string>("dataset.path", &Config::dataset, &data::DatasetConfig::path,
                         "a UTF-8 text file, or a folder whose UTF-8 text files are read in name "
                         "order; characters are the tokens (docs/transformer.md §2)")
          .owned_by_kinds({"text", "copy_text"},
                          "a readable text file or folder with ≥ 10 windows per split"),
      Entry<double>("dataset.val_fraction", &Config::dataset, &data::DatasetConfig::val_fraction,
                    "the last fraction of the characters, held out for validation")
          .owned_by_kinds({"text", "copy_text"}, "a number between 0 and 1 (exclusive)"),
      Entry<int>("dataset.val_windows", &Config::dataset, &data::DatasetConfig::val_windows,
                 "validation windows of n + 1 characters, drawn once from the data seed; the "
                 "validation loss is their mean")
          .owned_by_kinds({"text", "copy_text"}, "an integer ≥ 1"),
      Entry<int>("dataset.vocab", &Config::dataset, &data::DatasetConfig::vocab,
                 "mqar: tokens, keys from the first half, values from the second; copy: the "
                 "letters of a segment (the separator and newline come on top)")
          .owned_by_kinds({"mqar", "copy"}, "mqar: an even integer ≥ 4; copy: an integer ≥ 2")
          .follows("256 for mqar, 26 for copy",
                   [](Config& c) {
                     const data::DatasetKind* kind = data::find_dataset_kind(c.dataset.kind);
                     if (kind != nullptr && kind->default_vocab > 0)
                       c.dataset.vocab = kind->default_vocab;
                   }),
      Entry<int>("dataset.pairs", &Config::dataset, &data::DatasetConfig::pairs,
                 "key–value pairs per sequence, each queried once after them")
          .owned_by("mqar",
                    "1 ≤ pairs ≤ vocab/2, with the pairs and their queries fitting in n + 1 "
                    "tokens"),
      Entry<std::string>("dataset.filler", &Config::dataset, &data::DatasetConfig::filler,
                         "what fills the positions between queries: random tokens of the whole "
                         "vocabulary (a filler equal to a key is a false match), or one blank "
                         "token of their own (Zoology's random_non_queries = False)")
          .owned_by("mqar", "\"random\" or \"blank\""),
      Entry<int>("dataset.segment_min", &Config::dataset, &data::DatasetConfig::segment_min,
                 "the shortest segment that is copied (copy: a line's; copy_text: a window's; "
                 "lengths are uniform over min … max)")
          .owned_by_kinds({"copy", "copy_text"}, "copy: an integer ≥ 1; copy_text: ≥ 2")
          .follows("6 for copy, 8 for copy_text",
                   [](Config& c) {
                     const data::DatasetKind* kind = data::find_dataset_kind(c.dataset.kind);
                     if (kind != nullptr && kind->default_segment_min > 0)
                       c.dataset.segment_min = kind->default_segment_min;
                   }),
      Entry<int>("dataset.segment_max", &Config::dataset, &data::DatasetConfig::segment_max,
                 "the longest segment that is copied")
          .owned_by_kinds({"copy", "copy_text"},
                          "copy: segment_min ≤ segment_max ≤ (n − 1)/2, so that a whole line fits "
                          "in n + 1 tokens; copy_text: segment_min ≤ segment_max, with "
                          "(segments + 1) × segment_max + gap_min ≤ n + 1")
          .follows("20 for copy, 24 for copy_text",
                   [](Config& c) {
                     const data::DatasetKind* kind = data::find_dataset_kind(c.dataset.kind);
                     if (kind != nullptr && kind->default_segment_max > 0)
                       c.dataset.segment_max = kind->default_segment_max;
                   }),
      Entry<int>("dataset.segments", &Config::dataset, &data::DatasetConfig::segments,
                 "segments of each window repeated verbatim later in it (docs/transformer.md §13)")
          .owned_by("copy_text",
                    "an integer ≥ 1 with (segments + 1) × segment_max + gap_min ≤ n + 1: the "
                    "first segment_max + gap_min characters hold no copy, and the copies fit "
                    "after them"),
      Entry<int>("dataset.gap_min", &Config::dataset, &data::DatasetConfig::gap_min,
                 "the fewest characters between a segment's end and its copy's start (the "
                 "segment is any stretch of the window's own earlier text that far back)")
          .owned_by("copy_text", "an integer ≥ 0"),
      Entry<std::string>("dataset.copy_source", &Config::dataset, &data::DatasetConfig::copy_source,
                         "what the copies hold: \"window\", the segment earlier in the window; "
                         "\"shuffled\", the control, as many characters from elsewhere in the "
                         "text that the window holds nowhere before, so that copies point to "
                         "nothing")
          .owned_by("copy_text", "\"window\" or \"shuffled\""),
      Entry<std::string>("layer.mixer", &Config::layer, &model::LayerConfig::mixer,
                         "how the layer builds its operator M: the universal layer or one of its "
                         "special cases (docs/universality.md); in transformer blocks also a list "
                         "with one mixer per head, a hybrid block (docs/transformer.md §9)")
          .or_list(&Config::layer, &model::LayerConfig::head_mixers)
          .rule(
              "one of " + model::mixer_names() +
                  "; under task.kind = \"next_token\" one with a causal form (not fourier); "
                  "with model.block = \"transformer\" also a list of layer.heads of them, one "
                  "per head, e.g. [\"attention\", \"attention\", \"convolution\", "
                  "\"convolution\"]",
              [](const std::string&, const Config& c) { return mixer_problem(c).empty(); },
              mixer_problem),
      Entry<int>("layer.rank", &Config::layer, &model::LayerConfig::rank,
                 "r, the number of columns of U and V (the rank of S = UΣVᵀ)")
          .used_by_mixers()
          .follows("dataset.n, or model.width / layer.heads in transformer blocks",
                   [](Config& c) {
                     const model::BlockKind* block = model::find_block_kind(c.model.block);
                     c.layer.rank =
                         block != nullptr
                             ? block->default_rank(c.dataset.n, c.model.width, c.layer.heads)
                             : c.dataset.n;
                   })
          .rule(
              "an integer, 1 ≤ r ≤ dataset.n (any r ≥ 1 in transformer blocks)",
              [](const int& rank, const Config& c) {
                const model::BlockKind* block = model::find_block_kind(c.model.block);
                return rank >= 1 &&
                       (rank <= c.dataset.n || (block != nullptr && block->rank_above_n()));
              },
              [](const Config& c) {
                return c.layer.rank < 1 ? std::string("an integer ≥ 1")
                                        : "at most dataset.n = " + std::to_string(c.dataset.n) +
                                              " (docs/experiment.md §5: r ≤ n)";
              }),
      Entry<double>("layer.content_init_scale", &Config::layer,
                    &model::LayerConfig::content_init_scale,
                    "c: content rows of A and B start as N(0, c²/(n·d))")
          .used_by_mixers()
          .rule("a number ≥ 0", at_least(0.0)),
      Entry<double>("layer.gate_init", &Config::layer, &model::LayerConfig::gate_init,
                    "γ at initialisation, the gate of the universal and distance mixers between S "
                    "(γ = 0) and softmax(S) (γ = 1); g = log(γ/(1−γ))")
          .used_by_mixers()
          .follows(
              gate_init_text() + " (the paper's layer starts at 0.5; 0.99 is a deviation from it: "
                                 "docs/universal_head.md §1)",
              [](Config& c) {
                // The heads that read it share the key: their mixers' own default (else
                // the block's) where they agree, the block's where they do not.
                const model::BlockKind* block = model::find_block_kind(c.model.block);
                const double block_default = block != nullptr ? block->default_gate_init() : 0.5;
                std::optional<double> agreed;
                bool agree = true;
                for (const std::string& name : named_mixers(c)) {
                  const model::Mixer<float>* mixer = model::find_mixer<float>(name);
                  if (mixer == nullptr) continue;
                  const std::vector<std::string> reads = mixer->config_keys();
                  if (std::find(reads.begin(), reads.end(), "layer.gate_init") == reads.end())
                    continue;
                  const double own = mixer->default_gate_init().value_or(block_default);
                  if (agreed && *agreed != own) agree = false;
                  agreed = own;
                }
                c.layer.gate_init = agreed && agree ? *agreed : block_default;
              })
          .rule("a number, 0 < γ < 1",
                [](const double& gate, const Config&) { return gate > 0 && gate < 1; }),
      Entry<int>("layer.kernel_width", &Config::layer, &model::LayerConfig::kernel_width,
                 "w, the convolution mixer's taps −⌊w/2⌋..⌊w/2⌋ (a band of w diagonals)")
          .used_by_mixers()
          .rule(
              "an odd integer, 1 ≤ w ≤ 2·dataset.n − 1",
              [](const int& width, const Config& c) {
                return width >= 1 && width % 2 == 1 && width <= 2 * c.dataset.n - 1;
              },
              [](const Config& c) {
                return c.layer.kernel_width % 2 == 0 || c.layer.kernel_width < 1
                           ? std::string("an odd integer ≥ 1")
                           : "at most 2·dataset.n − 1 = " + std::to_string(2 * c.dataset.n - 1) +
                                 " (the widest band of an n×n matrix)";
              }),
      Entry<int>("layer.heads", &Config::layer, &model::LayerConfig::heads,
                 "h, heads per layer: each head has its own mixer parameters and mixes a D/h-wide "
                 "slice of values; the heads' outputs are concatenated and projected by W_o "
                 "(transformer blocks; docs/transformer.md §3)")
          .used_by_blocks()
          .rule(
              "an integer ≥ 1 dividing model.width; 1 for mixer blocks",
              [](const int& heads, const Config& c) {
                const model::BlockKind* block = model::find_block_kind(c.model.block);
                return heads >= 1 && c.model.width % heads == 0 &&
                       (heads == 1 || (block != nullptr && block->takes_heads()));
              },
              [](const Config& c) {
                if (c.layer.heads < 1) return std::string("an integer ≥ 1");
                if (c.model.width % c.layer.heads != 0)
                  return "a divisor of model.width = " + std::to_string(c.model.width) +
                         " (each head mixes model.width / layer.heads channels)";
                return std::string(
                    "1 with model.block = \"mixer\" (heads need "
                    "model.block = \"transformer\")");
              }),
      Entry<int>("model.depth", &Config::model, &model::ModelConfig::depth,
                 "L, the layers of the stack, each with its own parameters (section 7; 1 is the "
                 "single layer of Section 8)")
          .rule("an integer, 1 ≤ L ≤ 64",
                [](const int& depth, const Config&) { return depth >= 1 && depth <= 64; }),
      Entry<int>("model.width", &Config::model, &model::ModelConfig::width,
                 "D, the channels of the stream between layers: X is zero-padded from d to D "
                 "channels, and Y is the last layer's first d channels (next_token: the width of "
                 "the token embedding)")
          .follows("dataset.d", [](Config& c) { c.model.width = c.dataset.d; })
          .rule(
              "an integer, D ≥ dataset.d (D ≥ 1 for next_token)",
              [](const int& width, const Config& c) {
                const task::TaskRecord* record = task::find_task(c.task.kind);
                return record != nullptr && record->tokens ? width >= 1 : width >= c.dataset.d;
              },
              [](const Config& c) {
                const task::TaskRecord* record = task::find_task(c.task.kind);
                return record != nullptr && record->tokens
                           ? std::string("at least 1")
                           : "at least dataset.d = " + std::to_string(c.dataset.d);
              }),
      Entry<bool>("model.residual", &Config::model, &model::ModelConfig::residual,
                  "true: H_l = H_{l−1} + M_l(H_{l−1})·H_{l−1}·W_v,l, each W_v,l starting at 0; "
                  "false: H_l = M_l(H_{l−1})·H_{l−1}·W_v,l, W_v,l starting at I"),
      Entry<std::string>(
          "model.block", &Config::model, &model::ModelConfig::block,
          "what one layer is: \"mixer\", H_l = ρ·H_{l−1} + M(H)·H·W_v (Section 8, "
          "section 7), or \"transformer\", the pre-norm block x + W_o·heads(norm(x)) "
          "then + MLP(norm(·)) (docs/transformer.md §1)")
          .rule("one of " + model::block_kind_names(),
                [](const std::string& block, const Config&) {
                  return model::find_block_kind(block) != nullptr;
                }),
      Entry<std::string>("model.norm", &Config::model, &model::ModelConfig::norm,
                         "transformer blocks: the norm before the mixer, before the MLP and after "
                         "the last block (layernorm with gain and bias, or rmsnorm with gain)")
          .used_by_blocks()
          .rule("one of " + model::norm_kind_names(),
                [](const std::string& norm, const Config&) {
                  return model::find_norm_kind(norm) != nullptr;
                }),
      Entry<int>("model.mlp_ratio", &Config::model, &model::ModelConfig::mlp_ratio,
                 "transformer blocks: the MLP's hidden width as a multiple of model.width; 0 "
                 "for blocks without an MLP branch (attention-only, as Zoology's MQAR models)")
          .used_by_blocks()
          .rule("an integer, 0 ≤ ratio ≤ 16",
                [](const int& ratio, const Config&) { return ratio >= 0 && ratio <= 16; }),
      Entry<bool>("model.position_embedding", &Config::model,
                  &model::ModelConfig::position_embedding,
                  "a learned n×D position embedding P added to the stream's input (the token "
                  "embedding, or the zero-padded rows of float input)")
          .used_by_blocks(),
      Entry<double>("model.init_std", &Config::model, &model::ModelConfig::init_std,
                    "transformer blocks: every matrix starts as N(0, init_std²), the two that "
                    "write into the residual stream (W_o, W₂) as N(0, (init_std/√(2L))²), as "
                    "GPT-2")
          .used_by_blocks()
          .rule("a number > 0", positive()),
      Entry<int>("train.steps", &Config::train, &train::TrainConfig::steps,
                 "training steps (one minibatch each)")
          .rule("an integer ≥ 1", at_least(1)),
      Entry<int>("train.batch_size", &Config::train, &train::TrainConfig::batch_size,
                 "samples per minibatch")
          .rule("an integer ≥ 1", at_least(1)),
      Entry<double>("train.lr", &Config::train, &train::TrainConfig::lr,
                    "Adam's learning rate at the first step (cosine decay to lr_final)")
          .rule("a number > 0", positive()),
      Entry<double>("train.lr_final", &Config::train, &train::TrainConfig::lr_final,
                    "the learning rate the cosine schedule reaches at the last step")
          .rule(
              "a number, 0 ≤ lr_final ≤ train.lr",
              [](const double& lr_final, const Config& c) {
                return lr_final >= 0 && lr_final <= c.train.lr;
              },
              [](const Config& c) {
                return c.train.lr_final < 0 ? std::string("a number ≥ 0")
                                            : "at most train.lr = " + number_text(c.train.lr);
              }),
      Entry<double>("train.ortho_weight", &Config::train, &train::TrainConfig::ortho_weight,
                    "λ_orth, the weight of the soft orthogonality penalty on U and V")
          .rule("a number ≥ 0", at_least(0.0)),
      Entry<int>("train.eval_every", &Config::train, &train::TrainConfig::eval_every,
                 "steps between test-set evaluations (the test_mse column of loss.csv)")
          .rule("an integer ≥ 1", at_least(1)),
      Entry<int>("train.checkpoint_every", &Config::train, &train::TrainConfig::checkpoint_every,
                 "steps between checkpoints a killed run resumes from (--continue); 0: about "
                 "once a minute of training; never changes results")
          .rule("an integer ≥ 0", at_least(0)),
      Entry<double>("train.beta2", &Config::train, &train::TrainConfig::beta2,
                    "Adam's β₂ (β₁ = 0.9); the transformer configs use 0.99 as nanoGPT")
          .rule("a number, 0 < β₂ < 1",
                [](const double& beta, const Config&) { return beta > 0 && beta < 1; }),
      Entry<double>("train.weight_decay", &Config::train, &train::TrainConfig::weight_decay,
                    "AdamW's decoupled weight decay, applied to matrices only (not to norms, "
                    "biases, Σ or gates); 0: plain Adam")
          .rule("a number ≥ 0", at_least(0.0)),
      Entry<int>("train.warmup_steps", &Config::train, &train::TrainConfig::warmup_steps,
                 "steps of linear warm-up from 0 to train.lr before the cosine decay")
          .rule(
              "an integer, 0 ≤ warmup_steps < train.steps",
              [](const int& warmup, const Config& c) {
                return warmup >= 0 && warmup < c.train.steps;
              },
              [](const Config& c) {
                return c.train.warmup_steps < 0
                           ? std::string("an integer ≥ 0")
                           : "less than train.steps = " + std::to_string(c.train.steps);
              }),
      Entry<double>("train.clip", &Config::train, &train::TrainConfig::clip,
                    "the limit of the global gradient norm (gradients are scaled down to it); "
                    "0: no clipping")
          .rule("a number ≥ 0", at_least(0.0)),
      Entry<double>("analysis.iota_min", &Config::analysis, &analysis::AnalysisConfig::iota_min,
                    "verdict: attention needs input dependence ι ≥ iota_min")
          .rule("a number in [0, 1]", unit_interval()),
      Entry<double>("analysis.tau_min", &Config::analysis, &analysis::AnalysisConfig::tau_min,
                    "verdict: convolution needs Toeplitz score τ ≥ tau_min")
          .rule("a number in [0, 1]", unit_interval()),
      Entry<double>("analysis.ell_min", &Config::analysis, &analysis::AnalysisConfig::ell_min,
                    "verdict: convolution needs locality ℓ ≥ ell_min")
          .rule("a number in [0, 1]", unit_interval()),
      Entry<double>("analysis.phi_min", &Config::analysis, &analysis::AnalysisConfig::phi_min,
                    "verdict: Fourier needs Fourier score φ ≥ phi_min")
          .rule("a number in [0, 1]", unit_interval()),
      Entry<double>("analysis.alpha_min", &Config::analysis, &analysis::AnalysisConfig::alpha_min,
                    "verdict: SVD needs subspace alignment α ≥ alpha_min")
          .rule("a number in [0, 1]", unit_interval()),
      Entry<double>("analysis.eta_min", &Config::analysis, &analysis::AnalysisConfig::eta_min,
                    "a fixed-operator verdict counts as emerged only with η ≥ eta_min")
          .rule("a number > 0", positive()),
      Entry<double>("analysis.silent_max", &Config::analysis, &analysis::AnalysisConfig::silent_max,
                    "per-layer verdict: a layer whose branch adds less than silent_max of its "
                    "input's norm (branch_gain) is silent")
          .rule("a number ≥ 0", at_least(0.0)),
  };
}

}  // namespace

const std::vector<Key>& keys() {
  static const std::vector<Key> table = build_table();
  return table;
}

const Key* find_key(std::string_view path) {
  for (const Key& key : keys())
    if (key.path == path) return &key;
  return nullptr;
}

std::string KeyOwners::describe() const {
  std::string names;
  for (const std::string& value : values) names += (names.empty() ? "'" : ", '") + value + "'";
  return noun + (values.size() == 1 ? " " : "s ") + names;
}

namespace {

// The selector's value: its one name, or its list (layer.mixer, one per head).
std::vector<std::string> selected_names(const KeyOwners& owners, const Config& config) {
  const json value = find_key(owners.selector)->read(config);
  if (!value.is_array()) return {value.get<std::string>()};
  return value.get<std::vector<std::string>>();
}

bool selects(const KeyOwners& owners, const Config& config) {
  if (owners.everyone()) return true;
  for (const std::string& selected : selected_names(owners, config))
    if (std::find(owners.values.begin(), owners.values.end(), selected) != owners.values.end())
      return true;
  return false;
}

}  // namespace

bool applies(const Key& key, const Config& config) { return selects(key.owners, config); }

std::string selected_text(const KeyOwners& owners, const Config& config) {
  const std::vector<std::string> names = selected_names(owners, config);
  if (!find_key(owners.selector)->read(config).is_array()) return "'" + names.front() + "'";
  std::vector<std::string> distinct;
  for (const std::string& name : names)
    if (std::find(distinct.begin(), distinct.end(), name) == distinct.end())
      distinct.push_back(name);
  std::string text = "the heads' " + owners.noun + "s";
  for (std::size_t k = 0; k < distinct.size(); ++k)
    text += (k == 0 ? " '" : ", '") + distinct[k] + "'";
  return text;
}

bool read_by(const Key& key, const Config& config) {
  return applies(key, config) && selects(key.readers, config);
}

std::string default_of(const Key& key) {
  if (!key.default_text.empty()) return key.default_text;
  return key.read(Config{}).dump();
}

std::string type_name(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "a string";
    case ValueType::kInteger:
      return "an integer";
    case ValueType::kNumber:
      return "a number";
    case ValueType::kIntegerList:
      return "a list of integers";
    case ValueType::kBoolean:
      return "true or false";
    case ValueType::kNameOrNames:
      return "a string or a non-empty list of strings";
  }
  return "";
}

}  // namespace ufl::config
