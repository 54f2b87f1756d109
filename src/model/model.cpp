// Building a model (model.hpp): its layers or transformer blocks and their parameter slices.
// Defined here once, for float and double, rather than in every file that builds a model: each
// such file otherwise compiled every transformer module's forward and backward kernels again.
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
  if (block_kind(model.block).has_heads) {
    add_transformer(chosen, causal);
    return;
  }
  for (int l = 0; l < model.depth; ++l) {
    Layer<T> entry;
    entry.mixer = &chosen;
    entry.shape = LayerShape{n, width, layer.rank};
    // A stack of one keeps the single layer's file names (params/A.npy); deeper ones prefix
    // the layer (params/layer2/A.npy).
    const std::string prefix = model.depth == 1 ? "" : "layer" + std::to_string(l + 1) + "/";
    for (const TensorSpec& spec : chosen.parameters(entry.shape, layer))
      entry.mixer_slices.push_back(
          params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
    entry.w_v_slice = params.add(l, "W_v", prefix + "W_v", width, width);
    layers.push_back(entry);
  }
}

// Transformer blocks (docs/transformer.md §1): E and P, then per block its branches [norm1,
// heads] and [norm2, mlp], then the final norm; slices named blockL/….
template <class T>
void Model<T>::add_transformer(const Mixer<T>& chosen, bool causal) {
  if (width % layer_config.heads != 0)
    throw std::invalid_argument("layer.heads must divide model.width");
  if (tokens()) token_table = params.add(0, "E", "E", vocab, width);
  // Float input gets P too: without it a non-causal block is permutation-equivariant and cannot
  // tell which row precedes another (Section 7's induction task needs that; docs/transformer.md
  // §7).
  if (config.position_embedding) position_table = params.add(0, "P", "P", n, width);
  const NormKind& norm = norm_kind(config.norm);
  LayerShape head{n, width, layer_config.rank};
  head.transformer = true;
  head.causal = causal;
  head.value_cols = width / layer_config.heads;
  head.init_std = config.init_std;
  for (int l = 0; l < config.depth; ++l) {
    TransformerBlock<T> block;
    block.branches.resize(2);
    block.branches[0].push_back(std::make_shared<NormModule<T>>("norm1", norm, width));
    block.branches[0].push_back(std::make_shared<HeadsModule<T>>(chosen, head, layer_config,
                                                                 layer_config.heads, config.depth));
    block.branches[1].push_back(std::make_shared<NormModule<T>>("norm2", norm, width));
    block.branches[1].push_back(std::make_shared<MlpModule<T>>(width, config.mlp_ratio * width,
                                                               config.init_std, config.depth));
    const std::string prefix = "block" + std::to_string(l + 1) + "/";
    for (const ModuleList<T>& branch : block.branches) {
      block.slices.emplace_back();
      for (const auto& module : branch) {
        block.slices.back().emplace_back();
        for (const TensorSpec& spec : module->parameters())
          block.slices.back().back().push_back(
              params.add(l, spec.name, prefix + spec.name, spec.rows, spec.cols));
      }
    }
    blocks.push_back(std::move(block));
  }
  if (tokens()) {
    final_norm = std::make_shared<NormModule<T>>("final_norm", norm, width);
    for (const TensorSpec& spec : final_norm->parameters())
      final_norm_slices.push_back(
          params.add(config.depth - 1, spec.name, spec.name, spec.rows, spec.cols));
  }
}

template class Model<float>;
template class Model<double>;

}  // namespace ufl::model
