#include "model/evaluate.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "io/stop_request.hpp"
#include "tape/parallel.hpp"

namespace ufl::model {
// Chunk so that one n×n activation of the chunk stays near 4M floats.
int Evaluator::chunk_size(int n, int max_samples) {
  const long long per_sample = static_cast<long long>(n) * n;
  const long long fits = std::max<long long>(1, (4LL << 20) / per_sample);
  return static_cast<int>(std::min<long long>({fits, 256, std::max(1, max_samples)}));
}

Evaluator::Evaluator(Model<float>& model, int max_samples)
    : model_(model), chunk_(chunk_size(model.n, max_samples)) {
  graph_ = record_model(tape_, model_, chunk_, false, LayerKernels::kComposite);
  tape_.plan();
}

int Evaluator::run_chunk(const data::SampleSet& set, int first) {
  const int count = std::min(chunk_, set.count - first);
  const std::size_t sample_size = static_cast<std::size_t>(set.n) * set.d;
  float* x = tape_.value(graph_.x).data;
  std::memcpy(x, set.input(first), count * sample_size * sizeof(float));
  // Unused rows of a last, short chunk repeat the first sample; their outputs are ignored.
  for (int s = count; s < chunk_; ++s)
    std::memcpy(x + s * sample_size, set.input(first), sample_size * sizeof(float));
  tape_.forward();
  return count;
}

SampleOutputs Evaluator::outputs_of(int first, int s) const {
  auto sample_of = [&](Var var) -> const float* {
    return var.valid() ? tape_.value(var).sample(s) : nullptr;
  };
  SampleOutputs outputs{first + s, {}, tape_.value(graph_.y).sample(s)};
  for (const BlockGraph& block : graph_.blocks) {
    outputs.blocks.emplace_back();
    for (const MixerGraph& part : block.parts)
      outputs.blocks.back().parts.push_back(PartOutputs{
          sample_of(part.M), sample_of(part.U), sample_of(part.V), sample_of(part.input),
          sample_of(part.out), sample_of(part.linear), sample_of(part.softmax)});
  }
  return outputs;
}

double Evaluator::mse(const data::SampleSet& set, int observed,
                      const std::function<void(const SampleOutputs&)>& observe) {
  std::vector<double> per_sample(set.count, 0.0);
  const std::size_t sample_size = static_cast<std::size_t>(set.n) * set.d;
  for (int first = 0; first < set.count; first += chunk_) {
    // A stop request leaves the pass incomplete; the caller checks it and discards the result.
    if (interrupt::stop_requested()) break;
    const int count = run_chunk(set, first);
    const auto y = tape_.value(graph_.y);
    ufl::for_each_sample(count, [&](int s) {
      const float* predicted = y.sample(s);
      const float* target = set.target(first + s);
      double total = 0;
      for (std::size_t e = 0; e < sample_size; ++e) {
        const double error = double(predicted[e]) - double(target[e]);
        total += error * error;
      }
      per_sample[first + s] = total;
    });
    if (observe)
      for (int s = 0; s < count && first + s < observed; ++s) observe(outputs_of(first, s));
  }
  double total = 0;
  for (double value : per_sample) total += value;
  return total / (double(set.count) * sample_size);
}

void Evaluator::for_each_sample(const data::SampleSet& set,
                                const std::function<void(const SampleOutputs&)>& visit) {
  for (int first = 0; first < set.count; first += chunk_) {
    if (interrupt::stop_requested()) return;  // incomplete; the caller checks and gives up
    const int count = run_chunk(set, first);
    for (int s = 0; s < count; ++s) visit(outputs_of(first, s));
  }
}

}  // namespace ufl::model
