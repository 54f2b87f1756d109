// The transformer block (model.block = "transformer"; docs/transformer.md §1): its kind, how it
// builds (P, then per block its branches [norm1, heads] and [norm2, mlp]; slices named blockL/…;
// the token task's E and final norm are its head's, task/token_head.hpp), initialises (GPT-2's,
// docs/transformer.md §4) and records its blocks (fused branches, docs/transformer.md §8), and the
// memory and time a run of them needs.
#include "model/blocks/transformer_block.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/registry.hpp"
#include "model/blocks/cost_model.hpp"
#include "model/blocks/transformer_build.hpp"
#include "model/evaluate.hpp"
#include "model/resource_estimate.hpp"
#include "tape/tape.hpp"

namespace ufl::model {

// Compiled here for `ufl`; the double blocks with the tests (model/block.hpp, build_blocks).
template struct TransformerBlock<float>;

namespace {

// layer.gate_init in transformer blocks: the heads start close to attention, since the
// unnormalised S term, summed over up to n positions, otherwise drowns the residual stream once
// the scores grow, and Adam moves the gate's logit only about lr per step (docs/universal_head.md
// §3; chosen on seeds 11 and 12 of the copying check).
constexpr double kTransformerGateInit = 0.99;

using namespace cost_model;
// The softmax of the tied head's logits: an exponential and a division per logit.
constexpr double kSoftmaxFlops = 20;
// Memory traffic that does no arithmetic (clearing and summing gradient slots, AdamW's pass):
// 10 GB/s, from the mqar run with a vocabulary of 10⁶ timed on the quiet 2-core machine (4.4 s
// per step, 82 s in all; docs/running.md).
constexpr double kBytesPerSecond = 1e10;

ResourceEstimate estimate_blocks(const data::DatasetConfig& dataset, const LayerConfig& layer,
                                 const ModelConfig& model, const TrainingShape& train,
                                 int threads) {
  const double n = dataset.n, D = std::max(model.width, 1), h = std::max(layer.heads, 1);
  const double r = layer.rank, depth = std::max(model.depth, 1), batch = train.batch_size;
  const double hidden = model.mlp_ratio * D, values = D / h;
  const data::DatasetKind* kind = data::find_dataset_kind(dataset.kind);
  const bool tokens = kind != nullptr && bool(kind->tokens);
  const double vocab = tokens ? kind->vocabulary_bound(dataset) : 0;
  const double token_count = tokens ? kind->token_count(dataset) : 0;
  const std::string width_text = "model.width = " + number(D), n_text = "dataset.n = " + number(n);
  const model::Mixer<float>* mixer = model::find_mixer<float>(layer.mixer);
  const bool scores = mixer == nullptr || mixer->input_dependent();
  const double kept_per_head = scores ? (mixer == nullptr || mixer->learned_gate() ? 2 : 1) : 0;

  // One head's mixer parameters (W_v apart), counted from the mixer's own list.
  double head_parameters = 2 * (D + n + 1) * r + r + 1;
  if (mixer != nullptr) {
    model::LayerShape shape{dataset.n, std::max(model.width, 1), layer.rank};
    shape.transformer = true;
    shape.value_cols = std::max(1, model.width / std::max(layer.heads, 1));
    head_parameters = 0;
    for (const model::TensorSpec& spec : mixer->parameters(shape, layer))
      head_parameters += double(spec.rows) * spec.cols;
  }
  const double per_block_parameters = h * (head_parameters + D * values) + D * D + 2 * D * hidden +
                                      hidden + 3 * D + (hidden > 0 ? 2 * D : 0);
  // Without the token embedding E (vocab × D), which the vocabulary part below counts.
  const double parameters = depth * per_block_parameters + n * D + 2 * D;

  // Per sample and block, the fused ops' kept fields: the heads' normalised input, its statistics,
  // every head's projections (Q, K and the value slice), their score matrices (S and softmax(S)
  // with a learned gate) and the heads' output; the MLP's normalised input, statistics, a and
  // GELU(a); and each branch's output with its gradient.
  const double projections = (scores ? 2 * h * r : 0) + D;
  const double heads_fields = 2 * n * D + 2 * n + n * projections + h * kept_per_head * n * n;
  const double mlp_fields = hidden > 0 ? n * D + 2 * n + 2 * n * hidden : 0;
  const double per_block = heads_fields + mlp_fields + (hidden > 0 ? 4 : 2) * n * D;
  // Outside the blocks: the embedding's output and the final norm's, with their gradients, the
  // head's probabilities, the inputs.
  const double per_sample = depth * per_block + 4 * n * D + 4 * n;
  // Per sample group, the workspace the ops share in turn (tape/tape.hpp), the largest of one
  // op's temporaries; and the gradient slots of the parameters summed per group (the norms, the
  // universal heads' position rows and gate, a fixed head's operator, the embeddings).
  const double group_size = std::ceil(batch / kMaxSampleGroups);
  const double groups = std::ceil(batch / group_size);
  const double score_temporaries = std::max(r, values) * n + 2 * n * n + 2 * n * r + n * values;
  const double workspace =
      std::max({group_size * 2 * n * D + std::max(score_temporaries, 2 * n * values),
                group_size * (n * hidden + n * D)});
  const double slots =
      depth * (4 * D + h * (head_parameters - (scores ? 2 * D * r : 0))) + n * D + 2 * D;
  // Once per step, each weight transposed, and it and its transpose in the product kernel's panel
  // layout (tape/batched_op.hpp, PackedWeight): at most three copies of the blocks' weights.
  const double per_step = 3 * depth * (projections * D + D * D + 2 * D * hidden);
  MemoryPart training_tape{"training tape",
                           (batch * per_sample + groups * (workspace + slots) + per_step) * kFloat,
                           "train.batch_size = " + number(batch) +
                               " × model.depth = " + number(depth) + " × (" + width_text + ", " +
                               n_text + "², model.mlp_ratio, layer.heads)",
                           {"train.batch_size", "model.depth", "model.width", "dataset.n"}};
  // The session's evaluation tape: for tokens fused, forward values only, one window per thread
  // and pass (tape/tape.hpp, evaluation_chunk); under denoise the op-by-op graph
  // (model/evaluate.hpp), which records every head's U, V, UΣ, S, the masked and softmaxed S and
  // M (n² each). Training's tapes are freed before the analysis (run/task_run.hpp), which records
  // the heads op by op beside an evaluation tape and keeps per head the running mean and sum of its
  // M(X) in doubles: the peak is the larger of the two phases.
  const double composite_per_block =
      12 * n * D + 4 * n * hidden + h * (3 * n * r + 6 * n * n + 2 * n * values);
  const double composite_per_sample = depth * composite_per_block + 4 * n * D + n * vocab + 3 * n;
  const double chunk =
      tokens ? evaluation_chunk(std::max(dataset.val_windows, dataset.test_size), threads)
             : model::Evaluator::chunk_size(dataset.n, dataset.test_size);
  const std::string chunk_text =
      number(chunk) + (tokens ? " window" : " sample") + (chunk == 1 ? "" : "s") + " at a time";
  MemoryPart evaluation{"evaluation",
                        chunk * (tokens ? per_sample : composite_per_sample) * kFloat,
                        chunk_text + (tokens ? " (one per thread)" : ""),
                        {"model.width", "dataset.n"}};
  MemoryPart analysis{"analysis",
                      chunk * composite_per_sample * kFloat + depth * h * 2 * n * n * 8,
                      "every head op by op, " + chunk_text +
                          ", and model.depth × layer.heads × 2 × " + n_text + "² doubles",
                      {"model.depth", "layer.heads", "dataset.n"}};
  // What grows with the vocabulary (docs/transformer.md §8): the embedding E (vocab × D) with its
  // gradient, AdamW's moments and the checkpoint's copies (10 copies, as every parameter); E's
  // gradient slot in each sample group, twice (the embedding's and the tied head's); and per
  // window the head's probabilities (n × vocab) kept from forward, with one n × vocab temporary
  // (the logits' gradient) per group, for the training batch and the evaluation's windows.
  // Also E written to params/ and the checkpoint (two more copies), and the tokens' names
  // (vocab.json; about 100 bytes a token with the JSON).
  const double vocabulary_bytes =
      100 * vocab +
      (12 * vocab * D + groups * (2 * vocab * D + n * vocab) + batch * n * vocab +
       (tokens ? evaluation_chunk(std::max(dataset.val_windows, dataset.test_size), threads) : 0) *
           n * vocab) *
          kFloat;
  const std::string vocab_key = kind != nullptr ? kind->vocabulary_key : std::string();
  MemoryPart vocabulary{"vocabulary",
                        vocabulary_bytes,
                        "a vocabulary of " + number(vocab) + " (" +
                            (vocab_key.empty() ? std::string("dataset.vocab") : vocab_key) +
                            ") × (12 × " + width_text + " + train.batch_size = " + number(batch) +
                            " × " + n_text + " + …)",
                        {vocab_key.empty() ? "dataset.vocab" : vocab_key}};
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
                  {kind != nullptr ? kind->size_key : std::string("dataset.train_size")}};
  MemoryPart sampler{"sampler", windows * 4 * 3, "one int32 per training window", {}};
  MemoryPart process{"process", kProcessBytes, "code, libraries, thread stacks", {}};

