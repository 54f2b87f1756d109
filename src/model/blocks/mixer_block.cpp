// The mixer block (model.block = "mixer"; docs/section7.md §1), whose blocks are model/layer.hpp's
// layers: its kind, how it builds them (depth 1 on the data's own channels is the single layer of
// docs/experiment.md §2), and the memory and time a run of them needs.
#include "model/blocks/mixer_block.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/registry.hpp"
#include "model/blocks/cost_model.hpp"
#include "model/evaluate.hpp"
#include "model/mixers/universal.hpp"
#include "model/model.hpp"
#include "model/resource_estimate.hpp"
#include "tape/tape.hpp"

namespace ufl::model {
namespace {

using namespace cost_model;

struct Sizes {
  double n, d, r, h, batch, train_size, test_size, depth;
};

// FLOPs of the products of one training sample in the universal layer's kernel that training
// chooses at these sizes (dense or structured, model::structured_pays; the lists are in
// bench/README.md), the structured kernel's per-step blocks shared over the batch, plus the
// elementwise work.
double train_flops_per_sample(const Sizes& s) {
  const bool with_dh = s.depth > 1;
  const model::KernelCost cost = model::universal_kernel_cost(s.n, s.d, s.r, with_dh);
  const double products =
      model::structured_pays(int(s.n), int(s.d), int(s.r), int(s.batch), with_dh)
          ? cost.structured_per_sample + cost.structured_per_step / s.batch
          : cost.dense_per_sample;
  return products + 2 * kElementwiseFlops * s.n * s.n;
}
// One sample's forward in the evaluation (the composite graph): U, V, S, M·H, ·W_v.
double eval_flops_per_sample(const Sizes& s) {
  const double n = s.n, d = s.d, r = s.r;
  return 4 * n * d * r + 2 * n * n * r + 2 * n * n * d + 2 * n * d * d + kElementwiseFlops * n * n;
}

ResourceEstimate estimate_layers(const data::DatasetConfig& dataset, const LayerConfig& layer,
                                 const ModelConfig& model, const TrainingShape& train, int threads,
                                 bool data_from_files) {
  // Every layer of a stack works on the stream's width D = model.width (d unless given), not on
  // the data's d: its parameters (W_v is D×D) and activations grow with D, and with the depth.
  const int width = model.width > 0 ? model.width : dataset.d;
  const Sizes s{double(dataset.n),         double(width),
                double(layer.rank),        double(width) + dataset.n + 1,
                double(train.batch_size),  double(dataset.train_size),
                double(dataset.test_size), double(std::max(model.depth, 1))};
  const double n = s.n, d = double(dataset.d), D = s.d, r = s.r, h = s.h, depth = s.depth;
  const std::string n_text = "dataset.n = " + number(n), r_text = "layer.rank = " + number(r);
  const bool stacked = D != d || depth > 1;
  const std::string width_text = width == dataset.d ? "dataset.d" : "model.width = " + number(D);
  const std::string depth_text = depth > 1 ? "model.depth = " + number(depth) + " × " : "";
  std::vector<std::string> stack_keys;
  if (depth > 1) stack_keys.push_back("model.depth");
  if (width != dataset.d) stack_keys.push_back("model.width");
  auto with_stack = [&](std::vector<std::string> keys) {
    keys.insert(keys.begin(), stack_keys.begin(), stack_keys.end());
    return keys;
  };
  const bool partners = [&] {
    const data::DatasetKind* kind = data::find_dataset_kind(dataset.kind);
    return kind != nullptr && kind->has_partners;
  }();

  // The data: inputs and targets of every sample as float (and partners as int32); Γ and M_fix.
  const double samples = s.train_size + s.test_size;
  MemoryPart data{
      "dataset",
      samples * n * d * 2 * kFloat + (partners ? samples * n * 4 : 0) + 4 * n * n * kDouble +
          (data_from_files ? std::max(s.train_size, s.test_size) * n * d * kDouble : 0),
      "(dataset.train_size = " + number(s.train_size) + " + dataset.test_size = " +
          number(s.test_size) + ") × " + n_text + " × dataset.d = " + number(d) + " × 2 arrays",
      {"dataset.train_size", "dataset.test_size", "dataset.n", "dataset.d"}};

  // Parameters (A, B: h×r each, s, g, W_v) with their gradients and Adam's two moments, plus a
  // checkpoint's copy of all three and its encoding; the sampler's order and the loss curve.
  const double per_layer = 2 * h * r + r + 1 + D * D;
  const double parameters = depth * per_layer;
  MemoryPart weights{"parameters and Adam",
                     10 * parameters * kFloat + 3 * s.train_size * 4 + 3 * train.steps * 48.0,
                     stacked ? depth_text + "(2 × (" + n_text + " + " + width_text + " + 1) × " +
                                   r_text + " + " + width_text + "²) × 10 copies"
                             : "2 × (" + n_text + " + dataset.d + 1) × " + r_text + " × 10 copies",
                     with_stack({"dataset.n", "layer.rank"})};
  MemoryPart weights_after{"parameters", 4 * parameters * kFloat, weights.drivers, weights.keys};

  // The training tape (tape/tape.hpp, model/mixers/universal.hpp): per sample the fused
  // kernel's kept activations, the input, target, output and its gradient, the loss's residual;
  // per sample group a gradient slot for every shared parameter, and the kernels' temporaries
  // (one workspace per group that the layers share in turn).
  const model::UniversalLayout layout{
      dataset.n, width, layer.rank,
      model::dot_scores().backward_scratch(dataset.n, layer.rank, true)};
  const double group_size = std::ceil(s.batch / kMaxSampleGroups);
  const double groups = std::ceil(s.batch / group_size);
  MemoryPart training_tape{
      "training tape",
      (depth * (s.batch * (double(layout.forward_size()) + 5 * n * D + 8) + groups * per_layer) +
       groups * double(layout.backward_size())) *
          kFloat,
      depth_text + "train.batch_size = " + number(s.batch) + " × (4 × " + n_text + "² + …)",
      with_stack({"train.batch_size", "dataset.n", "layer.rank"})};

  // The evaluation tape (model/evaluate.hpp, the composite graph): per sample of a chunk X, U, V,
  // UΣ, S, softmax(S), M, M·H and the output.
  const double chunk = model::Evaluator::chunk_size(dataset.n, dataset.test_size);
  MemoryPart evaluation{
      "evaluation",
      chunk * depth * (3 * n * D + 3 * n * r + 3 * n * n + 16) * kFloat + s.test_size * kDouble,
      number(chunk) + " test samples at a time × 3 × " + n_text + "²",
      {"dataset.n"}};
  // The score trajectory at every evaluation: M̄ and its scores (an SVD, the DFT products).
  MemoryPart trajectory{
      "score trajectory", 20 * n * n * kDouble, "20 × " + n_text + "² doubles", {"dataset.n"}};
  // The final analysis: M̄, M*, their SVDs, Ω ((d+n+1)², with its SVDs), the targets' Gram
  // matrix, the saved U, V, M of 8 samples.
  MemoryPart analysis{"analysis", 24 * h * h * kDouble + 8 * (n * n + 2 * n * r) * kFloat * 3,
                      "24 × (" + n_text + " + " + width_text + " + 1)² doubles",
                      width != dataset.d ? std::vector<std::string>{"model.width", "dataset.n"}
                                         : std::vector<std::string>{"dataset.n"}};
  const MemoryPart process{"process", kProcessBytes, "code, libraries, thread stacks", {}};

  std::vector<MemoryPart> during_training = {data,       weights,    training_tape,
                                             evaluation, trajectory, process};
  std::vector<MemoryPart> during_analysis = {data, weights_after, evaluation, analysis, process};
  auto total = [](const std::vector<MemoryPart>& parts) {
    double bytes = 0;
    for (const MemoryPart& part : parts) bytes += part.bytes;
    return bytes;
  };
  ResourceEstimate estimate;
  estimate.parts =
      total(during_training) >= total(during_analysis) ? during_training : during_analysis;
  std::sort(estimate.parts.begin(), estimate.parts.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  estimate.peak_bytes = total(estimate.parts);

  // Time: the step's products at the assumed speed on the threads the batch can use (at most
  // one per sample group), plus the evaluations' share.
  estimate.threads = std::max(threads, 1);
  estimate.gflops_per_thread = train.gflops_per_thread;
  const double working_threads = std::min<double>(estimate.threads, groups);
  const double eval_every = std::max(train.eval_every, 1);
  const double step_flops = depth * s.batch * train_flops_per_sample(s);
  const double eval_flops = depth * s.test_size * eval_flops_per_sample(s) / eval_every;
  estimate.flops_per_step = step_flops + eval_flops;
  estimate.seconds_per_step =
      step_flops / (working_threads * train.gflops_per_thread * 1e9) +
      eval_flops / (std::min<double>(estimate.threads, chunk) * train.gflops_per_thread * 1e9);
  estimate.total_seconds = estimate.seconds_per_step * train.steps;
  return estimate;
}

}  // namespace

class MixerBlockKind : public BlockKind {
 public:
  std::string name() const override { return "mixer"; }
  std::string summary() const override {
    return "H_l = ρ·H_{l−1} + M(H_{l−1})·H_{l−1}·W_v: one mixer, no norm, no MLP (Section 8, "
           "section 7)";
  }

  // One mixer: the kind takes no heads, so the config gives it no list (config/keys.cpp).
  void build(Model<float>& model, const HeadMixers<float>& mixers, bool) const override {
    build_mixer_blocks(model, *mixers.front());
  }

  // Counts the universal layer's kernel, whichever the mixer.
  ResourceEstimate estimate(const data::DatasetConfig& dataset, const LayerConfig& layer,
                            const HeadMixers<float>&, const ModelConfig& model,
                            const TrainingShape& train, int threads,
                            bool data_from_files) const override {
    return estimate_layers(dataset, layer, model, train, threads, data_from_files);
  }

  bool single_layer_at_depth_one() const override { return true; }
  std::string stack_text(const ModelConfig& model, int d) const override {
    if (model.depth == 1 && model.width == d && !model.residual) return "";
    return ", " + std::to_string(model.depth) + " layer" + (model.depth == 1 ? "" : "s") +
           " of width " + std::to_string(model.width) + (model.residual ? " (residual)" : "");
  }
};

const BlockKind& mixer_block_kind() {
  static const MixerBlockKind kind;
  return kind;
}

}  // namespace ufl::model
