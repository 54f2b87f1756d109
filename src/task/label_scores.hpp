#pragma once
// The line that reports a next_token run's loss and accuracy per label of its positions (copied,
// fresh; docs/transformer.md §13) from its metrics.json, for the end of `ufl train` and for
// `ufl show`.
#include <nlohmann/json.hpp>
#include <string>

namespace ufl::task {

// "by label: copied 0.8123 nats (accuracy 0.781, 9120 positions), fresh …"; empty when the
// metrics hold no "labels".
std::string label_scores_text(const nlohmann::json& metrics);

}  // namespace ufl::task
