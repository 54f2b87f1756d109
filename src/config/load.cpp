#include "config/load.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace ufl::config {
namespace {

using nlohmann::json;

// A value for an error message; bytes that are not UTF-8 are replaced rather than thrown on.
std::string shown(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

enum class Type { kString, kInteger, kNumber, kIntegerList };

struct Key {
  std::string path;  // "dataset.n"
  Type type;
  std::string kind;  // dataset kind the key belongs to, "" for all
};

const std::vector<Key>& schema() {
  static const std::vector<Key> keys = {
      {"name", Type::kString, ""},
      {"seed", Type::kInteger, ""},
      {"dataset.kind", Type::kString, ""},
      {"dataset.n", Type::kInteger, ""},
      {"dataset.d", Type::kInteger, ""},
      {"dataset.noise", Type::kNumber, ""},
      {"dataset.train_size", Type::kInteger, ""},
      {"dataset.test_size", Type::kInteger, ""},
      {"dataset.kernel_width", Type::kInteger, "local"},
      {"dataset.freqs", Type::kIntegerList, "periodic"},
      {"dataset.amplitude_decay", Type::kNumber, "periodic"},
      {"dataset.rank", Type::kInteger, "lowrank"},
      {"dataset.singular_value_decay", Type::kNumber, "lowrank"},
      {"layer.rank", Type::kInteger, ""},
      {"layer.content_init_scale", Type::kNumber, ""},
      {"train.steps", Type::kInteger, ""},
      {"train.batch_size", Type::kInteger, ""},
      {"train.lr", Type::kNumber, ""},
      {"train.lr_final", Type::kNumber, ""},
      {"train.ortho_weight", Type::kNumber, ""},
      {"train.eval_every", Type::kInteger, ""},
      {"analysis.iota_min", Type::kNumber, ""},
      {"analysis.tau_min", Type::kNumber, ""},
      {"analysis.ell_min", Type::kNumber, ""},
      {"analysis.phi_min", Type::kNumber, ""},
      {"analysis.alpha_min", Type::kNumber, ""},
      {"analysis.eta_min", Type::kNumber, ""},
  };
  return keys;
}

const std::set<std::string> kSections = {"dataset", "layer", "train", "analysis"};

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
  candidates.insert(candidates.end(), kSections.begin(), kSections.end());
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

const Key* find_key(const std::string& path) {
  for (const Key& key : schema())
    if (key.path == path) return &key;
  return nullptr;
}

std::string type_name(Type type) {
  switch (type) {
    case Type::kString:
      return "a string";
    case Type::kInteger:
      return "an integer";
    case Type::kNumber:
      return "a number";
    case Type::kIntegerList:
      return "a list of integers";
  }
  return "";
}

bool is_integral(const json& value) {
  if (value.is_number_integer()) return true;
  return value.is_number_float() && std::isfinite(value.get<double>()) &&
         value.get<double>() == std::floor(value.get<double>()) &&
         std::abs(value.get<double>()) < 9e15;
}

void check_type(const std::string& source, const Key& key, const json& value) {
  bool ok = false;
  switch (key.type) {
    case Type::kString:
      ok = value.is_string();
      break;
    case Type::kInteger:
      ok = is_integral(value);
      break;
    case Type::kNumber:
      ok = value.is_number() && std::isfinite(value.get<double>());
      break;
    case Type::kIntegerList:
      ok = value.is_array() && std::all_of(value.begin(), value.end(), is_integral);
      break;
  }
  if (!ok)
    throw ConfigError(source + ": " + key.path + " must be " + type_name(key.type) + ", got " +
                      shown(value));
}

// Walks the user's JSON: every key known, every value of the right type.
void check_keys(const std::string& source, const json& document) {
  if (!document.is_object())
    throw ConfigError(source + ": a config must be a JSON object like {\"dataset\": {...}}");
  for (auto& [name, value] : document.items()) {
    if (kSections.count(name)) {
      if (!value.is_object())
        throw ConfigError(source + ": '" + name + "' must be an object of settings, got " +
                          shown(value));
      for (auto& [inner, inner_value] : value.items()) {
        const std::string path = name + "." + inner;
        const Key* key = find_key(path);
        if (key == nullptr)
          throw ConfigError(source + ": unknown key '" + path + "'" + suggestion(path));
        check_type(source, *key, inner_value);
      }
      continue;
    }
    const Key* key = find_key(name);
    if (key == nullptr)
      throw ConfigError(source + ": unknown key '" + name + "'" + suggestion(name));
    check_type(source, *key, value);
  }
}

void apply_override(json& document, const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError("--set '" + assignment +
                      "': expected key.path=value, e.g. dataset.noise=0.3");
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const Key* key = find_key(path);
  if (key == nullptr) throw ConfigError("--set: unknown key '" + path + "'" + suggestion(path));
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded()) {
    value = text;  // not JSON: a plain string such as a name
    try {
      (void)value.dump();
    } catch (const json::type_error&) {
      throw ConfigError("--set " + path + ": the value is not valid UTF-8 text");
    }
  }
  check_type("--set", *key, value);
  const auto dot = path.find('.');
  if (dot == std::string::npos) {
    document[path] = value;
  } else {
    json& section = document[path.substr(0, dot)];
    if (!section.is_object()) section = json::object();
    section[path.substr(dot + 1)] = value;
  }
}

[[noreturn]] void out_of_range(const std::string& source, const std::string& path,
                               const std::string& rule, const json& value) {
  throw ConfigError(source + ": " + path + " must be " + rule + ", got " + shown(value));
}

int to_int(const std::string& source, const std::string& path, const json& value) {
  const double number = value.get<double>();
  if (number < std::numeric_limits<int>::min() || number > std::numeric_limits<int>::max())
    out_of_range(source, path, "a 32-bit integer", value);
  return static_cast<int>(number);
}

// Moves the checked JSON into the struct and checks every range.
Config build(const std::string& source, const json& document) {
  Config config;
  auto get = [&](const std::string& path) -> const json* {
    const auto dot = path.find('.');
    if (dot == std::string::npos) return document.contains(path) ? &document.at(path) : nullptr;
    const std::string section = path.substr(0, dot), name = path.substr(dot + 1);
    if (!document.contains(section) || !document.at(section).contains(name)) return nullptr;
    return &document.at(section).at(name);
  };
  auto integer = [&](const std::string& path, int& field, int minimum, const std::string& rule) {
    if (const json* value = get(path)) field = to_int(source, path, *value);
    if (field < minimum) out_of_range(source, path, rule, field);
  };
  auto number = [&](const std::string& path, double& field, bool (*valid)(double),
                    const std::string& rule) {
    if (const json* value = get(path)) field = value->get<double>();
    if (!valid(field)) out_of_range(source, path, rule, field);
  };
  auto positive = [](double x) { return x > 0; };
  auto non_negative = [](double x) { return x >= 0; };
  auto unit_interval = [](double x) { return x >= 0 && x <= 1; };

  if (const json* value = get("name")) config.name = value->get<std::string>();
  if (config.name.empty() || config.name.find('/') != std::string::npos || config.name == "." ||
      config.name == "..")
    out_of_range(source, "name", "a non-empty folder name without '/'", config.name);
  if (const json* value = get("seed")) {
    if (value->get<double>() < 0) out_of_range(source, "seed", "an integer ≥ 0", *value);
    config.seed = value->is_number_unsigned() ? value->get<std::uint64_t>()
                                              : static_cast<std::uint64_t>(value->get<double>());
  }

  DatasetConfig& data = config.dataset;
  if (const json* value = get("dataset.kind")) data.kind = value->get<std::string>();
  static const std::vector<std::string> kinds = {"local", "global", "periodic", "lowrank"};
  if (std::find(kinds.begin(), kinds.end(), data.kind) == kinds.end())
    out_of_range(source, "dataset.kind", "one of local, global, periodic, lowrank", data.kind);
  for (const Key& key : schema())
    if (!key.kind.empty() && key.kind != data.kind && get(key.path) != nullptr)
      throw ConfigError(source + ": " + key.path + " belongs to dataset kind '" + key.kind +
                        "', not '" + data.kind + "'; remove it");
  integer("dataset.n", data.n, 2, "an integer ≥ 2");
  integer("dataset.d", data.d, 1, "an integer ≥ 1");
  number("dataset.noise", data.noise, non_negative, "a number ≥ 0");
  integer("dataset.train_size", data.train_size, 1, "an integer ≥ 1");
  integer("dataset.test_size", data.test_size, 1, "an integer ≥ 1");
  if (data.kind == "global" && data.n % 2 != 0)
    out_of_range(source, "dataset.n", "even for kind 'global' (tokens come in pairs)", data.n);
  if (data.kind == "local") {
    integer("dataset.kernel_width", data.kernel_width, 1, "an integer ≥ 1");
    if (data.kernel_width > data.n)
      out_of_range(source, "dataset.kernel_width", "at most dataset.n = " + std::to_string(data.n),
                   data.kernel_width);
  }
  if (data.kind == "periodic") {
    if (const json* value = get("dataset.freqs")) {
      data.freqs.clear();
      for (const json& f : *value) data.freqs.push_back(to_int(source, "dataset.freqs", f));
    }
    const std::string half =
        data.n % 2 == 0 ? std::to_string(data.n / 2) : std::to_string(data.n / 2) + ".5";
    const std::string window = "frequencies f with 1 ≤ f < n/2 = " + half;
    if (data.freqs.empty())
      out_of_range(source, "dataset.freqs", "a non-empty list of " + window, json::array());
    std::set<int> seen;
    for (int f : data.freqs) {
      if (f < 1 || 2 * f >= data.n) out_of_range(source, "dataset.freqs", window, data.freqs);
      if (!seen.insert(f).second)
        out_of_range(source, "dataset.freqs", "distinct frequencies", data.freqs);
    }
    number("dataset.amplitude_decay", data.amplitude_decay, positive, "a number > 0");
  }
  if (data.kind == "lowrank") {
    integer("dataset.rank", data.rank, 1, "an integer ≥ 1");
    if (data.rank > data.n)
      out_of_range(source, "dataset.rank", "at most dataset.n = " + std::to_string(data.n),
                   data.rank);
    number("dataset.singular_value_decay", data.singular_value_decay, positive, "a number > 0");
  }

  config.layer.rank = data.n;  // r = n unless the config says otherwise (spec §2)
  integer("layer.rank", config.layer.rank, 1, "an integer ≥ 1");
  if (config.layer.rank > data.n)
    out_of_range(source, "layer.rank",
                 "at most dataset.n = " + std::to_string(data.n) + " (spec §2: r ≤ n)",
                 config.layer.rank);
  number("layer.content_init_scale", config.layer.content_init_scale, non_negative, "a number ≥ 0");

  TrainConfig& train = config.train;
  integer("train.steps", train.steps, 1, "an integer ≥ 1");
  integer("train.batch_size", train.batch_size, 1, "an integer ≥ 1");
  number("train.lr", train.lr, positive, "a number > 0");
  number("train.lr_final", train.lr_final, non_negative, "a number ≥ 0");
  if (train.lr_final > train.lr)
    out_of_range(source, "train.lr_final", "at most train.lr = " + json(train.lr).dump(),
                 train.lr_final);
  number("train.ortho_weight", train.ortho_weight, non_negative, "a number ≥ 0");
  integer("train.eval_every", train.eval_every, 1, "an integer ≥ 1");

  AnalysisConfig& analysis = config.analysis;
  number("analysis.iota_min", analysis.iota_min, unit_interval, "a number in [0, 1]");
  number("analysis.tau_min", analysis.tau_min, unit_interval, "a number in [0, 1]");
  number("analysis.ell_min", analysis.ell_min, unit_interval, "a number in [0, 1]");
  number("analysis.phi_min", analysis.phi_min, unit_interval, "a number in [0, 1]");
  number("analysis.alpha_min", analysis.alpha_min, unit_interval, "a number in [0, 1]");
  number("analysis.eta_min", analysis.eta_min, positive, "a number > 0");
  return config;
}

}  // namespace

