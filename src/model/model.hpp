#pragma once
// The model: a list of layers over one flat parameter buffer (as micrograd's MLP.layers), and its
// forward graph on the tape (spec section7.md §1):
//   H_0 = [X, 0] (n×D, the input zero-padded to the stream's width), H_l = layer_l(H_{l−1}),
//   Y = H_L[:, :d].
// Depth 1 on the data's own channels (D = d, no padding, no slice) is the single layer of
// spec §2, with the same parameters, initialisation and results.
#include <stdexcept>
#include <string>
#include <vector>

#include "model/layer.hpp"
#include "model/mixers/registry.hpp"
#include "model/model_config.hpp"

namespace ufl::model {

template <class T>
class Model {
 public:
  // n positions and d channels of the data; the stack and the layer as the config says.
  Model(int n, int d, const ModelConfig& model, const LayerConfig& layer)
      : n(n), d(d), width(model.width > 0 ? model.width : d), config(model), layer_config(layer) {
    if (width < d)
      throw std::invalid_argument("model.width must be at least dataset.d = " + std::to_string(d));
    if (model.depth < 1) throw std::invalid_argument("model.depth must be at least 1");
    const Mixer<T>& chosen = mixer<T>(layer.mixer);
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

  int depth() const { return static_cast<int>(layers.size()); }
  ParameterViews<T> mixer_parameters(int l) {
    ParameterViews<T> views;
    for (int index : layers[l].mixer_slices) views.push_back(params.matrix(index));
    return views;
  }
  ConstParameterViews<T> mixer_parameters(int l) const {
    ConstParameterViews<T> views;
    for (int index : layers[l].mixer_slices) views.push_back(params.matrix(index));
    return views;
  }
  MatrixMap<T> w_v(int l) { return params.matrix(layers[l].w_v_slice); }
  ConstMatrixMap<T> w_v(int l) const { return params.matrix(layers[l].w_v_slice); }

  int n, d, width;
  ModelConfig config;
  LayerConfig layer_config;
  std::vector<Layer<T>> layers;
  Parameters<T> params;
};

template <class T>
struct ModelGraph {
  Var x;       // the input X, [B, n, d]
  Var stream;  // H_0, [B, n, D]: X itself when D = d, else [X, 0]
  std::vector<LayerGraph<T>> layers;
  Var y;  // the output Y, [B, n, d]: H_L itself when D = d, else its first d channels
};

// Records the model for `batch` samples. With `with_grads` the parameters get gradients.
template <class T>
ModelGraph<T> record_model(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                           LayerKernels kernels = LayerKernels::kFused) {
  ModelGraph<T> graph;
  graph.x = tape.input(Shape{batch, model.n, model.d}, "X");
  // A stream as wide as the data needs neither padding nor slicing: the single layer of spec §2
  // is recorded op for op as before.
  const bool padded = model.width != model.d;
  graph.stream = padded ? pad_columns(tape, graph.x, model.width, "H_0") : graph.x;
  Var h = graph.stream;
  for (const Layer<T>& layer : model.layers) {
    graph.layers.push_back(
        record_layer(tape, layer, model.params, h, model.config.residual, with_grads, kernels));
    h = graph.layers.back().output;
  }
  graph.y = padded ? leading_columns(tape, h, model.d, "Y") : h;
  return graph;
}

}  // namespace ufl::model
