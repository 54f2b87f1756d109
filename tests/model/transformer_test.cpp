// Transformer blocks (docs/transformer.md §1, §3): the whole model — token and position
// embeddings, pre-norm blocks of heads and MLP, the final norm and the tied unembedding with the
// cross-entropy — differentiated by the tape against central differences in double, for every
// mixer with a causal form and both norms; causal models do not look ahead; float input under
// the denoise task works the same way. Hybrid blocks (docs/transformer.md §9), each head of its
// own mixer, are differentiated the same way, and a list naming one mixer for every head is that
// mixer's block bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "data/rng.hpp"
#include "model/initialize.hpp"
#include "model/mixers/registry.hpp"
#include "model/model.hpp"
#include "model_gradient.hpp"
#include "tape/ops.hpp"
#include "task/loss.hpp"
#include "task/token_ends.hpp"

using namespace ufl;
using namespace ufl::model;
using task::LossGraph;
using task::record_loss;

namespace {

// `mixers`: one mixer for every head, or with more than one name one per head (a hybrid).
template <class T = double>
Model<T> transformer(const std::vector<std::string>& mixers, const std::string& norm, int vocab,
                     int n = 5, int width = 4, int heads = 2, int depth = 2, int mlp_ratio = 2) {
  ModelConfig stack;
  stack.block = "transformer";
  stack.depth = depth;
  stack.width = width;
  stack.norm = norm;
  stack.mlp_ratio = mlp_ratio;
  LayerConfig layer;
  if (mixers.size() == 1) {
    layer.mixer = mixers.front();
  } else {  // as the config holds a list (config/keys.cpp)
    layer.mixer.clear();
    layer.head_mixers = mixers;
  }
  layer.heads = heads;
  layer.rank = width / heads;
  layer.kernel_width = 3;
  // Token input is the next_token task's, causal (task/token_ends.hpp).
  return Model<T>(n, vocab > 0 ? 0 : 3, stack, layer,
                  vocab > 0 ? task::make_token_ends<T>(vocab) : nullptr);
}
Model<double> transformer(const std::string& mixer, const std::string& norm, int vocab, int n = 5,
                          int width = 4, int heads = 2, int depth = 2, int mlp_ratio = 2) {
  return transformer<double>(std::vector<std::string>{mixer}, norm, vocab, n, width, heads, depth,
                             mlp_ratio);
}

// The model's loss on `batch` random samples, recorded with `kernels`: the tied unembedding's
// cross-entropy (tokens) or the MSE (floats). The tape is planned, run forward and backward.
struct Recorded {
  std::unique_ptr<Tape<double>> tape = std::make_unique<Tape<double>>();
  Var loss;
};
Recorded record_loss_of(Model<double>& model, int batch, std::uint64_t seed, LayerKernels kernels) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (double& value : model.params.values) value = 0.5 * rng.normal();
  Recorded recorded;
  Tape<double>& tape = *recorded.tape;
  const ModelGraph<double> graph = record_model(tape, model, batch, true, kernels);
  Var loss;
  std::vector<Var> token_inputs;
  Var target;
  if (model.d == 0) {  // token input (model_of's token ends): the vocabulary is E's rows
    const int vocab = model.params.slice(task::token_table(model)).rows;
    const Var next = tape.input(Shape{batch, model.n, 1}, "next");
    const Var weights = tape.input(Shape{batch, model.n, 1}, "weights");
    const CrossEntropyGraph entropy = task::record_token_loss(tape, graph, next, weights);
    loss = column_mean(tape, entropy.loss, 0, "loss");
    token_inputs = {graph.x, next};
    tape.plan();
    for (Var ids : token_inputs) {
      auto tensor = tape.value(ids);
      for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = double(rng.below(vocab));
    }
    auto w = tape.value(weights);
    for (std::size_t e = 0; e < w.size(); ++e) w.data[e] = e % 3 == 1 ? 0.0 : 1.0;
  } else {
    const LossGraph<double> mse = record_loss(tape, graph, 0.0);
    loss = mse.loss;
    tape.plan();
    for (Var input : {graph.x, mse.target}) {
      auto tensor = tape.value(input);
      for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = rng.normal();
    }
  }
  tape.forward();
  tape.backward(loss);
  recorded.loss = loss;
  return recorded;
}

