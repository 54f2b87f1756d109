#include "analysis/block_heads.hpp"

#include <algorithm>
#include <utility>

#include "analysis/head_scores.hpp"
#include "io/npy.hpp"

namespace ufl::analysis {

namespace {

Eigen::MatrixXd to_matrix(const float* values, int rows, int cols) {
  Eigen::MatrixXd matrix(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int c = 0; c < cols; ++c) matrix(i, c) = values[std::size_t(i) * cols + c];
  return matrix;
}

// The branch shares' accumulator of a head whose mixer blends a linear branch with the softmax by
// a learned gate and whose window has both branches, with its γ and W_v; none otherwise.
std::optional<BranchShares> branch_shares_of(const model::Model<float>& model,
                                             const model::MixerPart<float>& part,
                                             const HeadWindow& window) {
  if (!part.mixer->learned_gate() || !part.mixer->softmax_branch() || window.linear == nullptr ||
      window.softmax == nullptr || window.input == nullptr)
    return std::nullopt;
  const std::optional<double> gamma = part.mixer->gate(model.views(part.mixer_slices));
  if (!gamma) return std::nullopt;
  return BranchShares(*gamma, model.params.matrix(part.value_slice).cast<double>());
}

}  // namespace

void add_head_window(BlockHeadWindows& windows, const model::Model<float>& model,
                     const std::vector<std::vector<HeadWindow>>& heads) {
  const int n = model.n, width = model.width;
  windows.resize(heads.size());
  for (std::size_t l = 0; l < heads.size(); ++l) {
    windows[l].resize(heads[l].size());
    const std::vector<int> parts = model::part_indices(model, int(l), model::Measured::kAsHead);
    for (std::size_t k = 0; k < heads[l].size(); ++k) {
      const HeadWindow& window = heads[l][k];
      const Eigen::MatrixXd matrix = to_matrix(window.M, n, n);
      HeadWindows& head = windows[l][k];
      if (head.statistics.count() == 0)
        head.branches = branch_shares_of(model, model.blocks[l]->parts[parts[k]], window);
      head.statistics.add(matrix);
      if (head.sum.size() == 0)
        head.sum = matrix;
      else
        head.sum += matrix;
      if (head.branches)
        head.branches->add(to_matrix(window.linear, n, n), to_matrix(window.softmax, n, n),
                           to_matrix(window.input, n, width));
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
      if (head.branches) scores["branches"] = head.branches->json();
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
