#pragma once
// Building a model (model.hpp): its input end's slices, then its kind of block (model/block.hpp)
// adds the blocks and theirs, then its output end's slices. Instantiated in model.cpp (float)
// and with the tests (double).
#include <stdexcept>
#include <string>
#include <utility>

#include "model/model.hpp"

namespace ufl::model {

template <class T>
Model<T>::Model(int n, int d, const ModelConfig& model, const LayerConfig& layer,
                std::shared_ptr<const StackEnds<T>> ends)
    : n(n),
      d(d),
      width(model.width > 0 ? model.width : d),
      config(model),
      layer_config(layer),
      ends(ends ? std::move(ends) : std::make_shared<SampleEnds<T>>()) {
  if (width < d)
    throw std::invalid_argument("model.width must be at least dataset.d = " + std::to_string(d));
  if (model.depth < 1) throw std::invalid_argument("model.depth must be at least 1");
  const HeadMixers<T> chosen = head_mixers<T>(layer);
  kind = &block_kind(model.block);
  if (!layer.head_mixers.empty() && !kind->takes_heads())
    throw std::invalid_argument(
        "layer.mixer: a list (one mixer per head) needs a block with "
        "heads, not model.block = \"" +
        model.block + "\"; give one mixer");
  const bool causal = this->ends->causal();
  for (const Mixer<T>* head : chosen)
    if (causal && !head->has_causal_form())
      throw std::invalid_argument("layer.mixer: " + std::string(head->name()) +
                                  " has no causal form, which next-token prediction needs");
  input_end = this->ends->build_input(*this);
  build_blocks(*kind, *this, chosen, causal);
  output_end = this->ends->build_output(*this);
}

}  // namespace ufl::model
