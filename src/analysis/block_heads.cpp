#include "analysis/block_heads.hpp"

#include <algorithm>
#include <utility>

#include "analysis/head_scores.hpp"
#include "io/npy.hpp"

namespace ufl::analysis {

void add_head_window(BlockHeadWindows& windows,
                     const std::vector<std::vector<const float*>>& head_m, int n) {
  windows.resize(head_m.size());
  Eigen::MatrixXd matrix(n, n);
  for (std::size_t l = 0; l < head_m.size(); ++l) {
    windows[l].resize(head_m[l].size());
    for (std::size_t k = 0; k < head_m[l].size(); ++k) {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) matrix(i, j) = head_m[l][k][std::size_t(i) * n + j];
      HeadWindows& head = windows[l][k];
      head.statistics.add(matrix);
      if (head.sum.size() == 0)
        head.sum = matrix;
      else
        head.sum += matrix;
    }
  }
}

nlohmann::json block_heads(const model::Model<float>& model, const BlockHeadWindows& windows,
                           const AnalysisConfig& thresholds, const std::filesystem::path& folder) {
  const int n = model.n;
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < model.blocks.size() && l < windows.size(); ++l) {
    const std::vector<int> parts = model::part_indices(model, int(l), model::Measured::kAsHead);
    nlohmann::json heads = nlohmann::json::array();
    for (std::size_t k = 0; k < windows[l].size() && k < parts.size(); ++k) {
      const model::MixerPart<float>& part = model.blocks[l]->parts[parts[k]];
      const std::optional<double> gamma = part.mixer->gate(model.views(part.mixer_slices));
      const HeadWindows& head = windows[l][k];
      nlohmann::json scores = head_scores(head.statistics, gamma, thresholds);
      Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(n, n);
      if (head.statistics.count() > 0) mean = head.sum / double(head.statistics.count());
      const std::string name =
          "heads/block" + std::to_string(l + 1) + "_head" + std::to_string(k + 1) + ".npy";
      std::filesystem::create_directories(folder / "heads");
      io::write_npy(folder / name, mean);
      scores["head"] = k + 1;
      scores["mixer"] = std::string(part.mixer->name());  // a hybrid block's heads differ
      scores["kind"] = head_kind(scores);
      scores["mean_M"] = name;
      heads.push_back(std::move(scores));
    }
    layers.push_back({{"block", l + 1}, {"heads", heads}});
  }
  return layers;
}

std::string heads_text(const nlohmann::json& metrics) {
  std::string text;
  for (const nlohmann::json& layer : metrics.value("layers", nlohmann::json::array())) {
    if (!layer.contains("heads")) continue;
    text += (text.empty() ? "" : "; ") + std::string("block ") +
            std::to_string(layer.value("block", 0)) + ":";
    // A hybrid block's heads (of different mixers) each say their mixer: "local (convolution)".
    bool hybrid = false;
    for (const nlohmann::json& head : layer["heads"])
      hybrid = hybrid || head.value("mixer", std::string()) !=
                             layer["heads"].front().value("mixer", std::string());
    for (const nlohmann::json& head : layer["heads"])
      text += " " + head.value("kind", std::string("?")) +
              (hybrid ? " (" + head.value("mixer", std::string("?")) + ")" : "");
  }
  return text;
}

}  // namespace ufl::analysis
