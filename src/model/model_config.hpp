#pragma once
// A run's model settings: the layer (keys layer.*) and the stack of layers. Rules and meanings
// are in config/keys.cpp.
#include <string>
#include <vector>

namespace ufl::model {

struct LayerConfig {
  // The mixer of every head, a registered one (model/mixers/registry.hpp); empty when layer.mixer
  // is a list (head_mixers).
  std::string mixer = "universal";
  // layer.mixer as a list, one registered mixer per head (a hybrid transformer block,
  // docs/transformer.md §9): head k's is head_mixers[k]. Empty: `mixer` for every head.
  std::vector<std::string> head_mixers;
  int rank = 32;  // r; the config loader fills in dataset.n when it is omitted
  double content_init_scale = 1.0;
  // γ at initialisation (the universal mixer's gate, g = logit γ): ½ in mixer blocks; the config
  // loader fills in 0.99 in transformer blocks (config/keys.cpp, docs/universal_head.md §1).
  double gate_init = 0.5;
  int kernel_width = 5;  // the convolution mixer's band: taps −⌊w/2⌋..⌊w/2⌋ (w odd)
  int heads = 1;         // h: each head its own mixer over a D/h-wide value slice

  // Head k's mixer (k < heads).
  const std::string& mixer_of_head(int k) const {
    return head_mixers.empty() ? mixer : head_mixers[std::size_t(k)];
  }
};

// The mixers as a run names them: "attention", or for a list each name with its count in the
// order the heads first name it, "2 attention + 2 convolution".
std::string mixers_text(const LayerConfig& layer);
std::string mixers_text(const std::vector<std::string>& head_mixers);
// What mixes the stream, as a run's one-line description says it: "attention mixer", or for a
// list "2 attention + 2 convolution heads".
std::string mixing_text(const LayerConfig& layer);

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
