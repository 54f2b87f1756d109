#pragma once
// What one layer of a stack is (model.block; docs/transformer.md §1). A block kind is one file of
// model/blocks/ and one line of the registry in model/block.cpp: it answers everything the rest
// of the code asks about it (its config keys and defaults, how it builds, initialises and records
// its blocks, what a run of them needs, how a run is described), and its blocks carry the record
// the analysis measures them by (MixerPart below), so no other file compares block names or
// reaches for a concrete block; the model holds one list of its blocks (nanoGPT's Block as the
// seam).
#include <memory>
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "model/mixer.hpp"
#include "model/model_config.hpp"
#include "model/parameters.hpp"
#include "model/resource_estimate.hpp"

namespace ufl::data {
struct DatasetConfig;
}

namespace ufl::model {

template <class T>
class Model;
template <class T>
struct ModelGraph;

// How the analysis measures a mixer part of a block (docs/design.md §1.1):
enum class Measured {
  // As a layer (docs/experiment.md §3, docs/section7.md §4): its operator M, applied to the whole
  // stream with a square W_v, scored against the optimum (analysis/measure.hpp; one layer gets
  // Section 8's measures, a stack each layer's), watched over training (the score trajectory of
  // the first layer), its mixer's derived arrays (Σ) written to the run folder.
  kAsLayer,
  // As a head (docs/transformer.md §5, docs/head_structure.md): its M(X) on held-out samples or
  // windows, scored and written as heads/block<l>_head<k>.npy (analysis/block_heads.hpp,
  // head_map.py), its gate over training where its mixer learns one, and for token runs
  // heads.json.
  kAsHead,
};

// One mixer of a block with parameters of its own, as the analysis reads it: the layer of a mixer
// block, or one head of a transformer block. Each part names its own mixer, so a block whose
// heads are of different mixers is described and measured head by head as it is.
template <class T>
struct MixerPart {
  const Mixer<T>* mixer = nullptr;
  LayerShape shape;               // the sizes its mixer was built for
  std::vector<int> mixer_slices;  // the model's slices of mixer->parameters(), in their order
  int value_slice = -1;           // its W_v: D×D for a layer, D×(D/h) for a head
  Measured measured = Measured::kAsLayer;
};

// The mixer of each head of a block, in order (layer.heads of them: layer.mixer's for every head,
// or a list's, one per head; model/mixers/registry.hpp, head_mixers); one for a kind without heads.
template <class T>
using HeadMixers = std::vector<const Mixer<T>*>;

// A block on the tape: its input, output and kernel ("fused", "composite", "dense", …), and each
// part's branch in the order of Block::parts: its output and penalty, and M, U, V where recorded
// op by op (a transformer block fused into one op per branch lists no parts).
struct BlockGraph {
  Var input, output;
  std::vector<MixerGraph> parts;
  std::string kernel;
};

// One block of a stack. Its parameters are slices of the model's one buffer, added by its kind's
// build(); the block holds no other state, so copies of a model share their blocks.
template <class T>
class Block {
 public:
  virtual ~Block() = default;
  // The record the analysis reads, filled by the kind's build(): the block's mixer parts in
  // order (ModelGraph's BlockGraph::parts follows the same order when recorded op by op), and
  // the slices of the norm its parts read the stream through (gain, and bias for layernorm), or
  // none.
  std::vector<MixerPart<T>> parts;
  std::vector<int> input_norm;

  // Draws its initial parameters from the model's one initialisation stream (blocks in order).
  virtual void initialize(Model<T>& model, data::Rng& rng) const = 0;
  // Records the block on the stream `h` and returns the stream after it, and appends its
  // BlockGraph to graph.blocks: its input, output and kernel, and recorded op by op each part's
  // MixerGraph (its M, U, V), in the order of `parts`.
  virtual Var record(Tape<T>& tape, Model<T>& model, Var h, bool with_grads, LayerKernels kernels,
                     ModelGraph<T>& graph) const = 0;
};

// A kind of block: one instance each for the whole program (model/block.cpp's registry).
class BlockKind {
 public:
  virtual ~BlockKind() = default;
  virtual std::string name() const = 0;     // the value of model.block
  virtual std::string summary() const = 0;  // one line for the docs

