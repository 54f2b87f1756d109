// Building a model (model.hpp): its head's input slices, then its kind of block (model/block.hpp)
// adds the blocks and theirs, then the head's output slices. Defined here once, for float and
// double, rather than in every file that builds a model.
#include "model/model.hpp"

#include <utility>

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
  kind->build(*this, chosen, this->head->causal());
  head_output = this->head->build_output(*this);
}

template class Model<float>;
template class Model<double>;

}  // namespace ufl::model
