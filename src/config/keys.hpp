#pragma once
// The one table of config keys: for every key its path, type, default, rule, meaning and owner.
// It drives parsing, validation, --set, the resolved config.json, `--help`/`ufl config
// --describe` and the key reference in docs/ (config/load.hpp walks it; nothing else lists keys).
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace ufl::config {

// kNameOrNames: a string, or a list of strings (layer.mixer: one mixer, or one per head).
enum class ValueType { kString, kInteger, kNumber, kIntegerList, kBoolean, kNameOrNames };

// The runs a key belongs to: those whose `selector` key ("dataset.kind", "layer.mixer") has one
// of `values`. No selector: every run.
struct KeyOwners {
  std::string selector;
  std::string noun;  // "dataset kind", "mixer": for messages
  std::vector<std::string> values;
  bool everyone() const { return selector.empty(); }
  // "dataset kind 'local'", "mixers 'universal', 'attention', 'lowrank'".
  std::string describe() const;
};

struct Key {
  std::string path;  // "dataset.n"
  ValueType type = ValueType::kNumber;
  // Integers must lie in [integer_min, integer_max] to fit the field (a 32-bit int, or the
  // 64-bit unsigned seed); beyond that the value is refused before any rule is checked.
  double integer_min = 0, integer_max = 0;
  std::string meaning;       // one line: what the key does
  std::string rule;          // the rule in words, for --describe ("≥ 2", "at most dataset.n")
  std::string default_text;  // the default for --describe when it follows another key
  // Who uses the key: every run (empty), or only runs whose selector key has one of the owners'
  // values: a dataset kind's key (dataset.freqs: periodic; that kind's record checks its rules)
  // or a mixer's (layer.kernel_width: convolution; the mixers say which keys they read).
  KeyOwners owners;
  // A key that every run's config.json holds but only some dataset kinds read (dataset.d and
  // dataset.noise: the kinds of float samples; DatasetKind::shared_keys says which): the kinds
  // that read it. A run of another kind refuses any value but the default, which it ignores.
  // Empty (everyone()): every run that holds the key reads it.
  KeyOwners readers;

  // The key's field in a Config, as JSON, and back (the value has passed the type check).
  std::function<nlohmann::json(const Config&)> read;
  std::function<void(Config&, const nlohmann::json&)> write;
  // Run when the key is absent, after every given key is written: a default that follows other
  // keys (layer.rank = dataset.n). Empty: the struct's default stands.
  std::function<void(Config&)> derive_default;
  // "" when the resolved config obeys the rule; else what the value must be, with the values
  // of the keys it depends on ("at most dataset.n = 32").
  std::function<std::string(const Config&)> violation;
};

// The key belongs to this run (its owners include the run's dataset kind or mixer; with
// layer.mixer a list, the mixer of any head).
bool applies(const Key& key, const Config& config);
// The run's value of the owners' selector as an error shows it: "'attention'", or for a list
// "the heads' mixers 'attention', 'convolution'".
std::string selected_text(const KeyOwners& owners, const Config& config);
// The run reads the key: it belongs to the run, and the run's kind is among its readers.
bool read_by(const Key& key, const Config& config);

// Every key, in the order of the resolved config.json and of --describe.
const std::vector<Key>& keys();
const Key* find_key(std::string_view path);

// The default of a key as --describe shows it: the struct's default as JSON, or default_text.
std::string default_of(const Key& key);

// "an integer", "a number", … for messages.
std::string type_name(ValueType type);

}  // namespace ufl::config
