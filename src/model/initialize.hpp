#pragma once
// The model's initial parameters (docs/experiment.md §2; docs/section7.md §1; docs/transformer.md
// §4): one initialisation stream, drawn from in parameter order: the input end (E), P (GPT-2's
// N(0, init_std²)) where the model has it, each block as its kind says, the output end (the
// final norm).
#include <algorithm>
#include <cstdint>

#include "data/rng.hpp"
#include "model/model.hpp"

namespace ufl::model {

template <class T>
void initialize(Model<T>& model, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kLayerInit);
  std::fill(model.params.values.begin(), model.params.values.end(), T(0));
  auto normal = [&rng, &model](int index) {
    MatrixMap<T> matrix = model.params.matrix(index);
    for (Eigen::Index e = 0; e < matrix.size(); ++e)
      matrix.data()[e] = T(model.config.init_std * rng.normal());
  };
  model.ends->initialize_input(model, rng);
  if (model.position_table >= 0) normal(model.position_table);
  for (const auto& block : model.blocks) block->initialize(model, rng);
  model.ends->initialize_output(model, rng);
}

}  // namespace ufl::model
