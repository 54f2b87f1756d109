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

// What one part of a block (model/block.hpp: a layer, a head) computed for one sample (views
// valid during the callback).
struct PartOutputs {
  const float* M;  // n×n (the same matrix for every sample when the mixer is input-independent)
  const float* U;  // n×r, nullptr when the mixer has no factors
  const float* V;  // n×r, likewise
  // Its input, n×D: a layer's H_{l−1} (H_0 = [X, 0]), a head's normalised stream x̂.
  const float* input;
  const float* branch;  // its branch M·input·W_v: n×D for a layer, n×(D/h) for a head
  // A gated mixer's two branches before the gate (MixerGraph::linear, softmax), n×n, or nullptr.
  const float* linear;
  const float* softmax;
};

struct BlockOutputs {
  std::vector<PartOutputs> parts;  // in the order of Block::parts
};

struct SampleOutputs {
  int index;
  std::vector<BlockOutputs> blocks;
  const float* Y;  // n×d
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
