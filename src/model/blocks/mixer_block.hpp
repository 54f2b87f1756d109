#pragma once
// How the mixer block (model.block = "mixer"; its kind is mixer_block.cpp) builds its layers, for
// float in mixer_block.cpp and for double with the tests (model/block.hpp, build_blocks).
#include <memory>
#include <string>

#include "model/layer.hpp"
#include "model/model.hpp"

namespace ufl::model {

// `model.config.depth` layers of `chosen` (depth 1 on the data's own channels is the single layer
// of docs/experiment.md §2).
template <class T>
void build_mixer_blocks(Model<T>& model, const Mixer<T>& chosen) {
  const int depth = model.config.depth;
  for (int l = 0; l < depth; ++l) {
    // The layer's one part: its mixer and W_v, measured as a layer (model/block.hpp).
    MixerPart<T> part;
    part.mixer = &chosen;
    part.shape = LayerShape{model.n, model.width, model.layer_config.rank};
    part.measured = Measured::kAsLayer;
    // A stack of one keeps the single layer's file names (params/A.npy); deeper ones prefix
    // the layer (params/layer2/A.npy).
    const std::string prefix = depth == 1 ? "" : "layer" + std::to_string(l + 1) + "/";
    for (const TensorSpec& spec : chosen.parameters(part.shape, model.layer_config))
      part.mixer_slices.push_back(
          model.params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
    part.value_slice = model.params.add(l, "W_v", prefix + "W_v", model.width, model.width);
    auto layer = std::make_shared<Layer<T>>();
    layer->parts.push_back(std::move(part));
    model.blocks.push_back(std::move(layer));
  }
}

}  // namespace ufl::model
