#pragma once
// Which settings two resolved configs disagree on, named by key, for the refusals of --continue,
// --resume and `ufl analyze` when a run folder holds other settings than the ones given.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ufl::config {

struct SettingDifference {
  std::string key;               // "dataset.noise"
  nlohmann::json first, second;  // absent keys are null
};

// The keys (as "section.key") whose values differ between the two configs (as config::to_json
// writes them), in key order; keys listed in `ignored` are left out.
std::vector<SettingDifference> differing_settings(const nlohmann::json& first,
                                                  const nlohmann::json& second,
                                                  const std::vector<std::string>& ignored = {});

// "dataset.noise (0.1 FIRST, 0.5 SECOND), train.steps (…)": at most four keys, then "and N more".
std::string describe_differences(const std::vector<SettingDifference>& differences,
                                 const std::string& first_name, const std::string& second_name);

}  // namespace ufl::config
