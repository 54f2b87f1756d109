#include "model/initialize.hpp"

#include <cmath>

#include "data/rng.hpp"

namespace ufl::model {

void initialize(Parameters<float>& params, double content_init_scale, std::uint64_t seed) {
  const LayerShape& shape = params.shape;
  data::Rng rng(seed, data::Stream::kLayerInit);
  std::fill(params.values.begin(), params.values.end(), 0.0f);
  const double content_std = content_init_scale / std::sqrt(double(shape.n) * shape.d);
  const double position_std = 1.0 / std::sqrt(double(shape.n));
  for (int factor : {Parameters<float>::kA, Parameters<float>::kB}) {
    float* rows = params.value(factor);
    const std::size_t content = static_cast<std::size_t>(shape.d) * shape.r;
    const std::size_t position = static_cast<std::size_t>(shape.n) * shape.r;
    for (std::size_t e = 0; e < content; ++e) rows[e] = float(content_std * rng.normal());
    for (std::size_t e = 0; e < position; ++e)
      rows[content + e] = float(position_std * rng.normal());
  }
  float* w_v = params.value(Parameters<float>::kWv);
  for (int i = 0; i < shape.d; ++i) w_v[i * shape.d + i] = 1.0f;
}

}  // namespace ufl::model
