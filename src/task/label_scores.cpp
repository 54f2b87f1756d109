#include "task/label_scores.hpp"

#include <fmt/format.h>

namespace ufl::task {

std::string label_scores_text(const nlohmann::json& metrics) {
  if (!metrics.contains("labels") || !metrics["labels"].is_object()) return "";
  std::string text;
  for (const auto& [name, scores] : metrics["labels"].items()) {
    if (!scores.is_object()) continue;
    text += fmt::format(
        "{}{} {:.4f} nats (accuracy {:.3f}, {} positions)", text.empty() ? "by label: " : ", ",
        name, scores.value("validation_loss", 0.0), scores.value("validation_accuracy", 0.0),
        scores.value("positions", std::int64_t(0)));
  }
  return text;
}

}  // namespace ufl::task
