// The transformer block (model.block = "transformer"; docs/transformer.md §1): its kind, how it
// builds (P, then per block its branches [norm1, heads] and [norm2, mlp]; slices named blockL/…;
// the token task's E and final norm are its ends', task/token_ends.hpp), initialises (GPT-2's,
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
// The softmax of the tied unembedding's logits: an exponential and a division per logit.
constexpr double kSoftmaxFlops = 20;
// Memory traffic that does no arithmetic (clearing and summing gradient slots, AdamW's pass):
// 10 GB/s, from the mqar run with a vocabulary of 10⁶ timed on the quiet 2-core machine (4.4 s
// per step, 82 s in all; docs/running.md).
constexpr double kBytesPerSecond = 1e10;

// What every part of a transformer run's estimate reads: the sizes, and the per-sample and
// per-group counts that several parts share.
struct BlockSizes {
  double n, D, h, r, depth, batch, hidden, values;
  const data::DatasetKind* kind;
  bool tokens;
  double vocab, token_count;
  std::string width_text, n_text;
  // Summed over a block's heads, each of its own mixer (a hybrid's differ):
  double score_heads;      // heads with scores (Q, K): an input-dependent mixer
  double kept;             // n×n matrices kept: S, and softmax(S) with a learned gate
  double head_parameters;  // the mixers' parameters (W_v apart)
  double slot_parameters;  // those summed per sample group: all but the score heads' W_q, W_k
  double head_flops;       // per sample, forward: the scores and the mix (a causal one over ½n²)
  bool scores;             // some head has scores
  double parameters;
  double projections;  // columns of the heads' projections per block
  double per_sample;   // kept fields per sample, every block and the ends
  double group_size, groups;
  double composite_per_sample;  // the op-by-op graph's fields per sample
  double chunk;                 // samples or windows per evaluation pass
  std::string chunk_text;
  double eval_windows;
};

