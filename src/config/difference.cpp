#include "config/difference.hpp"

#include <algorithm>
#include <map>

namespace ufl::config {
namespace {

using nlohmann::json;

// "dataset.noise" → value, for the two levels a config has (a list is one value).
std::map<std::string, json> flattened(const json& config) {
  std::map<std::string, json> values;
  if (!config.is_object()) return values;
  for (auto& [name, value] : config.items()) {
    if (value.is_object())
      for (auto& [inner, inner_value] : value.items()) values[name + "." + inner] = inner_value;
    else
      values[name] = value;
  }
  return values;
}

std::string shown(const json& value) {
  if (value.is_null()) return "absent";
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) {
    std::size_t cut = 40;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    text.resize(cut);
    text += "…";
  }
  return text;
}

}  // namespace

std::vector<SettingDifference> differing_settings(const json& first, const json& second,
                                                  const std::vector<std::string>& ignored) {
  const std::map<std::string, json> a = flattened(first), b = flattened(second);
  std::map<std::string, SettingDifference> found;
  auto compare = [&](const std::string& key) {
    if (std::find(ignored.begin(), ignored.end(), key) != ignored.end()) return;
    const auto in_a = a.find(key), in_b = b.find(key);
    const json x = in_a == a.end() ? json() : in_a->second;
    const json y = in_b == b.end() ? json() : in_b->second;
    if (x != y) found[key] = {key, x, y};
  };
  for (const auto& entry : a) compare(entry.first);
  for (const auto& entry : b) compare(entry.first);
  std::vector<SettingDifference> differences;
  for (auto& entry : found) differences.push_back(std::move(entry.second));
  return differences;
}

std::string describe_differences(const std::vector<SettingDifference>& differences,
                                 const std::string& first_name, const std::string& second_name) {
  std::string text;
  const std::size_t shown_keys = std::min<std::size_t>(differences.size(), 4);
  for (std::size_t k = 0; k < shown_keys; ++k) {
    const SettingDifference& difference = differences[k];
    text += (k == 0 ? "" : ", ") + difference.key + " (" + shown(difference.first) + " " +
            first_name + ", " + shown(difference.second) + " " + second_name + ")";
  }
  if (differences.size() > shown_keys)
    text += " and " + std::to_string(differences.size() - shown_keys) + " more";
  return text;
}

}  // namespace ufl::config
