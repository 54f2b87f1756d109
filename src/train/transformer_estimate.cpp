// The memory and time a run of transformer blocks needs (train/resource_estimate.hpp;
// docs/transformer.md): the blocks are recorded op by op, so the training tape holds every op's
// output and its gradient per sample, and the cost is that of their products.
#include <algorithm>
#include <cmath>

#include "data/registry.hpp"
#include "model/block.hpp"
#include "tape/tape.hpp"
#include "train/resource_estimate.hpp"

namespace ufl::train {
namespace {

constexpr double kFloat = sizeof(float);
constexpr double kProcessBytes = 40e6;
// Op-by-op products of small matrices run well below the fused kernels' speed (bench/).
constexpr double kGflopsPerThread = 30;
constexpr double kElementwiseFlops = 40;
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

}  // namespace

ResourceEstimate estimate_transformer_resources(const data::DatasetConfig& dataset,
                                                const model::LayerConfig& layer,
                                                const model::ModelConfig& model,
                                                const TrainConfig& train, int threads) {
  const double n = dataset.n, D = std::max(model.width, 1), h = std::max(layer.heads, 1);
  const double r = layer.rank, depth = std::max(model.depth, 1), batch = train.batch_size;
  const double hidden = model.mlp_ratio * D;
  const data::DatasetKind* kind = data::find_dataset_kind(dataset.kind);
  const bool tokens = kind != nullptr && bool(kind->tokens);
  const double vocab = tokens ? kind->vocabulary_bound(dataset) : 0;
  const double token_count = tokens ? kind->token_count(dataset) : 0;
  const std::string width_text = "model.width = " + number(D), n_text = "dataset.n = " + number(n);

  // Per sample and block, the outputs of the recorded ops: norms, per head U, V, UΣ, S and the
  // masked and softmaxed S, M (n² each), the value slice and its mix, then W_o, the residual adds
  // and the MLP's four hidden-width tensors.
  const double per_block =
      12 * n * D + 4 * n * hidden + h * (3 * n * r + 6 * n * n + 2 * n * D / h);
  const double per_sample = depth * per_block + 4 * n * D + n * vocab + 3 * n;
  MemoryPart training_tape{"training tape",
                           2 * batch * per_sample * kFloat,
                           "train.batch_size = " + number(batch) +
                               " × model.depth = " + number(depth) + " × (" + width_text + ", " +
                               n_text + "², model.mlp_ratio, layer.heads)",
                           {"train.batch_size", "model.depth", "model.width", "dataset.n"}};
  // The session's evaluation tape and, at the end, the analysis's: 16 windows per pass each
  // (task/next_token_session.hpp), forward values only.
  const double evaluation_chunk = 16;
  MemoryPart evaluation{"evaluation",
                        2 * evaluation_chunk * per_sample * kFloat,
                        "2 tapes × " + number(evaluation_chunk) + " windows at a time",
                        {"model.width", "dataset.n"}};
  const double per_block_parameters =
      h * (2 * (D + n + 1) * r + r + 1 + D * D / h) + D * D + 2 * D * hidden + hidden + 5 * D;
  const double parameters = depth * per_block_parameters + (vocab + n) * D + 2 * D;
  MemoryPart weights{"parameters and AdamW",
                     10 * parameters * kFloat,
                     "model.depth = " + number(depth) + " × " + width_text + "² × 10 copies",
                     {"model.depth", "model.width"}};
  // The data: each token as int32 and each training window's start as int64, with the
  // sampler's order (int32) three times (it, its checkpoint copy and the encoding); float data
  // as the denoise kinds hold it.
  const double windows = tokens ? token_count : dataset.train_size;
  MemoryPart data{"dataset",
                  tokens ? token_count * (4 + 8)
                         : (dataset.train_size + dataset.test_size) * n * dataset.d * 2 * kFloat,
                  tokens ? "about " + number(token_count) + " tokens"
                         : "dataset.train_size + dataset.test_size",
                  {"dataset.train_size"}};
  MemoryPart sampler{"sampler", windows * 4 * 3, "one int32 per training window", {}};
  MemoryPart process{"process", kProcessBytes, "code, libraries, thread stacks", {}};

  ResourceEstimate estimate;
  estimate.parts = {training_tape, evaluation, weights, data, sampler, process};
  std::sort(estimate.parts.begin(), estimate.parts.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  for (const MemoryPart& part : estimate.parts) estimate.peak_bytes += part.bytes;

  // Forward FLOPs per sample and block: each head's U and V (or Q and K), S, its mix of the value
  // slice and the slice itself, W_o, the MLP; backward twice that.
  const double head = 4 * n * (D + n + 1) * r + 2 * n * n * r + 2 * n * n * D / h +
                      2 * n * D * D / h + kElementwiseFlops * n * n;
  const double block = h * head + 2 * n * D * D + 4 * n * D * hidden + kElementwiseFlops * n * D;
  const double forward = depth * block + 2 * n * D * vocab;
  const double groups = std::ceil(batch / std::ceil(batch / kMaxSampleGroups));
  estimate.threads = std::max(threads, 1);
  estimate.gflops_per_thread = kGflopsPerThread;
  const double eval_windows =
      tokens ? std::max(dataset.val_windows, dataset.test_size) : dataset.test_size;
  estimate.flops_per_step =
      3 * batch * forward + eval_windows * forward / std::max(train.eval_every, 1);
  estimate.seconds_per_step = estimate.flops_per_step /
                              (std::min<double>(estimate.threads, groups) * kGflopsPerThread * 1e9);
  estimate.total_seconds = estimate.seconds_per_step * train.steps;
  return estimate;
}

}  // namespace ufl::train
