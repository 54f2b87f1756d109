#include "results/collect.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "io/atomic_file.hpp"
#include "model/model_config.hpp"
#include "train/run_status.hpp"

namespace ufl::results {
namespace {

using nlohmann::json;

// A folder `ufl train` wrote: complete, interrupted or diverged (a diverged run has no
// metrics.json, but it is a run and is counted as skipped).
bool is_run_folder(const std::filesystem::path& folder) {
  std::error_code ignored;  // a symlink loop or an unreadable entry is not a run folder
  return std::filesystem::is_regular_file(folder / "config.json", ignored) &&
         std::filesystem::is_regular_file(folder / "manifest.json", ignored);
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
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      skip(path.string(), error ? error.message() : "not a folder", "not a folder");
      continue;
    }
    if (is_run_folder(path)) add_folder(folders, path);
    // Hidden folders (staging folders of runs in progress, .git) are not searched; symlinks to
    // folders are not followed (so a symlink loop is never entered), and an entry whose type
    // cannot be read (a symlink to itself, a folder without permission) is skipped.
    const auto options = std::filesystem::directory_options::skip_permission_denied;
    for (auto it = std::filesystem::recursive_directory_iterator(path, options, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      std::error_code status_error;
      const bool folder = it->is_directory(status_error);
      if (status_error) {
        skip(it->path().string(), status_error.message(), "unreadable");
        continue;
      }
      if (!folder) continue;
      if (it->path().filename().string().rfind(".", 0) == 0) {
        it.disable_recursion_pending();
        continue;
      }
      if (is_run_folder(it->path())) add_folder(folders, it->path());
    }
    if (error) skip(path.string(), "cannot list all of it: " + error.message(), "unreadable");
  }
  std::vector<std::map<std::string, std::string>> rows;
  std::set<std::string> columns;
  for (const auto& [canonical, folder] : folders) {
    std::map<std::string, std::string> row;
    try {
      const json manifest = json::parse(io::read_file(folder / "manifest.json"));
      const std::string status = manifest.value("status", std::string("complete"));
      if (train::status_from_name(status) != train::TrainStatus::kComplete) {
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

std::string to_text_table(const CollectedTable& table) {
  static const std::vector<std::pair<std::string, std::string>> kShown = {
      {"run", "run"},
      {"config.dataset.kind", "dataset"},
      {"config.layer.mixer", "mixer"},
      {"config.model.depth", "L"},
      {"config.seed", "seed"},
      {"verdict", "verdict"},
      {"emerged", "emerged"},
      {"eta", "η"},
      {"eta_fix", "η_fix"},
      {"test_mse", "test MSE"},
      {"validation_loss", "val loss"},
      {"validation_accuracy", "val acc"}};
  // The chosen columns that exist, and their cells with numbers shortened.
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> cells(table.rows.size());
  for (const auto& [column, header] : kShown) {
    const auto at = std::find(table.columns.begin(), table.columns.end(), column);
    if (at == table.columns.end()) continue;
    const std::size_t index = std::size_t(at - table.columns.begin());
    headers.push_back(header);
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      std::string cell = table.rows[r][index];
      // A hybrid block's mixers (the CSV holds the list as JSON): "2 attention + 2 convolution".
      if (column == "config.layer.mixer" && cell.rfind("[", 0) == 0) {
        const json names = json::parse(cell, nullptr, false);
        if (names.is_array() && std::all_of(names.begin(), names.end(),
                                            [](const json& name) { return name.is_string(); }))
          cell = model::mixers_text(names.get<std::vector<std::string>>());
      }
      char* end = nullptr;
      const double value = std::strtod(cell.c_str(), &end);
      if (!cell.empty() && end == cell.c_str() + cell.size() &&
          cell.find_first_of(".eE") != std::string::npos) {
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", value);
        cell = text;
      }
      cells[r].push_back(cell.empty() ? "–" : cell);
    }
  }
  // Widths in characters (code points), so that η and – align.
  auto length = [](const std::string& text) {
    return std::size_t(std::count_if(text.begin(), text.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  };
  std::vector<std::size_t> widths;
  for (const std::string& header : headers) widths.push_back(length(header));
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], length(row[c]));
  std::string text;
  auto add_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line +=
          row[c] + (c + 1 == row.size() ? "" : std::string(widths[c] - length(row[c]) + 2, ' '));
    text += line + "\n";
  };
  add_row(headers);
  for (const auto& row : cells) add_row(row);
  return text;
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
