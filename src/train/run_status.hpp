#pragma once
// A run's status as manifest.json records it ("complete", "interrupted", "diverged"; README, "The
// run folder"), read back into the trainer's enum so that commands compare statuses, not words.
#include <filesystem>
#include <optional>
#include <string>

#include "train/trainer.hpp"

namespace ufl::train {

// The status named `name` (the inverse of status_name); none for another word ("running", the
// staging folder's, or a damaged manifest's).
std::optional<TrainStatus> status_from_name(const std::string& name);

// The status in `run`/manifest.json; none when there is no manifest or it names no status.
std::optional<TrainStatus> recorded_status(const std::filesystem::path& run);

}  // namespace ufl::train
