#include "config/load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "config/keys.hpp"
#include "data/registry.hpp"

namespace ufl::config {
namespace {

using nlohmann::json;

// A config is at most this many bytes, and its values at most this many levels deep: a real one
// is a few kB and 3 levels deep, and a file beyond these is a mistake that would otherwise take
// minutes and gigabytes to parse (docs/config.md).
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;
constexpr int kMaxDepth = 32;
// An error message shows at most this much of a value.
constexpr std::size_t kMaxShown = 60;

// A value for an error message: at most kMaxShown characters (a 50 MB list is not echoed back);
// bytes that are not UTF-8 replaced rather than thrown on; a whole number written as a float
// beyond 9e15 (`--seed 18446744073709551616` in a file) shown as the integer it is.
std::string shown(const json& value) {
  std::string text;
  if (value.is_number_float() && std::isfinite(value.get<double>()) &&
      value.get<double>() == std::floor(value.get<double>()) &&
      std::abs(value.get<double>()) >= 9e15 && std::abs(value.get<double>()) < 1e21) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.0f", value.get<double>());
    text = digits;
  } else {
    text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (text.size() > kMaxShown) {
    std::size_t cut = kMaxShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    text = text.substr(0, cut) + "… (" + std::to_string(text.size()) + " characters)";
  }
  return text;
}

// The sections of the config ("dataset", "layer", …): the first parts of the keys' paths.
const std::set<std::string>& sections() {
  static const std::set<std::string> names = [] {
    std::set<std::string> found;
    for (const Key& key : keys())
      if (const auto dot = key.path.find('.'); dot != std::string::npos)
        found.insert(key.path.substr(0, dot));
    return found;
  }();
  return names;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& path) {
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  std::vector<std::string> candidates = known_keys();
  candidates.insert(candidates.end(), sections().begin(), sections().end());
  for (const std::string& key : candidates) {
    // Compare whole paths and last components, so "dataset.nosie" and "nosie" both find noise.
    const std::string last = key.substr(key.rfind('.') + 1);
    const std::size_t distance = std::min(
        edit_distance(path, key), edit_distance(path.substr(path.rfind('.') + 1), last) + 1);
    if (distance < best_distance) best_distance = distance, best = key;
  }
  return best_distance <= std::max<std::size_t>(3, path.size() / 3)
             ? " (did you mean '" + best + "'?)"
             : "";
}

bool is_integral(const json& value) {
  if (value.is_number_integer()) return true;
  return value.is_number_float() && std::isfinite(value.get<double>()) &&
         value.get<double>() == std::floor(value.get<double>()) &&
         std::abs(value.get<double>()) < 9e15;
}

// A whole number written as a float beyond ±9e15 (where exact integers in a double end): checked
// against the field's range (only the 64-bit seed holds such values) rather than called "not an
// integer", so that `--seed 1e30` names the valid range.
bool out_of_any_range(const json& value) {
  return value.is_number_float() && std::isfinite(value.get<double>()) &&
         value.get<double>() == std::floor(value.get<double>()) &&
         std::abs(value.get<double>()) >= 9e15;
}

bool fits_integer(const Key& key, const json& value) {
  if (value.is_number_unsigned()) return double(value.get<std::uint64_t>()) <= key.integer_max;
  const double number = value.get<double>();
  // double(UINT64_MAX) rounds up to 2^64, which no uint64 holds: there the bound is strict.
  const bool below_max =
      key.integer_max > 1e18 ? number < key.integer_max : number <= key.integer_max;
  return number >= key.integer_min && below_max;
}

// "" when `value` has the key's type and fits its field; else what it must be ("must be an
// integer from 0 to …, got -1"), for the caller to prefix with the key or flag. `given` is the
// value as the user typed it (--set, --seed), shown instead of its JSON form when not empty.
std::string type_problem(const Key& key, const json& value, const std::string& given = "") {
  bool ok = false;
  switch (key.type) {
    case ValueType::kString:
      ok = value.is_string();
      break;
    case ValueType::kInteger:
      ok = is_integral(value) || out_of_any_range(value);
      break;
    case ValueType::kNumber:
      ok = value.is_number() && std::isfinite(value.get<double>());
      break;
    case ValueType::kIntegerList:
      ok = value.is_array() && std::all_of(value.begin(), value.end(), [](const json& element) {
             return is_integral(element) || out_of_any_range(element);
           });
      break;
    case ValueType::kBoolean:
      ok = value.is_boolean();
      break;
    case ValueType::kNameOrNames:
      ok = value.is_string() || (value.is_array() && !value.empty() &&
                                 std::all_of(value.begin(), value.end(),
                                             [](const json& name) { return name.is_string(); }));
      break;
  }
  // A number as typed (18446744073709551616, not 1.8446744073709552e+19); anything else as JSON,
  // so that a string shows its quotes.
  const bool as_typed = value.is_number() && !given.empty() && given.size() <= kMaxShown;
  const std::string got = ", got " + (as_typed ? given : shown(value));
  if (!ok) return "must be " + type_name(key.type) + got;
  auto fits = [&key](const json& number) { return fits_integer(key, number); };
  const bool in_range = key.type == ValueType::kInteger ? fits(value)
                        : key.type == ValueType::kIntegerList
                            ? std::all_of(value.begin(), value.end(), fits)
                            : true;
  if (in_range) return "";
  const std::string max = key.integer_max > 1e18 ? std::string("18446744073709551615")
                                                 : json(std::int64_t(key.integer_max)).dump();
  // The key's own rule where it has one ("an integer ≥ 1"), with the largest value its field
  // holds; the bare field range only for keys without a rule (the seeds).
  if (key.rule.empty())
    return "must be an integer from " + json(std::int64_t(key.integer_min)).dump() + " to " + max +
           got;
  auto above = [](const json& number) {
    return number.is_number_unsigned() || number.get<double>() > 0;
  };
  const bool too_large = key.type == ValueType::kInteger
                             ? above(value)
                             : std::any_of(value.begin(), value.end(), [&](const json& number) {
                                 return !fits_integer(key, number) && above(number);
                               });
  return "must be " + key.rule + (too_large ? ", at most " + max : std::string()) + got;
}

void check_type(const std::string& source, const Key& key, const json& value) {
  if (const std::string problem = type_problem(key, value); !problem.empty())
    throw ConfigError(source + ": " + key.path + " " + problem);
}

// Refuses JSON nested deeper than kMaxDepth while it is parsed (a value 10⁵ levels deep would
// otherwise take minutes, or overflow the stack when printed); `where` says where it started.
json::parser_callback_t depth_limit(const std::string& source,
                                    const std::function<std::string()>& where) {
  return [source, where](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxDepth)
      throw ConfigError(source + ": nested deeper than " + std::to_string(kMaxDepth) + " levels" +
                        where() + "; a config is at most " + std::to_string(kMaxDepth) +
                        " levels deep (the keys use 3)");
    return true;
  };
}

// A --set value: JSON where it parses, else the text as a string.
json override_value(const std::string& path, const std::string& text) {
  json value = json::parse(text, depth_limit("--set " + path, [] { return std::string(); }), false);
  if (value.is_discarded()) {
    value = text;  // not JSON: a plain string such as a name
    try {
      (void)value.dump();
    } catch (const json::type_error&) {
      throw ConfigError("--set " + path + ": the value is not valid UTF-8 text");
    }
  }
  return value;
}

// A pointer into the config text that records how far the JSON parser has read, so that a
// problem found while parsing can be given a line and column.
class TrackedChar {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedChar(const char* at, const char** furthest) : at_(at), furthest_(furthest) {}
  reference operator*() const { return *at_; }
  TrackedChar& operator++() {
    *furthest_ = ++at_;
    return *this;
  }
  TrackedChar operator++(int) {
    TrackedChar before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedChar& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** furthest_;
};

// "line 3, column 5" of the byte at `offset` (1-based, in bytes, as nlohmann counts).
std::string line_and_column(const std::string& text, std::size_t offset) {
  const std::size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
  const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column =
      line_start == std::string::npos || offset == 0 ? offset + 1 : offset - line_start;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The config's JSON; a key given twice in one object is an error (nlohmann would silently keep
// the last value, so `{"dataset": {"n": 8, "n": 16}}` would train at n = 16 unnoticed).
json parse_without_duplicates(const std::string& text, const std::string& source) {
  struct Level {
    std::string path;  // "dataset" for the object at dataset, "" for the top
    std::set<std::string> keys;
    std::string current;  // the key whose value is being read
  };
  std::vector<Level> levels;
  const char* furthest = text.data();
  const json::parser_callback_t too_deep = depth_limit(source, [&] {
    return " (at " + line_and_column(text, std::size_t(furthest - text.data()) - 1) + ")";
  });
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    too_deep(depth, event, parsed);
    if (event == json::parse_event_t::object_start) {
      std::string path;
      if (!levels.empty())
        path = levels.back().path.empty() ? levels.back().current
                                          : levels.back().path + "." + levels.back().current;
      levels.push_back({path, {}, ""});
    } else if (event == json::parse_event_t::object_end) {
      levels.pop_back();
    } else if (event == json::parse_event_t::key && !levels.empty()) {
      Level& level = levels.back();
      level.current = parsed.get<std::string>();
      if (!level.keys.insert(level.current).second) {
        // The parser has just read the key's closing quote; find its opening one.
        std::size_t at = std::size_t(furthest - text.data());
        at = at >= 2 ? at - 2 : 0;
        while (at > 0 && !(text[at] == '"' && text[at - 1] != '\\')) --at;
        const std::string path =
            level.path.empty() ? level.current : level.path + "." + level.current;
        throw ConfigError(source + ": key " + shown(json(path)) + " is given twice (again at " +
                          line_and_column(text, at) + "); keep one");
      }
    }
    return true;
  };
  return json::parse(TrackedChar(text.data(), &furthest),
                     TrackedChar(text.data() + text.size(), &furthest), callback);
}

// Where each given value came from ("config.json" or "--set"), so an error blames the right one.
using Sources = std::map<std::string, std::string>;

// Walks the user's JSON: every key known, every value of the right type.
void check_keys(const std::string& source, const json& document, Sources& sources) {
  if (!document.is_object())
    throw ConfigError(source + ": a config must be a JSON object like {\"dataset\": {...}}");
  for (auto& [name, value] : document.items()) {
    if (sections().count(name)) {
      if (!value.is_object())
        throw ConfigError(source + ": '" + name + "' must be an object of settings, got " +
                          shown(value));
      for (auto& [inner, inner_value] : value.items()) {
        const std::string path = name + "." + inner;
        const Key* key = find_key(path);
        if (key == nullptr)
          throw ConfigError(source + ": unknown key '" + path + "'" + suggestion(path));
        check_type(source, *key, inner_value);
        sources[path] = source;
      }
      continue;
    }
    const Key* key = find_key(name);
    if (key == nullptr)
      throw ConfigError(source + ": unknown key '" + name + "'" + suggestion(name));
    check_type(source, *key, value);
    sources[name] = source;
  }
}

void apply_override(json& document, const std::string& assignment, Sources& sources) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError("--set '" + assignment +
                      "': expected key.path=value, e.g. dataset.noise=0.3");
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const Key* key = find_key(path);
  if (key == nullptr) throw ConfigError("--set: unknown key '" + path + "'" + suggestion(path));
  const json value = override_value(path, text);
  if (const std::string problem = type_problem(*key, value, text); !problem.empty())
    throw ConfigError("--set: " + key->path + " " + problem);
  sources[path] = "--set";
  const auto dot = path.find('.');
  if (dot == std::string::npos) {
    document[path] = value;
  } else {
    json& section = document[path.substr(0, dot)];
    if (!section.is_object()) section = json::object();
    section[path.substr(dot + 1)] = value;
  }
}

const json* value_at(const json& document, const std::string& path);

// A value for a key that neither the file nor --set gives (dataset.seed from a --data folder).
void apply_fallback(json& document, const Fallback& fallback, Sources& sources) {
  const Key* key = find_key(fallback.path);
  if (key == nullptr) throw std::logic_error("config fallback for unknown key " + fallback.path);
  if (value_at(document, fallback.path) != nullptr) return;
  check_type(fallback.source, *key, fallback.value);
  sources[fallback.path] = fallback.source;
  const auto dot = fallback.path.find('.');
  if (dot == std::string::npos) {
    document[fallback.path] = fallback.value;
  } else {
    json& section = document[fallback.path.substr(0, dot)];
    if (!section.is_object()) section = json::object();
    section[fallback.path.substr(dot + 1)] = fallback.value;
  }
}

const json* value_at(const json& document, const std::string& path) {
  const auto dot = path.find('.');
  if (dot == std::string::npos) return document.contains(path) ? &document.at(path) : nullptr;
  const std::string section = path.substr(0, dot), name = path.substr(dot + 1);
  if (!document.contains(section) || !document.at(section).contains(name)) return nullptr;
  return &document.at(section).at(name);
}

// Writes the checked JSON into a Config, fills the defaults that follow other keys, and checks
// every rule in table order; an error names where the value came from.
Config build(const std::string& source, const json& document, const Sources& sources) {
  Config config;
  for (const Key& key : keys())
    if (const json* value = value_at(document, key.path)) key.write(config, *value);
  for (const Key& key : keys())
    if (key.derive_default && value_at(document, key.path) == nullptr) key.derive_default(config);

  auto blame = [&](const Key& key, const std::string& rule) {
    const auto given = sources.find(key.path);
    const std::string where = given == sources.end() ? source : given->second;
    const std::string value = shown(key.read(config));
    throw ConfigError(where + ": " + key.path +
                      (given == sources.end() ? " (default " + value + ")" : std::string()) +
                      " must be " + rule + ", got " + value);
  };
  // The keys that decide which others belong (dataset.kind, layer.mixer) come first.
  for (const Key& key : keys())
    if (!key.owners.everyone()) {
      const Key& selector = *find_key(key.owners.selector);
      if (const std::string broken = selector.violation(config); !broken.empty())
        blame(selector, broken);
    }
  for (const Key& key : keys())
    if (!applies(key, config) && value_at(document, key.path) != nullptr)
      throw ConfigError(sources.at(key.path) + ": " + key.path + " belongs to " +
                        key.owners.describe() + ", not " + selected_text(key.owners, config) +
                        "; remove it");
  // A key the run holds but its kind does not read (dataset.noise for text) keeps its default in
  // config.json; another value would be ignored silently.
  for (const Key& key : keys())
    if (value_at(document, key.path) != nullptr && applies(key, config) && !read_by(key, config) &&
        key.read(config) != key.read(Config{}))
      throw ConfigError(sources.at(key.path) + ": " + key.path + " belongs to " +
                        key.readers.describe() + ", not " + selected_text(key.readers, config) +
                        "; remove it");
  // A default that follows other keys (layer.rank = model.width / layer.heads) is checked after
  // every key it can follow, so that a bad value is blamed on the key given, not on the default
  // it made (layer.heads = 64 with model.width = 32 gives layer.rank 0).
  for (const bool derived : {false, true})
    for (const Key& key : keys()) {
      if (!applies(key, config) || !key.violation) continue;
      if ((key.derive_default && value_at(document, key.path) == nullptr) != derived) continue;
      if (const std::string broken = key.violation(config); !broken.empty()) blame(key, broken);
    }
  // The kind's own rules: on its keys, and those it adds to shared ones (global: n even).
  if (const data::BrokenRule broken = data::dataset_kind(config.dataset.kind).check(config.dataset))
    blame(*find_key(broken.key), broken.rule);
  return config;
}

}  // namespace