  // --- The config (config/keys.cpp) ---
  // Keys that only this kind reads: given to another kind they are an error, and another kind's
  // config.json does not hold them.
  virtual std::vector<std::string> config_keys() const { return {}; }
  virtual bool takes_tokens() const { return false; }  // token input: the next_token task
  // layer.heads may exceed 1, and layer.mixer may be a list with one mixer per head.
  virtual bool takes_heads() const { return false; }
  virtual bool rank_above_n() const { return false; }  // layer.rank may exceed dataset.n
  virtual int default_rank(int n, int /*width*/, int /*heads*/) const { return n; }
  virtual double default_gate_init() const { return 0.5; }

  // --- Building (model/model.cpp) ---
  // Adds the kind's parameter slices to the model's buffer, in the order its initialisation draws
  // them, and its `model.config.depth` blocks to model.blocks. `mixers` holds each head's mixer
  // (HeadMixers); a kind that does not take heads gets one. Float only: see build_blocks.
  virtual void build(Model<float>& model, const HeadMixers<float>& mixers, bool causal) const = 0;

  // --- What a run needs (model/resource_estimate.hpp): its memory and time per step ---
  // `mixers` holds each head's mixer (registry.hpp, find_head_mixers), null where the config
  // names one the registry does not know (the estimate then assumes the universal layer's sizes).
  virtual ResourceEstimate estimate(const data::DatasetConfig& dataset, const LayerConfig& layer,
                                    const HeadMixers<float>& mixers, const ModelConfig& model,
                                    const TrainingShape& train, int threads,
                                    bool data_from_files) const = 0;

  // --- Describing a run (how it is measured is its blocks' record, MixerPart above) ---
  // True when a stack of depth 1 is Section 8's single layer, which summaries do not name.
  virtual bool single_layer_at_depth_one() const { return false; }
  // The stack in a denoise run's one-line description: ", 2 layers of width 8 (residual)", or ""
  // for the single layer.
  virtual std::string stack_text(const ModelConfig& model, int d) const = 0;
};

// Builds `kind`'s blocks (BlockKind::build). `ufl` trains in float only; double models exist for
// the test suite's finite-difference gradients, so their build, with every double block, module
// and mixer it instantiates, is compiled with the tests (tests/support/double_models.cpp) and
// not into `ufl` (a fifth of its compile time).
inline void build_blocks(const BlockKind& kind, Model<float>& model,
                         const HeadMixers<float>& mixers, bool causal) {
  kind.build(model, mixers, causal);
}
void build_blocks(const BlockKind& kind, Model<double>& model, const HeadMixers<double>& mixers,
                  bool causal);

// The kinds (model/blocks/), for build_blocks.
const BlockKind& mixer_block_kind();
const BlockKind& transformer_block_kind();

// Every kind: the registry's, then any registered while the program runs (BlockKindRegistration).
const std::vector<const BlockKind*>& block_kinds();
const BlockKind* find_block_kind(const std::string& name);
const BlockKind& block_kind(const std::string& name);  // throws std::invalid_argument
std::string block_kind_names();

// Adds a kind defined outside src/ (a test's) to block_kinds() while it lives; the registry's
// own kinds are its lines in model/block.cpp. Its name must be new.
class BlockKindRegistration {
 public:
  explicit BlockKindRegistration(const BlockKind& kind);
  ~BlockKindRegistration();
  BlockKindRegistration(const BlockKindRegistration&) = delete;
  BlockKindRegistration& operator=(const BlockKindRegistration&) = delete;

 private:
  const BlockKind& kind_;
};

// The parameter `index` of `params` as a tape node.
template <class T>
Var parameter_node(Tape<T>& tape, Parameters<T>& params, int index, bool with_grads) {
  const ParameterSlice& slice = params.slice(index);
  return tape.parameter(params.value(index), with_grads ? params.grad(index) : nullptr, slice.rows,
                        slice.cols, slice.name);
}

// Which norm a transformer block uses (model.norm): one record each.
struct NormKind {
  std::string name;  // the value of model.norm
  bool has_bias;     // layernorm: gain and bias; rmsnorm: gain only
};

const std::vector<NormKind>& norm_kinds();
const NormKind* find_norm_kind(const std::string& name);
const NormKind& norm_kind(const std::string& name);  // throws std::invalid_argument
std::string norm_kind_names();

}  // namespace ufl::model
