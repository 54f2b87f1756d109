#pragma once
// The mixing module of a transformer block (docs/transformer.md §3): h heads, each its own mixer
// with its own parameters reading the whole (normalised) stream x and mixing its own value slice
// x·W_v,k (D × D/h); the heads' outputs are concatenated and projected by W_o (D × D). W_v,k from
// N(0, σ²), W_o from N(0, (σ/√(2L))²) as it writes into the residual stream (GPT-2).
#include <cmath>

#include "model/module.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class HeadsModule : public Module<T> {
 public:
  HeadsModule(const Mixer<T>& mixer, const LayerShape& head_shape, const LayerConfig& config,
              int heads, int depth)
      : mixer_(mixer), shape_(head_shape), config_(config), heads_(heads), depth_(depth) {
    per_head_ = static_cast<int>(mixer_.parameters(shape_, config_).size()) + 1;  // + W_v
  }
  std::string name() const override { return "heads"; }
  int heads() const { return heads_; }
  const Mixer<T>& mixer() const { return mixer_; }
  const LayerShape& head_shape() const { return shape_; }
  // The parameters of head k (its mixer's, then W_v,k) among this module's.
  ConstParameterViews<T> head_parameters(const ConstParameterViews<T>& all, int k) const {
    return ConstParameterViews<T>(all.begin() + k * per_head_,
                                  all.begin() + (k + 1) * per_head_ - 1);
  }

  std::vector<TensorSpec> parameters() const override {
    std::vector<TensorSpec> specs;
    for (int k = 0; k < heads_; ++k) {
      const std::string prefix = "head" + std::to_string(k + 1) + "/";
      for (TensorSpec spec : mixer_.parameters(shape_, config_)) {
        spec.name = prefix + spec.name;
        specs.push_back(spec);
      }
      specs.push_back({prefix + "W_v", shape_.d, shape_.values()});
    }
    specs.push_back({"W_o", shape_.d, shape_.d});
    return specs;
  }
  void initialize(ParameterViews<T> params, data::Rng& rng) const override {
    auto normal = [&rng](MatrixMap<T>& matrix, double std) {
      for (Eigen::Index e = 0; e < matrix.size(); ++e) matrix.data()[e] = T(std * rng.normal());
    };
    for (int k = 0; k < heads_; ++k) {
      ParameterViews<T> head(params.begin() + k * per_head_,
                             params.begin() + (k + 1) * per_head_ - 1);
      mixer_.initialize(head, shape_, config_, rng);
      normal(params[(k + 1) * per_head_ - 1], shape_.init_std);
    }
    normal(params.back(), shape_.init_std / std::sqrt(2.0 * depth_));
  }
  ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const override {
    ModuleGraph graph;
    std::vector<Var> outputs;
    for (int k = 0; k < heads_; ++k) {
      const std::vector<Var> head(params.begin() + k * per_head_,
                                  params.begin() + (k + 1) * per_head_ - 1);
      graph.heads.push_back(mixer_.record(tape, x, head, params[(k + 1) * per_head_ - 1], shape_,
                                          LayerKernels::kComposite, false));
      outputs.push_back(graph.heads.back().out);
    }
    const Var joined = heads_ == 1 ? outputs.front() : concat_columns(tape, outputs, "heads");
    graph.out = matmul(tape, joined, params.back(), false, false, "W_o");
    return graph;
  }

 private:
  const Mixer<T>& mixer_;
  LayerShape shape_;
  LayerConfig config_;
  int heads_, depth_, per_head_ = 0;
};

}  // namespace ufl::model