std::vector<std::string> known_keys() {
  std::vector<std::string> keys;
  for (const Key& key : schema()) keys.push_back(key.path);
  return keys;
}

Config parse_config(const std::string& text, const std::string& source,
                    const std::vector<std::string>& overrides) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& error) {
    // nlohmann reports "[json.exception.parse_error.101] parse error at line 3, column 5: ...".
    std::string message = error.what();
    const auto at = message.find("at line");
    throw ConfigError(source + ": invalid JSON " +
                      (at == std::string::npos ? message : message.substr(at)));
  } catch (const json::exception& error) {
    // e.g. out_of_range 406, "number overflow parsing '1e999'": strip nlohmann's prefix.
    std::string message = error.what();
    const auto bracket = message.find("] ");
    throw ConfigError(source + ": invalid JSON: " +
                      (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
  check_keys(source, document);
  for (const std::string& assignment : overrides) apply_override(document, assignment);
  return build(source, document);
}

Config load_config(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  std::ifstream file(path, std::ios::binary);
  if (!file || std::filesystem::is_directory(path))
    throw ConfigError(path.string() + ": cannot read the config file (does it exist?)");
  std::stringstream contents;
  contents << file.rdbuf();
  return parse_config(contents.str(), path.string(), overrides);
}

json to_json(const Config& config) {
  const DatasetConfig& data = config.dataset;
  json dataset = {{"kind", data.kind},
                  {"n", data.n},
                  {"d", data.d},
                  {"noise", data.noise},
                  {"train_size", data.train_size},
                  {"test_size", data.test_size}};
  if (data.kind == "local") dataset["kernel_width"] = data.kernel_width;
  if (data.kind == "periodic") {
    dataset["freqs"] = data.freqs;
    dataset["amplitude_decay"] = data.amplitude_decay;
  }
  if (data.kind == "lowrank") {
    dataset["rank"] = data.rank;
    dataset["singular_value_decay"] = data.singular_value_decay;
  }
  const TrainConfig& train = config.train;
  const AnalysisConfig& analysis = config.analysis;
  return json{
      {"name", config.name},
      {"seed", config.seed},
      {"dataset", dataset},
      {"layer",
       {{"rank", config.layer.rank}, {"content_init_scale", config.layer.content_init_scale}}},
      {"train",
       {{"steps", train.steps},
        {"batch_size", train.batch_size},
        {"lr", train.lr},
        {"lr_final", train.lr_final},
        {"ortho_weight", train.ortho_weight},
        {"eval_every", train.eval_every}}},
      {"analysis",
       {{"iota_min", analysis.iota_min},
        {"tau_min", analysis.tau_min},
        {"ell_min", analysis.ell_min},
        {"phi_min", analysis.phi_min},
        {"alpha_min", analysis.alpha_min},
        {"eta_min", analysis.eta_min}}}};
}

}  // namespace ufl::config
