#pragma once
// The MLP of a transformer block (docs/transformer.md §1): W₂·GELU(W₁·x + b₁) + b₂, hidden width
// model.mlp_ratio·D; W₁ from N(0, σ²), W₂ from N(0, (σ/√(2L))²) as it writes into the residual
// stream (GPT-2), biases 0.
#include <cmath>

#include "model/module.hpp"
#include "model/modules/mlp_kernel.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class MlpModule : public Module<T> {
 public:
  static constexpr int kW1 = 0, kB1 = 1, kW2 = 2, kB2 = 3;  // its parameters, in parameters() order

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
    for (Eigen::Index e = 0; e < params[kW1].size(); ++e)
      params[kW1].data()[e] = T(init_std_ * rng.normal());
    params[kB1].setZero();
    for (Eigen::Index e = 0; e < params[kW2].size(); ++e)
      params[kW2].data()[e] = T(residual_std * rng.normal());
    params[kB2].setZero();
  }
  ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const override {
    const Var hidden =
        gelu(tape, add_rows(tape, matmul(tape, x, params[kW1], false, false, "xW_1"), params[kB1]),
             "gelu");
    return {
        add_rows(tape, matmul(tape, hidden, params[kW2], false, false, "hW_2"), params[kB2], "mlp"),
        {}};
  }
  // x + MLP(norm(x)) as one op (mlp_kernel.hpp).
  ModuleGraph record_branch(Tape<T>& tape, Var x, const NormInputs& norm,
                            const std::vector<Var>& params) const override {
    auto op = std::make_unique<MlpBranchOp<T>>();
    const Shape shape = tape.shape(x);
    MlpLayout& layout = op->layout;
    layout.n = shape.rows;
    layout.width = width_;
    layout.hidden = hidden_;
    op->inputs = {x, norm.gain};
    if (norm.bias.valid()) {
      layout.bias = static_cast<int>(op->inputs.size());
      op->inputs.push_back(norm.bias);
    }
    for (auto [slot, param] : {std::pair{&layout.w_1, kW1},
                               {&layout.b_1, kB1},
                               {&layout.w_2, kW2},
                               {&layout.b_2, kB2}}) {
      *slot = static_cast<int>(op->inputs.size());
      op->inputs.push_back(params[param]);
    }
    op->batch = shape.batch;
    op->plan_fields();
    return {tape.record(std::move(op), shape, "mlp_branch"), {}};
  }

 private:
  int width_, hidden_;
  double init_std_;
  int depth_;
};

}  // namespace ufl::model
