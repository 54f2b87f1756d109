#include "analysis/block_heads.hpp"

#include <algorithm>
#include <utility>

#include "analysis/head_scores.hpp"
#include "io/npy.hpp"

namespace ufl::analysis {

void add_head_window(std::vector<std::vector<std::vector<Eigen::MatrixXd>>>& matrices,
                     const std::vector<std::vector<const float*>>& head_m, int n) {
  matrices.resize(head_m.size());
  for (std::size_t l = 0; l < head_m.size(); ++l) {
    matrices[l].resize(head_m[l].size());
    for (std::size_t k = 0; k < head_m[l].size(); ++k) {
      Eigen::MatrixXd matrix(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) matrix(i, j) = head_m[l][k][std::size_t(i) * n + j];
      matrices[l][k].push_back(std::move(matrix));
    }
  }
}

nlohmann::json block_heads(const model::Model<float>& model,
                           const std::vector<std::vector<std::vector<Eigen::MatrixXd>>>& matrices,
                           const AnalysisConfig& thresholds, const std::filesystem::path& folder) {
  const int n = model.n;
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < model.blocks.size() && l < matrices.size(); ++l) {
    const auto& mixing =
        dynamic_cast<const model::HeadsModule<float>&>(*model.blocks[l].branches[0][1]);
    const auto all = model.views(model.blocks[l].slices[0][1]);
    nlohmann::json heads = nlohmann::json::array();
    for (std::size_t k = 0; k < matrices[l].size(); ++k) {
      const std::optional<double> gamma = mixing.mixer().gate(mixing.head_parameters(all, int(k)));
      nlohmann::json scores = head_scores(matrices[l][k], gamma, thresholds);
      Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(n, n);
      for (const Eigen::MatrixXd& matrix : matrices[l][k]) mean += matrix;
      mean /= double(std::max<std::size_t>(1, matrices[l][k].size()));
      const std::string name =
          "heads/block" + std::to_string(l + 1) + "_head" + std::to_string(k + 1) + ".npy";
      std::filesystem::create_directories(folder / "heads");
      io::write_npy(folder / name, mean);
      scores["head"] = k + 1;
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
    for (const nlohmann::json& head : layer["heads"])
      text += " " + head.value("kind", std::string("?"));
  }
  return text;
}

}  // namespace ufl::analysis
