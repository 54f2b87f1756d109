// Building a model (model.hpp): its kind of block (model/block.hpp) adds the blocks and their
// parameter slices. Defined here once, for float and double, rather than in every file that
// builds a model.
#include "model/model.hpp"

namespace ufl::model {

template <class T>
Model<T>::Model(int n, int d, const ModelConfig& model, const LayerConfig& layer, int vocab,
                bool causal)
    : n(n),
      d(d),
      width(model.width > 0 ? model.width : d),
      vocab(vocab),
      config(model),
      layer_config(layer) {
  if (width < d && vocab == 0)
    throw std::invalid_argument("model.width must be at least dataset.d = " + std::to_string(d));
  if (model.depth < 1) throw std::invalid_argument("model.depth must be at least 1");
  const Mixer<T>& chosen = mixer<T>(layer.mixer);
  kind = &block_kind(model.block);
  kind->build(*this, chosen, causal);
}

template class Model<float>;
template class Model<double>;

}  // namespace ufl::model
