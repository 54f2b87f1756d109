#pragma once
// Building a model (model.hpp): its head's input slices, then its kind of block (model/block.hpp)
// adds the blocks and theirs, then the head's output slices. Instantiated in model.cpp (float)
// and with the tests (double).
#include <stdexcept>
#include <string>
#include <utility>

#include "model/model.hpp"

namespace ufl::model {

template <class T>
Model<T>::Model(int n, int d, const ModelConfig& model, const LayerConfig& layer,
                std::shared_ptr<const Head<T>> head)
    : n(n),
      d(d),
      width(model.width > 0 ? model.width : d),
      config(model),
      layer_config(layer),
      head(head ? std::move(head) : std::make_shared<SampleHead<T>>()) {
  if (width < d)
    throw std::invalid_argument("model.width must be at least dataset.d = " + std::to_string(d));
  if (model.depth < 1) throw std::invalid_argument("model.depth must be at least 1");
  const Mixer<T>& chosen = mixer<T>(layer.mixer);
  kind = &block_kind(model.block);
  head_input = this->head->build_input(*this);
  build_blocks(*kind, *this, chosen, this->head->causal());
  head_output = this->head->build_output(*this);
}

}  // namespace ufl::model
