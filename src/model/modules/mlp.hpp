#pragma once
// The MLP of a transformer block (docs/transformer.md §1): W₂·GELU(W₁·x + b₁) + b₂, hidden width
// model.mlp_ratio·D; W₁ from N(0, σ²), W₂ from N(0, (σ/√(2L))²) as it writes into the residual
// stream (GPT-2), biases 0.
#include <cmath>

#include "model/module.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class MlpModule : public Module<T> {
 public:
  MlpModule(int width, int hidden, double init_std, int depth)
      : width_(width), hidden_(hidden), init_std_(init_std), depth_(depth) {}
  std::string name() const override { return "mlp"; }
  std::vector<TensorSpec> parameters() const override {
    return {{"W_1", width_, hidden_},
            {"b_1", 1, hidden_},
            {"W_2", hidden_, width_},
            {"b_2", 1, width_}};
  }
  void initialize(ParameterViews<T> params, data::Rng& rng) const override {
    const double residual_std = init_std_ / std::sqrt(2.0 * depth_);
    for (Eigen::Index e = 0; e < params[0].size(); ++e)
      params[0].data()[e] = T(init_std_ * rng.normal());
    params[1].setZero();
    for (Eigen::Index e = 0; e < params[2].size(); ++e)
      params[2].data()[e] = T(residual_std * rng.normal());
    params[3].setZero();
  }
  ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const override {
    const Var hidden = gelu(
        tape, add_rows(tape, matmul(tape, x, params[0], false, false, "xW_1"), params[1]), "gelu");
    return {add_rows(tape, matmul(tape, hidden, params[2], false, false, "hW_2"), params[3], "mlp"),
            {}};
  }

 private:
  int width_, hidden_;
  double init_std_;
  int depth_;
};

}  // namespace ufl::model
