#include "train/run_status.hpp"

#include <nlohmann/json.hpp>

#include "io/atomic_file.hpp"

namespace ufl::train {

std::optional<TrainStatus> status_from_name(const std::string& name) {
  for (TrainStatus status :
       {TrainStatus::kComplete, TrainStatus::kInterrupted, TrainStatus::kDiverged})
    if (name == status_name(status)) return status;
  return std::nullopt;
}

std::optional<TrainStatus> recorded_status(const std::filesystem::path& run) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(run / "manifest.json", error)) return std::nullopt;
  const nlohmann::json manifest =
      nlohmann::json::parse(io::read_file(run / "manifest.json"), nullptr, false);
  if (!manifest.is_object() || !manifest.contains("status") || !manifest["status"].is_string())
    return std::nullopt;
  return status_from_name(manifest["status"].get<std::string>());
}

}  // namespace ufl::train
