#include "analysis/head_structure.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/spectrum.hpp"

namespace ufl::analysis {

RankProfile rank_profile(const Eigen::VectorXd& singular_values) {
  return {effective_rank_of(singular_values), rank_for_share(singular_values, 0.90),
          k99_of(singular_values)};
}

Eigen::MatrixXd truncated(const Eigen::MatrixXd& m, int k) {
  if (k >= std::min(m.rows(), m.cols())) return m;
  if (k <= 0) return Eigen::MatrixXd::Zero(m.rows(), m.cols());
  // M·V_k·V_kᵀ with V_k the k leading eigenvectors of MᵀM (its right singular vectors) equals
  // U_k·Σ_k·V_kᵀ, and the symmetric eigensolver is several times faster than an SVD at n = 64
  // (the truncation test runs thousands of them).
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(m.transpose() * m);
  const Eigen::MatrixXd leading = eigen.eigenvectors().rightCols(k);  // eigenvalues ascend
  return m * leading * leading.transpose();
}

Eigen::MatrixXd uniform_causal_average(int n) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) m.row(i).head(i + 1).setConstant(1.0 / (i + 1));
  return m;
}

Distribution distribution_of(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / double(values.size());
  // Nearest rank: the value at ⌈q·N⌉ (1-based).
  auto quantile = [&values](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * double(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
  };
  d.median = quantile(0.5);
  d.p10 = quantile(0.1);
  d.p90 = quantile(0.9);
  return d;
}

namespace {

// Population standard deviation of x(0..length).
double spread(const Eigen::Ref<const Eigen::RowVectorXd>& x) {
  const double mean = x.mean();
  return std::sqrt((x.array() - mean).square().mean());
}

}  // namespace

DistanceFormGap distance_form_gap(const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys,
                                  bool causal) {
  DistanceFormGap result;
  const Eigen::Index n = keys.rows();
  const Eigen::VectorXd query_norms = queries.rowwise().squaredNorm();
  const Eigen::VectorXd key_norms = keys.rowwise().squaredNorm();
  const double key_mean = key_norms.mean();
  if (!(key_mean > 0)) return result;
  result.key_norm_variation = std::sqrt((key_norms.array() - key_mean).square().mean()) / key_mean;
  // The balanced gauge: K·c with c² = sqrt(mean‖q‖² / mean‖k‖²), so both have mean norm
  // sqrt(mean‖q‖²·mean‖k‖²).
  const double c2 = std::sqrt(query_norms.mean() / key_mean);
  const Eigen::RowVectorXd key_term = (0.5 * c2 * key_norms).transpose();
  const Eigen::MatrixXd scores = queries * keys.transpose();
  double key_spread = 0, score_spread = 0;
  int rows = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index length = causal ? i + 1 : n;
    if (length < 2) continue;
    const double s = spread(key_term.head(length));
    const double t = spread(scores.row(i).head(length));
    key_spread += s * s;
    score_spread += t * t;
    ++rows;
  }
  if (rows > 0 && score_spread > 0) result.gap = std::sqrt(key_spread / score_spread);
  return result;
}

Eigen::MatrixXd omega_of(const model::Factors& factors) {
  return factors.A * factors.sigma.asDiagonal() * factors.B.transpose();
}

namespace {

// The leading left singular directions of `table` (rows = vectors) holding `share` of its energy,
// as columns.
Eigen::MatrixXd leading_row_space(const Eigen::MatrixXd& table, double share) {
  const Eigen::BDCSVD<Eigen::MatrixXd> svd(table.transpose(), Eigen::ComputeThinU);
  const int k = rank_for_share(svd.singularValues(), share);
  return svd.matrixU().leftCols(k);
}

}  // namespace

FeatureSpans feature_spans(const Eigen::MatrixXd& token_table,
                           const Eigen::MatrixXd& position_table, const Eigen::VectorXd& gain,
                           bool centred, double share) {
  auto mapped = [&](const Eigen::MatrixXd& table) {
    Eigen::MatrixXd rows = table;
    if (centred) rows.colwise() -= rows.rowwise().mean();
    return Eigen::MatrixXd(rows * gain.asDiagonal());
  };
  FeatureSpans spans;
  spans.token = leading_row_space(mapped(token_table), share);
  if (position_table.size() > 0)
    spans.position = leading_row_space(mapped(position_table), share);
  else
    spans.position = Eigen::MatrixXd::Zero(token_table.cols(), 0);
  return spans;
}

ReadShares read_shares(const Eigen::VectorXd& unit, const FeatureSpans& spans, int d) {
  const Eigen::Index positions = unit.size() - d - 1;
  const Eigen::VectorXd content = unit.head(d);
  ReadShares shares;
  shares.token = (spans.token.transpose() * content).squaredNorm();
  shares.position = (spans.position.transpose() * content).squaredNorm() +
                    unit.segment(d, positions).squaredNorm();
  shares.bias = unit(unit.size() - 1) * unit(unit.size() - 1);
  return shares;
}

OmegaStructure omega_structure(const Eigen::MatrixXd& omega, const FeatureSpans& spans, int d,
                               int parts) {
  const Eigen::BDCSVD<Eigen::MatrixXd> svd(omega, Eigen::ComputeThinU | Eigen::ComputeThinV);
  OmegaStructure structure;
  structure.singular_values = svd.singularValues();
  structure.profile = rank_profile(structure.singular_values);
  const int count = std::min<int>(parts, int(structure.singular_values.size()));
  for (int k = 0; k < count; ++k) {
    if (!(structure.singular_values(k) > 0)) break;
    structure.parts.push_back({structure.singular_values(k),
                               read_shares(svd.matrixU().col(k), spans, d),
                               read_shares(svd.matrixV().col(k), spans, d)});
  }
  return structure;
}

}  // namespace ufl::analysis