BlockSizes block_sizes(const data::DatasetConfig& dataset, const LayerConfig& layer,
                       const HeadMixers<float>& mixers, const ModelConfig& model,
                       const TrainingShape& train, int threads) {
  BlockSizes s;
  s.n = dataset.n, s.D = std::max(model.width, 1), s.h = std::max(layer.heads, 1);
  s.r = layer.rank, s.depth = std::max(model.depth, 1), s.batch = train.batch_size;
  s.hidden = model.mlp_ratio * s.D, s.values = s.D / s.h;
  const double n = s.n, D = s.D, h = s.h, r = s.r, hidden = s.hidden;
  s.kind = data::find_dataset_kind(dataset.kind);
  s.tokens = s.kind != nullptr && bool(s.kind->tokens);
  s.vocab = s.tokens ? s.kind->vocabulary_bound(dataset) : 0;
  s.token_count = s.tokens ? s.kind->token_count(dataset) : 0;
  s.width_text = "model.width = " + number(D), s.n_text = "dataset.n = " + number(n);
  // Each head's mixer parameters (W_v apart), counted from its mixer's own list; a mixer the
  // registry does not know (null) as the universal layer's.
  model::LayerShape shape{dataset.n, std::max(model.width, 1), layer.rank};
  shape.transformer = true;
  shape.value_cols = std::max(1, model.width / std::max(layer.heads, 1));
  s.score_heads = s.kept = s.head_parameters = s.slot_parameters = s.head_flops = 0;
  for (const model::Mixer<float>* mixer : mixers) {
    const bool scores = mixer == nullptr || mixer->input_dependent();
    double parameters = 2 * (D + n + 1) * r + r + 1;
    if (mixer != nullptr) {
      parameters = 0;
      for (const model::TensorSpec& spec : mixer->parameters(shape, layer))
        parameters += double(spec.rows) * spec.cols;
    }
    s.score_heads += scores ? 1 : 0;
    s.kept += scores ? (mixer == nullptr || mixer->learned_gate() ? 2 : 1) : 0;
    s.head_parameters += parameters;
    s.slot_parameters += parameters - (scores ? 2 * D * r : 0);
    s.head_flops += (scores ? 2 * n * n * r : 0) + 2 * n * n * s.values;
  }
  s.scores = s.score_heads > 0;
  const double per_block_parameters = s.head_parameters + h * D * s.values + D * D +
                                      2 * D * hidden + hidden + 3 * D + (hidden > 0 ? 2 * D : 0);
  // Without the token embedding E (vocab × D), which the vocabulary part below counts.
  s.parameters = s.depth * per_block_parameters + n * D + 2 * D;

  // Per sample and block, the fused ops' kept fields: the heads' normalised input, its statistics,
  // every head's projections (Q, K and the value slice), their score matrices (S and softmax(S)
  // with a learned gate) and the heads' output; the MLP's normalised input, statistics, a and
  // GELU(a); and each branch's output with its gradient.
  s.projections = 2 * s.score_heads * r + D;
  const double heads_fields = 2 * n * D + 2 * n + n * s.projections + s.kept * n * n;
  const double mlp_fields = hidden > 0 ? n * D + 2 * n + 2 * n * hidden : 0;
  const double per_block = heads_fields + mlp_fields + (hidden > 0 ? 4 : 2) * n * D;
  // Outside the blocks: the embedding's output and the final norm's, with their gradients, the
  // unembedding's probabilities, the inputs.
  s.per_sample = s.depth * per_block + 4 * n * D + 4 * n;
  s.group_size = std::ceil(s.batch / kMaxSampleGroups);
  s.groups = std::ceil(s.batch / s.group_size);

  // The op-by-op graph (model/evaluate.hpp) records every head's U, V, UΣ, S, the masked and
  // softmaxed S and M (n² each).
  const double composite_per_block =
      12 * n * D + 4 * n * hidden + h * (3 * n * r + 6 * n * n + 2 * n * s.values);
  s.composite_per_sample = s.depth * composite_per_block + 4 * n * D + n * s.vocab + 3 * n;
  s.chunk = s.tokens ? evaluation_chunk(std::max(dataset.val_windows, dataset.test_size), threads)
                     : model::Evaluator::chunk_size(dataset.n, dataset.test_size);
  s.chunk_text = number(s.chunk) + (s.tokens ? " window" : " sample") + (s.chunk == 1 ? "" : "s") +
                 " at a time";
  s.eval_windows = s.tokens ? std::max(dataset.val_windows, dataset.test_size) : dataset.test_size;
  return s;
}

// The training tape: per sample the kept fields; per sample group the workspace the ops share in
// turn (tape/tape.hpp), the largest of one op's temporaries, and the gradient slots of the
// parameters summed per group (the norms, the universal heads' position rows and gate, a fixed
// head's operator, the embeddings); once per step, each weight transposed, and it and its
// transpose in the product kernel's panel layout (tape/batched_op.hpp, PackedWeight): at most
// three copies of the blocks' weights.
MemoryPart training_tape_part(const BlockSizes& s) {
  const double n = s.n, D = s.D, r = s.r, hidden = s.hidden, values = s.values;
  const double score_temporaries = std::max(r, values) * n + 2 * n * n + 2 * n * r + n * values;
  const double workspace =
      std::max({s.group_size * 2 * n * D + std::max(score_temporaries, 2 * n * values),
                s.group_size * (n * hidden + n * D)});
  const double slots = s.depth * (4 * D + s.slot_parameters) + n * D + 2 * D;
  const double per_step = 3 * s.depth * (s.projections * D + D * D + 2 * D * hidden);
  // A head with scores projects to layer.rank columns: a rank far above the width's share (a
  // mistyped layer.rank) is what fills the memory then, and the advice names it.
  std::vector<std::string> keys = {"train.batch_size", "model.depth", "model.width", "dataset.n"};
  if (s.scores) keys.push_back("layer.rank");
  return {"training tape",
          (s.batch * s.per_sample + s.groups * (workspace + slots) + per_step) * kFloat,
          "train.batch_size = " + number(s.batch) + " × model.depth = " + number(s.depth) + " × (" +
              s.width_text + ", " + s.n_text + "², model.mlp_ratio, layer.heads" +
              (s.scores ? ", layer.rank = " + number(s.r) : "") + ")",
          keys};
}

