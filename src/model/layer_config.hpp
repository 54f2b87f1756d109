#pragma once
// A run's layer settings (the keys layer.*); rules and meanings are in config/keys.cpp.

namespace ufl::model {

struct LayerConfig {
  int rank = 32;  // r; the config loader fills in dataset.n when the config omits it
  double content_init_scale = 1.0;
};

}  // namespace ufl::model
