#pragma once
// The model's initial parameters (docs/experiment.md §2; docs/section7.md §1): each layer's mixer
// draws its own from one initialisation stream, layer by layer; W_v starts at I, or at 0 on a
// residual stream (each branch starts silent).
#include <algorithm>
#include <cstdint>

#include "data/rng.hpp"
#include "model/model.hpp"

namespace ufl::model {

template <class T>
void initialize(Model<T>& model, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kLayerInit);
  std::fill(model.params.values.begin(), model.params.values.end(), T(0));
  if (!model.blocks.empty()) {
    // GPT-2's initialisation (docs/transformer.md §4): E, P, each block's modules in order.
    auto normal = [&rng, &model](int index) {
      MatrixMap<T> matrix = model.params.matrix(index);
      for (Eigen::Index e = 0; e < matrix.size(); ++e)
        matrix.data()[e] = T(model.config.init_std * rng.normal());
    };
    if (model.token_table >= 0) normal(model.token_table);
    if (model.position_table >= 0) normal(model.position_table);
    for (const TransformerBlock<T>& block : model.blocks)
      for (std::size_t b = 0; b < block.branches.size(); ++b)
        for (std::size_t m = 0; m < block.branches[b].size(); ++m)
          block.branches[b][m]->initialize(model.views(block.slices[b][m]), rng);
    if (model.final_norm) model.final_norm->initialize(model.views(model.final_norm_slices), rng);
    return;
  }
  for (int l = 0; l < model.depth(); ++l) {
    const Layer<T>& layer = model.layers[l];
    layer.mixer->initialize(model.mixer_parameters(l), layer.shape, model.layer_config, rng);
    if (!model.config.residual) model.w_v(l).setIdentity();
  }
}

}  // namespace ufl::model