// Its relative gradient error over every parameter, against central differences.
double gradient_error(Model<double> model, int batch, std::uint64_t seed,
                      LayerKernels kernels = LayerKernels::kFused) {
  Recorded recorded = record_loss_of(model, batch, seed, kernels);
  return testing::parameter_gradient_error(model.params, *recorded.tape, recorded.loss);
}

// The fused blocks' loss and gradients against the composite graph's: the same formulas in
// another order, so equal to rounding in double.
void check_fused_equals_composite(Model<double> model, int batch, std::uint64_t seed) {
  Model<double> copy = model;
  Recorded composite = record_loss_of(model, batch, seed, LayerKernels::kComposite);
  const std::vector<double> composite_grads = model.params.grads;
  Recorded fused = record_loss_of(copy, batch, seed, LayerKernels::kFused);
  const double loss = composite.tape->value(composite.loss).data[0];
  CHECK(fused.tape->value(fused.loss).data[0] == doctest::Approx(loss).epsilon(1e-12));
  double difference = 0, size = 0;
  for (std::size_t e = 0; e < composite_grads.size(); ++e) {
    difference = std::max(difference, std::abs(copy.params.grads[e] - composite_grads[e]));
    size = std::max(size, std::abs(composite_grads[e]));
  }
  CHECK(size > 0);
  CHECK(difference <= 1e-12 * size);
}

// The final norm's output for one window of tokens.
Eigen::MatrixXd outputs(Model<double>& model, const std::vector<int>& tokens,
                        LayerKernels kernels) {
  Tape<double> tape;
  const ModelGraph<double> graph = record_model(tape, model, 1, false, kernels);
  tape.plan();
  for (int i = 0; i < model.n; ++i) tape.value(graph.x).data[i] = tokens[i];
  tape.forward();
  return tape.value(graph.y).view(0);
}

}  // namespace

TEST_CASE("next_token: every causal mixer's transformer has exact gradients, both norms") {
  for (const Mixer<double>* mixer : mixers<double>()) {
    if (!mixer->has_causal_form()) continue;
    for (const char* norm : {"layernorm", "rmsnorm"})
      for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
        CAPTURE(std::string(mixer->name()));
        CAPTURE(norm);
        CAPTURE(kernels == LayerKernels::kFused);
        CHECK(gradient_error(transformer(std::string(mixer->name()), norm, 7), 3, 21, kernels) <=
              1e-6);
      }
  }
}

TEST_CASE("fused blocks compute the composite graph's loss and gradients, for every mixer") {
  for (const Mixer<double>* mixer : mixers<double>())
    for (bool causal : {true, false}) {
      if (causal && !mixer->has_causal_form()) continue;
      for (const char* norm : {"layernorm", "rmsnorm"}) {
        CAPTURE(std::string(mixer->name()));
        CAPTURE(causal);
        CAPTURE(norm);
        check_fused_equals_composite(
            transformer(std::string(mixer->name()), norm, causal ? 7 : 0, 6, 4, 2, 2), 3, 31);
      }
    }
}

TEST_CASE("one head and one block: exact gradients too") {
  Model<double> model = transformer("universal", "layernorm", 6, 4, 4, 1, 1);
  CHECK(gradient_error(std::move(model), 2, 5) <= 1e-6);
}

TEST_CASE("denoise with transformer blocks (float input, no embedding or head): exact gradients") {
  for (const char* mixer : {"universal", "attention", "fourier"})
    for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
      CAPTURE(mixer);
      CHECK(gradient_error(transformer(mixer, "layernorm", 0, 6, 4, 2, 2), 2, 9, kernels) <= 1e-6);
    }
}

