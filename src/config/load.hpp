#pragma once
// Reading a config: JSON file → `--set` overrides → schema check → Config with every default
// filled in (docs/design.md §3). Every problem is a ConfigError whose message is one line naming
// the key and what to fix.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace ufl::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A value for a key that neither the file nor --set gives, used before the key's own default and
// named `source` in errors: dataset.seed from the dataset.json of a `--data` folder.
struct Fallback {
  std::string path;  // "dataset.seed"
  nlohmann::json value;
  std::string source;  // "datasets/local-seed1/dataset.json"
};

// Parses `text` (named `source` in messages; a key given twice in one object is an error),
// applies `overrides` ("a.b=value", the value read as JSON when it parses, else as a string),
// then `fallbacks` for keys still absent, and validates.
Config parse_config(const std::string& text, const std::string& source,
                    const std::vector<std::string>& overrides = {},
                    const std::vector<Fallback>& fallbacks = {});

// Reads the file, then as parse_config.
Config load_config(const std::filesystem::path& path,
                   const std::vector<std::string>& overrides = {},
                   const std::vector<Fallback>& fallbacks = {});

// For a flag that sets one key (--seed N sets seed): "" when `text` is a valid value of the key
// at `path`, else what it must be ("must be an integer from 0 to 18446744073709551615, got -1").
std::string flag_problem(const std::string& path, const std::string& text);

// The resolved config: every key with its value, only the keys of its dataset kind and mixer.
nlohmann::json to_json(const Config& config);

// Every valid key path, for --help and suggestions.
std::vector<std::string> known_keys();

}  // namespace ufl::config
