#pragma once
// A run's model settings: the layer (keys layer.*) and the stack of layers. Rules and meanings
// are in config/keys.cpp.
#include <string>

namespace ufl::model {

struct LayerConfig {
  std::string mixer = "universal";  // a registered mixer (model/mixers/registry.hpp)
  int rank = 32;                    // r; the config loader fills in dataset.n when it is omitted
  double content_init_scale = 1.0;
  // γ at initialisation (the universal mixer's gate, g = logit γ): ½ in mixer blocks; the config
  // loader fills in 0.99 in transformer blocks (config/keys.cpp, docs/universal_head.md §1).
  double gate_init = 0.5;
  int kernel_width = 5;  // the convolution mixer's band: taps −⌊w/2⌋..⌊w/2⌋ (w odd)
  int heads = 1;         // h: each head its own mixer over a D/h-wide value slice
};

// The stack (section 7 of the seed): depth L layers on a residual stream of width D ≥ d.
struct ModelConfig {
  int depth = 1;
  int width = 0;  // D; 0 means d, the data's channels
  bool residual = false;
  // What one layer is: a registered block kind (model/block.hpp; docs/transformer.md §1).
  std::string block = "mixer";
  // transformer blocks only: the norm, the MLP's width as a multiple of D, a learned position
  // embedding, and the std of every matrix at initialisation (GPT-2's 0.02).
  std::string norm = "layernorm";
  int mlp_ratio = 4;
  bool position_embedding = true;
  double init_std = 0.02;
};

}  // namespace ufl::model
