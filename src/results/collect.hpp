#pragma once
// Gathers finished runs' config.json and metrics.json into one table (`ufl collect`): one row per
// run, one column per scalar config value (prefixed "config.") and per scalar metric.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ufl::results {

struct CollectedTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> skipped;  // folders without a complete run, with the reason
  // How many were skipped of each kind: "interrupted", "diverged", "unreadable", "not a folder"
  std::map<std::string, int> skipped_counts;
};

// Each path is a run folder or a folder searched recursively (hidden folders aside) for run
// folders (those holding config.json and manifest.json); a run reached through several paths is
// one row. Rows are sorted by run path; runs that are not complete are skipped and counted.
CollectedTable collect_runs(const std::vector<std::filesystem::path>& paths);

// "skipped 3: 1 diverged, 2 interrupted", or "" when nothing was skipped.
std::string skipped_summary(const CollectedTable& table);

std::string to_csv(const CollectedTable& table);

// The table for the terminal: one aligned row per run with the columns a reader looks at first
// (run, dataset, mixer, depth, seed, verdict, emerged, η, η_fix, test MSE; validation loss and
// accuracy for token runs), those no run has left out, numbers to 4 significant digits.
std::string to_text_table(const CollectedTable& table);

}  // namespace ufl::results