// The session's evaluation tape: for tokens fused, forward values only, one window per thread and
// pass (tape/tape.hpp, evaluation_chunk); under denoise the op-by-op graph (model/evaluate.hpp).
MemoryPart evaluation_part(const BlockSizes& s) {
  return {"evaluation",
          s.chunk * (s.tokens ? s.per_sample : s.composite_per_sample) * kFloat,
          s.chunk_text + (s.tokens ? " (one per thread)" : ""),
          {"model.width", "dataset.n"}};
}

// Training's tapes are freed before the analysis (run/task_run.hpp), which records the heads op
// by op beside an evaluation tape and keeps per head the running mean and sum of its M(X) in
// doubles: the peak is the larger of the two phases.
MemoryPart analysis_part(const BlockSizes& s) {
  return {"analysis",
          s.chunk * s.composite_per_sample * kFloat + s.depth * s.h * 2 * s.n * s.n * 8,
          "every head op by op, " + s.chunk_text + ", and model.depth × layer.heads × 2 × " +
              s.n_text + "² doubles",
          {"model.depth", "layer.heads", "dataset.n"}};
}

// What grows with the vocabulary (docs/transformer.md §8): the embedding E (vocab × D) with its
// gradient, AdamW's moments and the checkpoint's copies (10 copies, as every parameter); E's
// gradient slot in each sample group, twice (the embedding's and the tied unembedding's); and per
// window the unembedding's probabilities (n × vocab) kept from forward, with one n × vocab
// temporary (the logits' gradient) per group, for the training batch and the evaluation's
// windows. Also E written to params/ and the checkpoint (two more copies), and the tokens' names
// (vocab.json; about 100 bytes a token with the JSON).
MemoryPart vocabulary_part(const BlockSizes& s, const data::DatasetConfig& dataset, int threads) {
  const double n = s.n, D = s.D, vocab = s.vocab;
  const double vocabulary_bytes =
      100 * vocab +
      (12 * vocab * D + s.groups * (2 * vocab * D + n * vocab) + s.batch * n * vocab +
       (s.tokens ? evaluation_chunk(std::max(dataset.val_windows, dataset.test_size), threads)
                 : 0) *
           n * vocab) *
          kFloat;
  const std::string vocab_key = s.kind != nullptr ? s.kind->vocabulary_key : std::string();
  return {"vocabulary",
          vocabulary_bytes,
          "a vocabulary of " + number(vocab) + " (" +
              (vocab_key.empty() ? std::string("dataset.vocab") : vocab_key) + ") × (12 × " +
              s.width_text + " + train.batch_size = " + number(s.batch) + " × " + s.n_text +
              " + …)",
          {vocab_key.empty() ? "dataset.vocab" : vocab_key}};
}

// The data: each token as int32 and each training window's start as int64, with the sampler's
// order (int32) three times (it, its checkpoint copy and the encoding); float data as the denoise
// kinds hold it.
std::vector<MemoryPart> data_parts(const BlockSizes& s, const data::DatasetConfig& dataset) {
  const double windows = s.tokens ? s.token_count : dataset.train_size;
  return {{"dataset",
           s.tokens ? s.token_count * (4 + 8)
                    : (dataset.train_size + dataset.test_size) * s.n * dataset.d * 2 * kFloat,
           s.tokens ? "about " + number(s.token_count) + " tokens"
                    : "dataset.train_size + dataset.test_size",
           {s.kind != nullptr ? s.kind->size_key : std::string("dataset.train_size")}},
          {"sampler", windows * 4 * 3, "one int32 per training window", {}}};
}