TEST_CASE("a causal model's output at position i does not change when later tokens change") {
  for (const Mixer<double>* mixer : mixers<double>()) {
    if (!mixer->has_causal_form()) continue;
    CAPTURE(std::string(mixer->name()));
    Model<double> model = transformer(std::string(mixer->name()), "layernorm", 9, 8, 4, 2, 2);
    data::Rng rng(3, data::Stream::kMonteCarlo);
    for (double& value : model.params.values) value = 0.5 * rng.normal();
    const std::vector<int> tokens = {1, 4, 2, 8, 0, 5, 7, 3};
    for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
      CAPTURE(kernels == LayerKernels::kFused);
      const Eigen::MatrixXd base = outputs(model, tokens, kernels);
      for (int changed = 1; changed < 8; ++changed) {
        std::vector<int> other = tokens;
        for (int j = changed; j < 8; ++j) other[j] = (other[j] + 1 + j) % 9;
        const Eigen::MatrixXd moved = outputs(model, other, kernels);
        CAPTURE(changed);
        // Positions before the change see the same tokens: bit-identical outputs.
        CHECK(base.topRows(changed) == moved.topRows(changed));
        // And the change does reach the positions that can see it.
        CHECK((base.bottomRows(8 - changed) - moved.bottomRows(8 - changed)).norm() > 0);
      }
    }
  }
}

TEST_CASE("transformer parameters: names per block and head, GPT-2 initialisation") {
  Model<double> model = transformer("attention", "layernorm", 10, 6, 8, 2, 3);
  initialize(model, 1);
  std::vector<std::string> names;
  for (const ParameterSlice& slice : model.params.slices) names.push_back(slice.name);
  CHECK(names.front() == "E");
  CHECK(names[1] == "P");
  CHECK(std::find(names.begin(), names.end(), "block2/head1/W_q") != names.end());
  CHECK(std::find(names.begin(), names.end(), "block3/W_o") != names.end());
  CHECK(std::find(names.begin(), names.end(), "block1/mlp/W_1") == names.end());
  CHECK(std::find(names.begin(), names.end(), "block1/W_1") != names.end());
  CHECK(names.back() == "final_norm_bias");
  for (const ParameterSlice& slice : model.params.slices) {
    const ConstMatrixMap<double> values =
        std::as_const(model.params).matrix(int(&slice - model.params.slices.data()));
    if (slice.tensor.find("gain") != std::string::npos) CHECK(values.isOnes());
    if (slice.tensor.find("bias") != std::string::npos || slice.tensor.rfind("b_", 0) == 0)
      CHECK(values.isZero());
    if (slice.tensor == "E" || slice.tensor == "W_1") {
      const double std = std::sqrt(values.squaredNorm() / double(values.size()));
      CHECK(std == doctest::Approx(0.02).epsilon(0.25));
    }
    if (slice.tensor == "W_o" || slice.tensor == "W_2") {  // 0.02/√(2L), L = 3
      const double std = std::sqrt(values.squaredNorm() / double(values.size()));
      CHECK(std == doctest::Approx(0.02 / std::sqrt(6.0)).epsilon(0.35));
    }
  }
}

TEST_CASE("model.mlp_ratio 0: heads-only blocks, no MLP or second norm, exact gradients") {
  Model<double> model = transformer("attention", "layernorm", 10, 6, 8, 2, 2, 0);
  std::vector<std::string> names;
  for (const ParameterSlice& slice : model.params.slices) names.push_back(slice.name);
  for (const char* absent : {"block1/W_1", "block1/b_2", "block2/norm2_gain"})
    CHECK(std::find(names.begin(), names.end(), absent) == names.end());
  CHECK(std::find(names.begin(), names.end(), "block2/W_o") != names.end());
  // E, P, per block norm1's gain and bias, 2 heads' W_q, W_k, W_v, and W_o; the final norm's 2.
  CHECK(names.size() == 2 + 2 * (2 + 2 * 3 + 1) + 2);
  for (const char* mixer : {"attention", "universal"})
    for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
      CAPTURE(mixer);
      CHECK(gradient_error(transformer(mixer, "layernorm", 7, 5, 4, 2, 2, 0), 3, 21, kernels) <=
            1e-6);
    }
}

