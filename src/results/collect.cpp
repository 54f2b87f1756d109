#include "results/collect.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "io/atomic_file.hpp"

namespace ufl::results {
namespace {

using nlohmann::json;

// A folder `ufl train` wrote: complete, interrupted or diverged (a diverged run has no
// metrics.json, but it is a run and is counted as skipped).
bool is_run_folder(const std::filesystem::path& folder) {
  return std::filesystem::is_regular_file(folder / "config.json") &&
         std::filesystem::is_regular_file(folder / "manifest.json");
}

// The same folder reached twice (`collect results results/local`, `results/` and `./results`)
// is one run: keyed by its canonical path, shown as first reached.
void add_folder(std::map<std::filesystem::path, std::filesystem::path>& folders,
                const std::filesystem::path& folder) {
  std::error_code error;
  const auto canonical = std::filesystem::weakly_canonical(folder, error);
  folders.emplace(error ? folder.lexically_normal() : canonical, folder.lexically_normal());
}

// Scalars only: lists (singular values, cosines) stay in metrics.json. The per-layer metrics of
// a stack, "layers": [{…}, {…}], become layer1.*, layer2.*, … (as params/layer2/).
void flatten(const json& value, const std::string& prefix,
             std::map<std::string, std::string>& row) {
  if (value.is_object()) {
    for (auto& [key, inner] : value.items())
      flatten(inner, prefix.empty() ? key : prefix + "." + key, row);
  } else if (prefix == "layers" && value.is_array()) {
    for (std::size_t l = 0; l < value.size(); ++l)
      flatten(value[l], "layer" + std::to_string(l + 1), row);
  } else if (value.is_array()) {
    if (prefix.rfind("config.", 0) == 0) row[prefix] = value.dump();  // e.g. config.dataset.freqs
  } else if (value.is_string()) {
    row[prefix] = value.get<std::string>();
  } else {
    row[prefix] = value.dump();
  }
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

CollectedTable collect_runs(const std::vector<std::filesystem::path>& paths) {
  std::map<std::filesystem::path, std::filesystem::path> folders;  // canonical → as reached
  CollectedTable table;
  auto skip = [&table](const std::string& what, const std::string& why, const std::string& kind) {
    table.skipped.push_back(what + ": " + why);
    ++table.skipped_counts[kind];
  };
  for (const auto& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      skip(path.string(), "not a folder", "not a folder");
      continue;
    }
    if (is_run_folder(path)) add_folder(folders, path);
    // Hidden folders (staging folders of runs in progress, .git) are not searched.
    for (auto it = std::filesystem::recursive_directory_iterator(path);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (!it->is_directory()) continue;
      if (it->path().filename().string().rfind(".", 0) == 0) {
        it.disable_recursion_pending();
        continue;
      }
      if (is_run_folder(it->path())) add_folder(folders, it->path());
    }
  }
  std::vector<std::map<std::string, std::string>> rows;
  std::set<std::string> columns;
  for (const auto& [canonical, folder] : folders) {
    std::map<std::string, std::string> row;
    try {
      const json manifest = json::parse(io::read_file(folder / "manifest.json"));
      const std::string status = manifest.value("status", std::string("complete"));
      if (status != "complete") {
        skip(folder.string(), status + " run", status);
        continue;
      }
      row["run"] = folder.string();
      flatten(json::parse(io::read_file(folder / "config.json")), "config", row);
      const json metrics = json::parse(io::read_file(folder / "metrics.json"));
      json scalars = metrics;
      scalars.erase("thresholds");
      flatten(scalars, "", row);
      row["wall_seconds"] = manifest.value("wall_seconds", json()).dump();
      row["steps_per_second"] = manifest.value("steps_per_second", json()).dump();
    } catch (const std::exception& error) {
      skip(folder.string(), error.what(), "unreadable");
      continue;
    }
    for (const auto& [key, value] : row) columns.insert(key);
    rows.push_back(std::move(row));
  }
  // run first, then metrics, then config columns, each sorted.
  table.columns.push_back("run");
  for (const auto& column : columns)
    if (column != "run" && column.rfind("config.", 0) != 0) table.columns.push_back(column);
  for (const auto& column : columns)
    if (column.rfind("config.", 0) == 0) table.columns.push_back(column);
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& column : table.columns) {
      const auto it = row.find(column);
      cells.push_back(it == row.end() ? "" : it->second);
    }
    table.rows.push_back(std::move(cells));
  }
  return table;
}

std::string skipped_summary(const CollectedTable& table) {
  if (table.skipped.empty()) return "";
  std::string summary = "skipped " + std::to_string(table.skipped.size()) + ":";
  bool first = true;
  for (const auto& [kind, count] : table.skipped_counts) {
    summary += (first ? " " : ", ") + std::to_string(count) + " " + kind;
    first = false;
  }
  return summary;
}

std::string to_csv(const CollectedTable& table) {
  std::ostringstream csv;
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    csv << (c ? "," : "") << csv_field(table.columns[c]);
  csv << "\n";
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) csv << (c ? "," : "") << csv_field(row[c]);
    csv << "\n";
  }
  return csv.str();
}

}  // namespace ufl::results
