#pragma once
// Gathers finished runs' config.json and metrics.json into one table (`ufl collect`): one row per
// run, one column per scalar config value (prefixed "config.") and per scalar metric.
#include <filesystem>
#include <string>
#include <vector>

namespace ufl::results {

struct CollectedTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> skipped;  // folders without a complete run, with the reason
};

// Each path is a run folder or a folder searched recursively for run folders (those holding
// metrics.json, config.json and manifest.json). Rows are sorted by run path.
CollectedTable collect_runs(const std::vector<std::filesystem::path>& paths);

std::string to_csv(const CollectedTable& table);

}  // namespace ufl::results
