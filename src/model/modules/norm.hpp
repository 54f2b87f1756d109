#pragma once
// The norm of a transformer block (model.norm): layernorm (gain and bias) or rmsnorm (gain),
// over the D channels of each position; gain starts at 1, bias at 0 (docs/transformer.md §4).
#include "model/block.hpp"
#include "model/module.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class NormModule : public Module<T> {
 public:
  static constexpr int kGain = 0, kBias = 1;  // its parameters (kBias for layernorm only)

  NormModule(std::string name, const NormKind& kind, int width)
      : name_(std::move(name)), kind_(kind), width_(width) {}
  std::string name() const override { return name_; }
  std::vector<TensorSpec> parameters() const override {
    if (kind_.has_bias) return {{name_ + "_gain", 1, width_}, {name_ + "_bias", 1, width_}};
    return {{name_ + "_gain", 1, width_}};
  }
  void initialize(ParameterViews<T> params, data::Rng&) const override {
    params[kGain].setOnes();
    if (kind_.has_bias) params[kBias].setZero();
  }
  // Its parameters as a fused branch takes them.
  NormInputs inputs(const std::vector<Var>& params) const {
    return {params[kGain], kind_.has_bias ? params[kBias] : Var{}};
  }
  ModuleGraph record(Tape<T>& tape, Var x, const std::vector<Var>& params) const override {
    if (kind_.has_bias) return {layer_norm(tape, x, params[kGain], params[kBias], name_), {}};
    return {rms_norm(tape, x, params[kGain], name_), {}};
  }

 private:
  std::string name_;
  const NormKind& kind_;
  int width_;
};

}  // namespace ufl::model