TEST_CASE("universal heads start with softplus(s) = 1 and γ = layer.gate_init") {
  for (double gate : {0.5, 0.95}) {
    ModelConfig stack;
    stack.block = "transformer";
    stack.width = 8;
    LayerConfig layer;
    layer.heads = 2;
    layer.rank = 4;
    layer.gate_init = gate;
    Model<double> model(6, 0, stack, layer, task::make_token_ends<double>(10));
    initialize(model, 2);
    int gates = 0;
    for (const ParameterSlice& slice : model.params.slices) {
      const ConstMatrixMap<double> values =
          std::as_const(model.params).matrix(int(&slice - model.params.slices.data()));
      if (slice.tensor == "head1/s")
        CHECK(std::log1p(std::exp(values(0, 0))) == doctest::Approx(1));
      if (slice.tensor == "head1/g" || slice.tensor == "head2/g") {
        CHECK(1 / (1 + std::exp(-values(0, 0))) == doctest::Approx(gate).epsilon(1e-12));
        ++gates;
      }
    }
    CHECK(gates == 2);
  }
}

// The gradients of the gate logits g and of Σ's s through the fused heads kernel, each against
// central differences on its own scale (the whole model's check measures the error against the
// largest gradient of any parameter, which a small gate gradient could hide under), with the gate
// nearly closed, half open and nearly open.
TEST_CASE("fused universal heads: the gate's and Σ's gradients match finite differences") {
  for (double gate_logit : {-3.0, 0.0, 3.0}) {
    CAPTURE(gate_logit);
    Model<double> model = transformer("universal", "layernorm", 7, 6, 8, 2, 2);
    Recorded recorded = record_loss_of(model, 3, 41, LayerKernels::kFused);
    for (const ParameterSlice& slice : model.params.slices)
      if (slice.tensor.ends_with("/g")) model.params.values[slice.offset] = gate_logit;
    Tape<double>& tape = *recorded.tape;
    std::fill(model.params.grads.begin(), model.params.grads.end(), 0.0);
    tape.forward();
    tape.backward(recorded.loss);
    int checked = 0;
    for (const ParameterSlice& slice : model.params.slices) {
      if (!slice.tensor.ends_with("/g") && !slice.tensor.ends_with("/s")) continue;
      CAPTURE(slice.name);
      double error = 0, size = 0;
      for (std::size_t e = slice.offset; e < slice.offset + slice.size(); ++e) {
        const double original = model.params.values[e], step = 1e-6;
        model.params.values[e] = original + step;
        tape.forward();
        const double plus = tape.value(recorded.loss).data[0];
        model.params.values[e] = original - step;
        tape.forward();
        const double minus = tape.value(recorded.loss).data[0];
        model.params.values[e] = original;
        const double numeric = (plus - minus) / (2 * step);
        error = std::max(error, std::abs(numeric - model.params.grads[e]));
        size = std::max(size, std::abs(numeric));
      }
      CHECK(size > 1e-8);  // the gradient is not trivially zero
      CHECK(error <= 1e-6 * size);
      ++checked;
    }
    CHECK(checked == 8);  // g and s of 2 heads in 2 blocks
  }
}

// --- Hybrid blocks (docs/transformer.md §9): a mixer per head ---