  ResourceEstimate estimate;
  estimate.parts = {training_tape.bytes >= analysis.bytes ? training_tape : analysis,
                    evaluation,
                    weights,
                    data,
                    sampler,
                    process};
  if (tokens) estimate.parts.push_back(vocabulary);
  std::sort(estimate.parts.begin(), estimate.parts.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  for (const MemoryPart& part : estimate.parts) estimate.peak_bytes += part.bytes;

  // Forward FLOPs per sample and block: the projections (Q, K and the value slices), each head's
  // scores and mix (a causal one over about half of n²), W_o, the MLP; backward twice that.
  const double causal_share = tokens ? 0.5 : 1.0;
  const double head = (scores ? 2 * n * n * r : 0) + 2 * n * n * values;
  const double block = 2 * n * D * projections + causal_share * h * head + 2 * n * D * D +
                       4 * n * D * hidden + kElementwiseFlops * n * D;
  const double forward = depth * block + 2 * n * D * vocab + kSoftmaxFlops * n * vocab;
  estimate.threads = std::max(threads, 1);
  estimate.gflops_per_thread = kGflopsPerThread;
  const double eval_windows =
      tokens ? std::max(dataset.val_windows, dataset.test_size) : dataset.test_size;
  estimate.flops_per_step =
      3 * batch * forward + eval_windows * forward / std::max(train.eval_every, 1);
  estimate.seconds_per_step = estimate.flops_per_step /
                              (std::min<double>(estimate.threads, groups) * kGflopsPerThread * 1e9);
  // What the vocabulary adds in memory traffic rather than FLOPs, per step: E's gradient slots
  // cleared, filled and summed in each group, AdamW's pass over E and its copies, the
  // probabilities written, normalised and read back.
  const double vocabulary_traffic =
      (groups * 2 * vocab * D * 3 + 10 * vocab * D + batch * n * vocab * 3) * kFloat;
  estimate.seconds_per_step += vocabulary_traffic / kBytesPerSecond;
  // After the last step: the validation windows scored, then scored again with every head
  // recorded op by op (about three forward passes each), on the threads the windows can use.
  estimate.final_seconds =
      tokens ? 3 * eval_windows * forward /
                   (std::min<double>(estimate.threads, eval_windows) * kGflopsPerThread * 1e9)
             : 0;
  estimate.total_seconds = estimate.seconds_per_step * train.steps + estimate.final_seconds;
  return estimate;
}

}  // namespace

class TransformerBlockKind : public BlockKind {
 public:
  std::string name() const override { return "transformer"; }
  std::string summary() const override {
    return "pre-norm: h = x + W_o·[heads of M(norm(x))·norm(x)·W_v,k], then h + MLP(norm(h))";
  }
  std::vector<std::string> config_keys() const override {
    return {"layer.heads", "model.norm", "model.mlp_ratio", "model.position_embedding",
            "model.init_std"};
  }
  bool takes_tokens() const override { return true; }
  bool takes_heads() const override { return true; }
  bool rank_above_n() const override { return true; }
  // Each head's rank is its share of the width (docs/transformer.md §3).
  int default_rank(int n, int width, int heads) const override {
    return width > 0 && heads > 0 ? width / heads : n;
  }
  double default_gate_init() const override { return kTransformerGateInit; }

  void build(Model<float>& model, const Mixer<float>& mixer, bool causal) const override {
    build_transformer_blocks(model, mixer, causal);
  }

  ResourceEstimate estimate(const data::DatasetConfig& dataset, const LayerConfig& layer,
                            const ModelConfig& model, const TrainingShape& train, int threads,
                            bool) const override {
    return estimate_blocks(dataset, layer, model, train, threads);
  }

  std::string stack_text(const ModelConfig& model, int) const override {
    return ", " + std::to_string(model.depth) + " transformer block" +
           (model.depth == 1 ? "" : "s") + " of width " + std::to_string(model.width);
  }
  bool measured_by_head() const override { return true; }
};

const BlockKind& transformer_block_kind() {
  static const TransformerBlockKind kind;
  return kind;
}

}  // namespace ufl::model
