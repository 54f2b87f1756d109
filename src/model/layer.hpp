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

// Its one part (Block::parts) is the layer's mixer with its parameters and W_v, measured as a
// layer (model/block.hpp).
template <class T>
struct Layer : Block<T> {
  const MixerPart<T>& part() const { return this->parts.front(); }

  // The mixer draws its parameters; W_v starts at I, or at 0 on a residual stream (each branch
  // starts silent).
  void initialize(Model<T>& model, data::Rng& rng) const override {
    ParameterViews<T> views;
    for (int index : part().mixer_slices) views.push_back(model.params.matrix(index));
    part().mixer->initialize(views, part().shape, model.layer_config, rng);
    if (!model.config.residual) model.params.matrix(part().value_slice).setIdentity();
  }
  Var record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
             ModelGraph<T>& graph) const override;
};

template <class T>
struct LayerGraph {
  Var input, output;  // H_{l−1} and H_l, [B, n, d]
  MixerGraph branch;  // M(H)·H·W_v, its penalty, and (composite) M, U, V; its input is H_{l−1}
  std::vector<Var> params;
  Var w_v;
};

// Records layer `layer` on input `h`. With `with_grads` its parameters get gradients and the
// mixer's orthogonality penalty is recorded.
template <class T>
LayerGraph<T> record_layer(Tape<T>& tape, const Layer<T>& layer, Parameters<T>& params, Var h,
                           bool residual, bool with_grads, LayerKernels kernels) {
  const MixerPart<T>& part = layer.part();
  LayerGraph<T> graph;
  graph.input = h;
  auto parameter = [&](int index) {
    const ParameterSlice& slice = params.slice(index);
    return tape.parameter(params.value(index), with_grads ? params.grad(index) : nullptr,
                          slice.rows, slice.cols, slice.name);
  };
  for (int index : part.mixer_slices) graph.params.push_back(parameter(index));
  graph.w_v = parameter(part.value_slice);
  // Only training needs the penalty (with_grads); evaluation skips it.
  graph.branch =
      part.mixer->record(tape, h, graph.params, graph.w_v, part.shape, kernels, with_grads);
  graph.branch.input = h;
  graph.output = residual ? add(tape, h, graph.branch.out, "H") : graph.branch.out;
  return graph;
}

template <class T>
Var Layer<T>::record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
                     ModelGraph<T>& graph) const {
  const LayerGraph<T> layer =
      record_layer(tape, *this, model.params, h, model.config.residual, with_grads, kernels);
  graph.blocks.push_back(
      BlockGraph{layer.input, layer.output, {layer.branch}, layer.branch.kernel});
  return layer.output;
}

}  // namespace ufl::model