namespace {

// Every registered mixer with a causal form, by name.
std::vector<std::string> causal_mixer_names() {
  std::vector<std::string> names;
  for (const Mixer<double>* mixer : mixers<double>())
    if (mixer->has_causal_form()) names.emplace_back(mixer->name());
  return names;
}

// A float token model's loss and gradients after initialize(seed), on fixed tokens, recorded fused:
// what `ufl train` computes at its first step.
struct FloatStep {
  std::vector<float> values, grads;
  float loss;
};
FloatStep first_step(Model<float> model, std::uint64_t seed) {
  initialize(model, seed);
  Tape<float> tape;
  const ModelGraph<float> graph = record_model(tape, model, 3, true, LayerKernels::kFused);
  const Var next = tape.input(Shape{3, model.n, 1}, "next");
  const Var weights = tape.input(Shape{3, model.n, 1}, "weights");
  const Var loss =
      column_mean(tape, task::record_token_loss(tape, graph, next, weights).loss, 0, "loss");
  tape.plan();
  const int vocab = model.params.slice(task::token_table(model)).rows;
  for (Var ids : {graph.x, next}) {
    auto tensor = tape.value(ids);
    for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = float((7 * e + 3) % vocab);
  }
  auto w = tape.value(weights);
  for (std::size_t e = 0; e < w.size(); ++e) w.data[e] = 1.0f;
  tape.forward();
  tape.backward(loss);
  return {model.params.values, model.params.grads, tape.value(loss).data[0]};
}

}  // namespace

TEST_CASE("hybrid blocks have exact gradients, fused and op by op, in any order of heads") {
  const std::vector<std::vector<std::string>> lists = {
      {"attention", "convolution"},
      {"convolution", "attention"},
      {"universal", "attention", "distance", "convolution"},
      {"lowrank", "universal", "linear", "convolution"},
  };
  for (const std::vector<std::string>& list : lists)
    for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
      CAPTURE(list.front());
      CAPTURE(list.back());
      CAPTURE(list.size());
      CAPTURE(kernels == LayerKernels::kFused);
      const int heads = int(list.size());
      CHECK(gradient_error(transformer(list, "layernorm", 7, 5, 4, heads, 2), 3, 21, kernels) <=
            1e-6);
    }
  // Every causal mixer at once, one head each, under rmsnorm.
  const std::vector<std::string> every = causal_mixer_names();
  const int heads = int(every.size());
  CHECK(gradient_error(transformer(every, "rmsnorm", 7, 5, heads, heads, 1), 2, 5) <= 1e-6);
}

TEST_CASE("a hybrid block's fused op computes its composite graph's loss and gradients") {
  // Causal (tokens) with every causal mixer; without a mask (denoise) fourier may be a head too.
  const std::vector<std::string> causal = causal_mixer_names();
  check_fused_equals_composite(
      transformer(causal, "layernorm", 7, 6, int(causal.size()), int(causal.size()), 2), 3, 31);
  std::vector<std::string> every;
  for (const Mixer<double>* mixer : mixers<double>()) every.emplace_back(mixer->name());
  check_fused_equals_composite(
      transformer(every, "rmsnorm", 0, 6, int(every.size()), int(every.size()), 2), 3, 31);
}

TEST_CASE("each head of a hybrid block is its own mixer's part, measured as a head") {
  const std::vector<std::string> list = {"attention", "convolution", "universal", "convolution"};
  const Model<double> model = transformer(list, "layernorm", 7, 6, 8, 4, 2);
  for (int l = 0; l < 2; ++l) {
    REQUIRE(model.blocks[l]->parts.size() == 4);
    for (int k = 0; k < 4; ++k) {
      CAPTURE(k);
      const MixerPart<double>& part = model.part(l, k);
      CHECK(part.mixer->name() == list[k]);
      CHECK(part.measured == Measured::kAsHead);
      CHECK(part.mixer_slices.size() ==
            part.mixer->parameters(part.shape, model.layer_config).size());
      const std::string head = "block" + std::to_string(l + 1) + "/head" + std::to_string(k + 1);
      CHECK(model.params.slice(part.value_slice).name == head + "/W_v");
      for (int slice : part.mixer_slices)
        CHECK(model.params.slice(slice).name.rfind(head + "/", 0) == 0);
    }
  }
  // The convolution heads have taps, the score heads W_q (attention) or A (universal).
  std::vector<std::string> names;
  for (const ParameterSlice& slice : model.params.slices) names.push_back(slice.name);
  for (const char* name : {"block1/head1/W_q", "block1/head2/taps", "block1/head3/A",
                           "block2/head4/taps", "block2/W_o"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), name) != names.end(), name);
}

