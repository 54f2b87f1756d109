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

bool is_run_folder(const std::filesystem::path& folder) {
  return std::filesystem::is_regular_file(folder / "metrics.json") &&
         std::filesystem::is_regular_file(folder / "config.json") &&
         std::filesystem::is_regular_file(folder / "manifest.json");
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
  std::set<std::filesystem::path> folders;
  CollectedTable table;
  for (const auto& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      table.skipped.push_back(path.string() + ": not a folder");
      continue;
    }
    if (is_run_folder(path)) folders.insert(path);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
      if (entry.is_directory() && entry.path().filename().string().rfind(".", 0) != 0 &&
          is_run_folder(entry.path()))
        folders.insert(entry.path());
  }
  std::vector<std::map<std::string, std::string>> rows;
  std::set<std::string> columns;
  for (const auto& folder : folders) {
    std::map<std::string, std::string> row;
    try {
      row["run"] = folder.string();
      flatten(json::parse(io::read_file(folder / "config.json")), "config", row);
      const json metrics = json::parse(io::read_file(folder / "metrics.json"));
      json scalars = metrics;
      scalars.erase("thresholds");
      flatten(scalars, "", row);
      const json manifest = json::parse(io::read_file(folder / "manifest.json"));
      if (manifest.value("status", std::string("complete")) != "complete") {
        table.skipped.push_back(folder.string() + ": " + manifest.value("status", std::string()) +
                                " run");
        continue;
      }
      row["wall_seconds"] = manifest.value("wall_seconds", json()).dump();
      row["steps_per_second"] = manifest.value("steps_per_second", json()).dump();
    } catch (const std::exception& error) {
      table.skipped.push_back(folder.string() + ": " + error.what());
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