// Forward FLOPs per sample and block: the projections (Q, K and the value slices), each head's
// scores and mix (a causal one over about half of n²), W_o, the MLP; backward twice that. Plus
// what the vocabulary adds in memory traffic rather than FLOPs, and the final analysis.
void add_time(ResourceEstimate& estimate, const BlockSizes& s, const TrainingShape& train,
              int threads) {
  const double n = s.n, D = s.D, vocab = s.vocab;
  const double causal_share = s.tokens ? 0.5 : 1.0;
  const double block = 2 * n * D * s.projections + causal_share * s.head_flops + 2 * n * D * D +
                       4 * n * D * s.hidden + kElementwiseFlops * n * D;
  const double forward = s.depth * block + 2 * n * D * vocab + kSoftmaxFlops * n * vocab;
  estimate.threads = std::max(threads, 1);
  estimate.gflops_per_thread = train.gflops_per_thread;
  estimate.flops_per_step =
      3 * s.batch * forward + s.eval_windows * forward / std::max(train.eval_every, 1);
  estimate.seconds_per_step =
      estimate.flops_per_step /
      (std::min<double>(estimate.threads, s.groups) * train.gflops_per_thread * 1e9);
  // What the vocabulary adds in memory traffic rather than FLOPs, per step: E's gradient slots
  // cleared, filled and summed in each group, AdamW's pass over E and its copies, the
  // probabilities written, normalised and read back.
  const double vocabulary_traffic =
      (s.groups * 2 * vocab * D * 3 + 10 * vocab * D + s.batch * n * vocab * 3) * kFloat;
  estimate.seconds_per_step += vocabulary_traffic / kBytesPerSecond;
  // After the last step: the validation windows scored, then scored again with every head
  // recorded op by op (about three forward passes each), on the threads the windows can use.
  estimate.final_seconds =
      s.tokens
          ? 3 * s.eval_windows * forward /
                (std::min<double>(estimate.threads, s.eval_windows) * train.gflops_per_thread * 1e9)
          : 0;
  estimate.total_seconds = estimate.seconds_per_step * train.steps + estimate.final_seconds;
}

ResourceEstimate estimate_blocks(const data::DatasetConfig& dataset, const LayerConfig& layer,
                                 const HeadMixers<float>& mixers, const ModelConfig& model,
                                 const TrainingShape& train, int threads) {
  const BlockSizes s = block_sizes(dataset, layer, mixers, model, train, threads);
  const MemoryPart training_tape = training_tape_part(s), analysis = analysis_part(s);
  // layer.rank drives the score heads' share of the parameters too (training_tape_part says why).
  std::vector<std::string> weight_keys = {"model.depth", "model.width"};
  if (s.scores) weight_keys.push_back("layer.rank");
  const MemoryPart weights{"parameters and AdamW", 10 * s.parameters * kFloat,
                           "model.depth = " + number(s.depth) + " × (" + s.width_text + "²" +
                               (s.scores ? ", layer.rank = " + number(s.r) : "") + ") × 10 copies",
                           weight_keys};
  const std::vector<MemoryPart> data = data_parts(s, dataset);
  ResourceEstimate estimate;
  estimate.parts = {training_tape.bytes >= analysis.bytes ? training_tape : analysis,
                    evaluation_part(s),
                    weights,
                    data[0],
                    data[1],
                    {"process", kProcessBytes, "code, libraries, thread stacks", {}}};
  if (s.tokens) estimate.parts.push_back(vocabulary_part(s, dataset, threads));
  std::sort(estimate.parts.begin(), estimate.parts.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  for (const MemoryPart& part : estimate.parts) estimate.peak_bytes += part.bytes;
  add_time(estimate, s, train, threads);
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

  void build(Model<float>& model, const HeadMixers<float>& mixers, bool causal) const override {
    build_transformer_blocks(model, mixers, causal);
  }

  ResourceEstimate estimate(const data::DatasetConfig& dataset, const LayerConfig& layer,
                            const HeadMixers<float>& mixers, const ModelConfig& model,
                            const TrainingShape& train, int threads, bool) const override {
    return estimate_blocks(dataset, layer, mixers, model, train, threads);
  }

  std::string stack_text(const ModelConfig& model, int) const override {
    return ", " + std::to_string(model.depth) + " transformer block" +
           (model.depth == 1 ? "" : "s") + " of width " + std::to_string(model.width);
  }
};

const BlockKind& transformer_block_kind() {
  static const TransformerBlockKind kind;
  return kind;
}

}  // namespace ufl::model
