#pragma once
// The model's initial parameters (spec §2; section7.md §1): each layer's mixer draws its own from
// one initialisation stream, layer by layer; W_v starts at I, or at 0 on a residual stream (each
// branch starts silent).
#include <algorithm>
#include <cstdint>

#include "data/rng.hpp"
#include "model/model.hpp"

namespace ufl::model {

template <class T>
void initialize(Model<T>& model, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kLayerInit);
  std::fill(model.params.values.begin(), model.params.values.end(), T(0));
  for (int l = 0; l < model.depth(); ++l) {
    const Layer<T>& layer = model.layers[l];
    layer.mixer->initialize(model.mixer_parameters(l), layer.shape, model.layer_config, rng);
    if (!model.config.residual) model.w_v(l).setIdentity();
  }
}

}  // namespace ufl::model
