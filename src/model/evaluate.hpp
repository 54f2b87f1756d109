#pragma once
// Forward-only passes of the layer over a whole sample set, in chunks, sharing the parameters
// with the training tape. The per-sample squared errors are summed in sample order, so the
// test MSE does not depend on the thread count.
#include <functional>
#include <memory>

#include "data/dataset.hpp"
#include "model/layer.hpp"

namespace ufl::model {

// What the layer computed for one sample (views valid during the callback).
struct SampleOutputs {
  int index;
  const float* U;  // n×r
  const float* V;  // n×r
  const float* M;  // n×n
  const float* Y;  // n×d
};

class Evaluator {
 public:
  Evaluator(Parameters<float>& params, int max_samples);
  // Mean over all elements of (Y − C)².
  double mse(const data::SampleSet& set);
  // Calls `visit` for every sample in order, after computing its outputs.
  void for_each_sample(const data::SampleSet& set,
                       const std::function<void(const SampleOutputs&)>& visit);

 private:
  int run_chunk(const data::SampleSet& set, int first);

  Parameters<float>& params_;
  int chunk_;
  Tape<float> tape_;
  LayerGraph<float> graph_;
};

}  // namespace ufl::model
