#pragma once
// Forward-only passes of the model over a whole sample set, in chunks, sharing the parameters
// with the training tape (the composite graph, which exposes every layer's M, U and V). The
// per-sample squared errors are summed in sample order, so the test MSE does not depend on the
// thread count. After a stop request (io/stop_request.hpp) a pass returns early and
// incomplete; its caller checks the request and discards the result.
#include <functional>
#include <vector>

#include "data/dataset.hpp"
#include "model/model.hpp"

namespace ufl::model {

// What one layer computed for one sample (views valid during the callback).
struct LayerOutputs {
  const float* M;  // n×n (the same matrix for every sample when the mixer is input-independent)
  const float* U;  // n×r, nullptr when the mixer has no factors
  const float* V;  // n×r, likewise
  const float* H;  // n×D, the layer's output H_l
  const float* input;   // n×D, its input H_{l−1} (H_0 = [X, 0])
  const float* branch;  // n×D, its branch M(H_{l−1})·H_{l−1}·W_v
};

struct SampleOutputs {
  int index;
  std::vector<LayerOutputs> layers;  // mixer blocks
  const float* Y;                    // n×d
  // Transformer blocks: head k of block l's operator M (n×n), head_m[l][k].
  std::vector<std::vector<const float*>> head_m = {};
};

class Evaluator {
 public:
  Evaluator(Model<float>& model, int max_samples);
  // Mean over all elements of (Y − C)². `observe`, when given, sees the outputs of the first
  // `observed` samples, in order, from the same pass (the trainer's score trajectory).
  double mse(const data::SampleSet& set, int observed = 0,
             const std::function<void(const SampleOutputs&)>& observe = {});
  // Calls `visit` for every sample in order, after computing its outputs.
  void for_each_sample(const data::SampleSet& set,
                       const std::function<void(const SampleOutputs&)>& visit);

  // Samples per forward pass, and the bytes of the pass's tape (the memory estimate's check).
  static int chunk_size(int n, int max_samples);
  int chunk() const { return chunk_; }
  std::size_t arena_bytes() const { return tape_.arena_bytes(); }

 private:
  int run_chunk(const data::SampleSet& set, int first);
  // Sample s of the chunk that starts at `first`, after run_chunk.
  SampleOutputs outputs_of(int first, int s) const;

  Model<float>& model_;
  int chunk_;
  Tape<float> tape_;
  ModelGraph<float> graph_;
};

}  // namespace ufl::model