std::vector<std::string> known_keys() {
  std::vector<std::string> paths;
  for (const Key& key : keys()) paths.push_back(key.path);
  return paths;
}

Config parse_config(const std::string& text, const std::string& source,
                    const std::vector<std::string>& overrides,
                    const std::vector<Fallback>& fallbacks) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError(source + ": larger than " + std::to_string(kMaxConfigBytes >> 20) +
                      " MiB, the most a config may be (a config is a few kB of settings; data "
                      "belongs in a --data folder)");
  json document;
  try {
    document = parse_without_duplicates(text, source);
  } catch (const json::parse_error& error) {
    // nlohmann reports "[json.exception.parse_error.101] parse error at line 3, column 5: ...".
    std::string message = error.what();
    const auto at = message.find("at line");
    message = at == std::string::npos ? message : message.substr(at);
    // The parser quotes what it last read, which may be a whole 500 kB token.
    if (message.size() > 4 * kMaxShown) message = message.substr(0, 4 * kMaxShown) + "…";
    throw ConfigError(source + ": invalid JSON " + message);
  } catch (const json::exception& error) {
    // e.g. out_of_range 406, "number overflow parsing '1e999'": strip nlohmann's prefix.
    std::string message = error.what();
    const auto bracket = message.find("] ");
    throw ConfigError(source + ": invalid JSON: " +
                      (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
  Sources sources;
  check_keys(source, document, sources);
  for (const std::string& assignment : overrides) apply_override(document, assignment, sources);
  for (const Fallback& fallback : fallbacks) apply_fallback(document, fallback, sources);
  return build(source, document, sources);
}

std::string flag_problem(const std::string& path, const std::string& text) {
  const Key* key = find_key(path);
  if (key == nullptr) throw std::logic_error("flag_problem: no config key " + path);
  json value;
  try {
    value = json::parse(text, depth_limit(path, [] { return std::string(); }), false);
  } catch (const ConfigError&) {
    return "must be " + type_name(key->type) + ", got a value nested deeper than " +
           std::to_string(kMaxDepth) + " levels";
  }
  return type_problem(*key, value.is_discarded() ? json(text) : value, text);
}

Config load_config(const std::filesystem::path& path, const std::vector<std::string>& overrides,
                   const std::vector<Fallback>& fallbacks) {
  std::error_code ignored;
  // A named FIFO (or socket, or device) is refused rather than waited on: opening a FIFO blocks
  // until something writes to it. A pipe given as /dev/fd/N (`ufl train <(…)`) is a link to one,
  // with its writer already running, and is read.
  const std::filesystem::file_status named = std::filesystem::symlink_status(path, ignored);
  if (std::filesystem::exists(named) && !std::filesystem::is_regular_file(named) &&
      !std::filesystem::is_directory(named) && !std::filesystem::is_symlink(named))
    throw ConfigError(path.string() + ": not a regular file (" +
                      (std::filesystem::is_fifo(named) ? "a FIFO" : "a socket or device") +
                      "); give the config as a file");
  std::ifstream file(path, std::ios::binary);
  if (!file || std::filesystem::is_directory(path, ignored))
    throw ConfigError(path.string() + ": cannot read the config file (does it exist?)");
  // Read at most one byte past the limit (the file may be a pipe: `ufl train <(…)`).
  std::string contents(kMaxConfigBytes + 1, '\0');
  file.read(contents.data(), std::streamsize(contents.size()));
  contents.resize(std::size_t(file.gcount()));
  return parse_config(contents, path.string(), overrides, fallbacks);
}

json to_json(const Config& config) {
  json document = json::object();
  for (const Key& key : keys()) {
    if (!applies(key, config)) continue;
    const auto dot = key.path.find('.');
    if (dot == std::string::npos)
      document[key.path] = key.read(config);
    else
      document[key.path.substr(0, dot)][key.path.substr(dot + 1)] = key.read(config);
  }
  return document;
}

}  // namespace ufl::config
