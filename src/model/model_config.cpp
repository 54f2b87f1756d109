#include "model/model_config.hpp"

#include <utility>

namespace ufl::model {

std::string mixers_text(const std::vector<std::string>& head_mixers) {
  std::vector<std::pair<std::string, int>> counts;  // in the order the heads first name them
  for (const std::string& name : head_mixers) {
    auto found = counts.begin();
    while (found != counts.end() && found->first != name) ++found;
    if (found == counts.end())
      counts.emplace_back(name, 1);
    else
      ++found->second;
  }
  std::string text;
  for (const auto& [name, count] : counts)
    text += (text.empty() ? "" : " + ") + std::to_string(count) + " " + name;
  return text;
}

std::string mixers_text(const LayerConfig& layer) {
  return layer.head_mixers.empty() ? layer.mixer : mixers_text(layer.head_mixers);
}

std::string mixing_text(const LayerConfig& layer) {
  return mixers_text(layer) + (layer.head_mixers.empty() ? " mixer" : " heads");
}

}  // namespace ufl::model