TEST_CASE("a list naming one mixer for every head is that mixer's block, bit for bit") {
  for (const Mixer<double>* mixer : mixers<double>()) {
    const std::string name(mixer->name());
    CAPTURE(name);
    const int vocab = mixer->has_causal_form() ? 9 : 0;
    // Double: the same slices and, from the same values, the same loss and gradients.
    const Model<double> one = transformer(name, "layernorm", vocab, 6, 8, 4, 2);
    const Model<double> listed =
        transformer(std::vector<std::string>(4, name), "layernorm", vocab, 6, 8, 4, 2);
    REQUIRE(one.params.slices.size() == listed.params.slices.size());
    for (std::size_t k = 0; k < one.params.slices.size(); ++k)
      CHECK(one.params.slices[k].name == listed.params.slices[k].name);
    for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
      Model<double> a = one, b = listed;
      Recorded left = record_loss_of(a, 3, 17, kernels), right = record_loss_of(b, 3, 17, kernels);
      CHECK(left.tape->value(left.loss).data[0] == right.tape->value(right.loss).data[0]);
      CHECK(a.params.grads == b.params.grads);
    }
    if (!mixer->has_causal_form()) continue;
    // Float, as ufl trains: the same seed gives the same parameters, loss and gradients.
    const FloatStep single = first_step(transformer<float>({name}, "layernorm", 9, 6, 8, 4, 2), 5);
    const FloatStep each = first_step(
        transformer<float>(std::vector<std::string>(4, name), "layernorm", 9, 6, 8, 4, 2), 5);
    CHECK(single.values == each.values);
    CHECK(single.loss == each.loss);
    CHECK(single.grads == each.grads);
  }
}

TEST_CASE("a hybrid's parameters are its heads': each head its mixer's and W_v") {
  const int width = 8, heads = 4, depth = 2;
  const std::vector<std::string> list = {"attention", "attention", "convolution", "convolution"};
  const Model<double> hybrid = transformer(list, "layernorm", 9, 6, width, heads, depth);
  const Model<double> attention = transformer("attention", "layernorm", 9, 6, width, heads, depth);
  const Model<double> convolution =
      transformer("convolution", "layernorm", 9, 6, width, heads, depth);
  // Per block, the heads' slices hold exactly their mixers' parameters and W_v (D × D/h).
  std::size_t heads_total = 0;
  for (int k = 0; k < heads; ++k) {
    const MixerPart<double>& part = hybrid.part(0, k);
    std::size_t own = 0;
    for (const TensorSpec& spec : part.mixer->parameters(part.shape, hybrid.layer_config))
      own += std::size_t(spec.rows) * spec.cols;
    std::size_t sliced = hybrid.params.slice(part.value_slice).size();
    for (int slice : part.mixer_slices) sliced += hybrid.params.slice(slice).size();
    CHECK(sliced == own + std::size_t(width) * (width / heads));
    heads_total += sliced;
  }
  // Everything else (embeddings, norms, W_o, MLP) is shared, so two attention and two convolution
  // heads sit halfway between four of either.
  const std::size_t h = hybrid.params.values.size(), a = attention.params.values.size(),
                    c = convolution.params.values.size();
  CHECK(2 * h == a + c);
  std::size_t attention_heads = 0;
  for (int k = 0; k < heads; ++k) {
    attention_heads += attention.params.slice(attention.part(0, k).value_slice).size();
    for (int slice : attention.part(0, k).mixer_slices)
      attention_heads += attention.params.slice(slice).size();
  }
  CHECK(a - h == depth * (attention_heads - heads_total));
}
