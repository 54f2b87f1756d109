#pragma once
// Reading a config: JSON file → `--set` overrides → schema check → Config with every default
// filled in (spec §3). Every problem is a ConfigError whose message is one line naming the key
// and what to fix.
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

// Parses `text` (named `source` in messages), applies `overrides` ("a.b=value", the value read
// as JSON when it parses, else as a string) and validates.
Config parse_config(const std::string& text, const std::string& source,
                    const std::vector<std::string>& overrides = {});

// Reads the file, then as parse_config.
Config load_config(const std::filesystem::path& path,
                   const std::vector<std::string>& overrides = {});

// The resolved config: every key with its value, only the keys of its dataset kind and mixer.
nlohmann::json to_json(const Config& config);

// Every valid key path, for --help and suggestions.
std::vector<std::string> known_keys();

}  // namespace ufl::config
