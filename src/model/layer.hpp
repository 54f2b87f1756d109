#pragma once
// One layer as a module, the block of model.block = "mixer" (docs/section7.md §1):
//   H_l = ρ·H_{l−1} + M_l(H_{l−1})·H_{l−1}·W_v,l,     ρ = 1 on a residual stream, else 0,
// recorded on the tape with gradients for its input, so layers stack. What M is comes from the
// layer's mixer (model/mixer.hpp); W_v is the layer's own. Its kind is
// model/blocks/mixer_block.cpp.
#include <vector>

#include "model/block.hpp"
#include "model/mixer.hpp"
#include "model/parameters.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
struct Layer : Block<T> {
  const Mixer<T>* mixer = nullptr;
  LayerShape shape;
  std::vector<int> mixer_slices;  // the model's parameter slice of each of mixer->parameters()
  int w_v_slice = -1;

  // The mixer draws its parameters; W_v starts at I, or at 0 on a residual stream (each branch
  // starts silent).
  void initialize(Model<T>& model, data::Rng& rng) const override {
    ParameterViews<T> views;
    for (int index : mixer_slices) views.push_back(model.params.matrix(index));
    mixer->initialize(views, shape, model.layer_config, rng);
    if (!model.config.residual) model.params.matrix(w_v_slice).setIdentity();
  }
  Var record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
             ModelGraph<T>& graph) const override;
};

template <class T>
struct LayerGraph {
  Var input, output;  // H_{l−1} and H_l, [B, n, d]
  MixerGraph branch;  // M(H)·H·W_v, its penalty, and (composite) M, U, V
  std::vector<Var> params;
  Var w_v;
};

// Records layer `layer` on input `h`. With `with_grads` its parameters get gradients and the
// mixer's orthogonality penalty is recorded.
template <class T>
LayerGraph<T> record_layer(Tape<T>& tape, const Layer<T>& layer, Parameters<T>& params, Var h,
                           bool residual, bool with_grads, LayerKernels kernels) {
  LayerGraph<T> graph;
  graph.input = h;
  auto parameter = [&](int index) {
    const ParameterSlice& slice = params.slice(index);
    return tape.parameter(params.value(index), with_grads ? params.grad(index) : nullptr,
                          slice.rows, slice.cols, slice.name);
  };
  for (int index : layer.mixer_slices) graph.params.push_back(parameter(index));
  graph.w_v = parameter(layer.w_v_slice);
  // Only training needs the penalty (with_grads); evaluation skips it.
  graph.branch =
      layer.mixer->record(tape, h, graph.params, graph.w_v, layer.shape, kernels, with_grads);
  graph.output = residual ? add(tape, h, graph.branch.out, "H") : graph.branch.out;
  return graph;
}

template <class T>
Var Layer<T>::record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
                     ModelGraph<T>& graph) const {
  graph.layers.push_back(
      record_layer(tape, *this, model.params, h, model.config.residual, with_grads, kernels));
  return graph.layers.back().output;
}

}  // namespace ufl::model
