// ufl_step_bench: times one training step of a layer (the universal factorization layer of spec
// §2, or another mixer with --mixer), exactly as train::train_session runs a task::DenoiseSession:
//   copy a minibatch into the tape's inputs, tape.forward(), tape.backward(loss), Adam step.
// Prints one JSON line:
//   {"impl":"ufl","mixer":..,"n":..,"d":..,"r":..,"batch":..,"threads":..,"ms_per_step":..,
//    "gflops":..,
//    "flops_per_step":..,...}
// ms_per_step is the median over `repeats` timed runs of `steps` steps each (after warm-up).
//
// Only the public pieces of ufl are used (model::Model, model::initialize,
// model::record_model, task::record_loss, Tape::forward/backward/value, train::Adam,
// data::generate), so the benchmark keeps working when the tape's internals are rewritten.
//
// --dump DIR (with --steps K) instead runs K steps from a fixed start and writes raw little-endian
// files that bench/torch_peer.py --compare DIR replays in PyTorch to check that both
// implementations compute the same thing (see bench/README.md).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/dataset_config.hpp"
#include "model/initialize.hpp"
#include "model/mixers/registry.hpp"
#include "model/mixers/universal_structured.hpp"
#include "options.hpp"
#include "tape/tape.hpp"
#include "task/loss.hpp"
#include "train/adam.hpp"
#include "train/schedule.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int n = 32, d = 16, r = 0, batch = 64, threads = 1;
  int depth = 1, width = 0;  // the stack (spec section7.md §1): L layers on a stream of width D
  bool residual = false;     // (width 0 = d); depth 1, D = d, no residual is the single layer
  int steps = 0;             // steps per timed repeat; 0 = choose so the repeats take ~`seconds`
  int warmup = -1;           // warm-up steps; -1 = run for `warmup_seconds`
  int repeats = 5;           // timed repeats (fewer when one step alone exceeds the budget)
  double seconds = 1.5, warmup_seconds = 0.25;
  int pool = 0;               // training samples to draw minibatches from; 0 = max(4·batch, 256)
  int schedule_steps = 6000;  // T of the cosine schedule (spec default); does not affect speed
  double lr = 1e-2, lr_final = 1e-4, ortho_weight = 0.01;
  std::uint64_t seed = 1;
  std::string dump;                 // --dump DIR: write a replayable trace instead of timing
  std::string mixer = "universal";  // layer.mixer
  int kernel_width = 5;             // layer.kernel_width (convolution)
  std::string kernel = "auto";      // universal: auto (the cost model's choice), dense, structured
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(
      stderr,
      "ufl_step_bench: %s\n"
      "usage: ufl_step_bench [--n N] [--d D] [--r R (default n)] [--batch B] [--threads T]\n"
      "                      [--steps S (0 = auto)] [--warmup W (-1 = auto)] [--repeats R]\n"
      "                      [--seconds SEC] [--pool P] [--seed S] [--dump DIR]\n"
      "                      [--mixer NAME (default universal)] [--kernel-width W]\n"
      "                      [--kernel auto|dense|structured]\n"
      "                      [--depth L] [--width D (default d)] [--residual 0|1]\n",
      problem.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  ufl::bench::read_options(
      argc, argv, true,
      [&](const std::string& key, const std::string& value) {
        if (key == "--n")
          o.n = std::stoi(value);
        else if (key == "--d")
          o.d = std::stoi(value);
        else if (key == "--r")
          o.r = std::stoi(value);
        else if (key == "--batch")
          o.batch = std::stoi(value);
        else if (key == "--threads")
          o.threads = std::stoi(value);
        else if (key == "--steps")
          o.steps = std::stoi(value);
        else if (key == "--warmup")
          o.warmup = std::stoi(value);
        else if (key == "--repeats")
          o.repeats = std::stoi(value);
        else if (key == "--seconds")
          o.seconds = std::stod(value);
        else if (key == "--pool")
          o.pool = std::stoi(value);
        else if (key == "--seed")
          o.seed = std::stoull(value);
        else if (key == "--depth")
          o.depth = std::stoi(value);
        else if (key == "--width")
          o.width = std::stoi(value);
        else if (key == "--residual")
          o.residual = std::stoi(value) != 0;
        else if (key == "--dump")
          o.dump = value;
        else if (key == "--kernel")
          o.kernel = value;
        else if (key == "--mixer")
          o.mixer = value;
        else if (key == "--kernel-width")
          o.kernel_width = std::stoi(value);
        else
          return false;
        return true;
      },
      usage);
  if (o.r <= 0) o.r = o.n;
  if (o.width <= 0) o.width = o.d;
  if (o.depth < 1 || o.width < o.d) usage("need depth >= 1 and width >= d");
  if (!o.dump.empty() && (o.depth != 1 || o.width != o.d || o.residual))
    usage("--dump replays the single layer only (torch_peer.py has no stack)");
  if (o.pool <= 0) o.pool = std::max(4 * o.batch, 256);
  if (o.n < 2 || o.d < 1 || o.r < 1 || o.batch < 1 || o.threads < 1 || o.repeats < 1 ||
      o.pool < o.batch)
    usage("sizes must be positive (n >= 2, pool >= batch)");
  if (o.kernel != "auto" && o.kernel != "dense" && o.kernel != "structured")
    usage("--kernel must be auto, dense or structured");
  if (ufl::model::find_mixer<float>(o.mixer) == nullptr)
    usage("unknown mixer '" + o.mixer + "' (one of " + ufl::model::mixer_names() + ")");
  if (!o.dump.empty() && o.mixer != "universal")
    usage("--dump replays the universal layer only (torch_peer.py implements that one)");
  return o;
}

// FLOPs of the matrix products ufl performs in one training step, 2·m·n·k per product of an
// m×k by a k×n matrix (elementwise work — softplus, sigmoid, softmax, lerp, the squared errors,
// sums over the batch, Adam — is not counted), for the kernel the step runs
// (model::universal_kernel_cost, src/model/mixers/universal_structured.hpp):
//   dense:      per sample 8ndr + 6n²r + 4n²d + 6nd² + 8nr² (r = n: 14n³ + 12n²d + 6nd²); the
//               products are U, V = X·A_c, X·B_c; S = (UΣ)Vᵀ; MX; Y; the Gram matrices UᵀU, VᵀV,
//               and their backward (one product per Gram gradient: UᵀU − I is symmetric);
//   structured: per sample 82nd² + 20n²d, plus 18(n+d)²r per step for the blocks of Ω, Φ, Ψ and
//               their backward.
// torch's autograd forms the gradient of each Gram operand separately (12nr²); torch_peer.py
// counts its own.
//
// The input-independent mixers (convolution, fourier, lowrank, linear) apply one n×n matrix M to
// every sample: forward MX = M·X (2n²d), Y = MX·W_v (2nd²); backward dMX = dY·W_vᵀ (2nd²),
// dW_v = MXᵀ·dY (2nd²), dM = dMX·Xᵀ (2n²d): 4n²d + 6nd² per sample, plus building M once per
// step (at most 2n²r for lowrank, not counted).
double flops_per_step(long long n, long long d, long long r, long long batch,
                      const std::string& kernel, bool input_dependent) {
  if (!input_dependent) return double(batch) * double(4 * n * n * d + 6 * n * d * d);
  const ufl::model::KernelCost cost = ufl::model::universal_kernel_cost(n, d, r, false);
  if (kernel == "structured")
    return double(batch) * cost.structured_per_sample + cost.structured_per_step;
  return double(batch) * cost.dense_per_sample;
}

// Minibatches as the trainer draws them: a shuffled order over the pool, reshuffled each epoch.
class Sampler {
 public:
  Sampler(int size, std::uint64_t seed) : rng_(seed), order_(size) { reshuffle(); }
  int next() {
    if (position_ == order_.size()) reshuffle();
    return order_[position_++];
  }

 private:
  void reshuffle() {
    std::iota(order_.begin(), order_.end(), 0);
    std::shuffle(order_.begin(), order_.end(), rng_);
    position_ = 0;
  }
  std::mt19937_64 rng_;
  std::vector<int> order_;
  std::size_t position_ = 0;
};

struct Bench {
  Options options;
  ufl::data::Dataset dataset;
  ufl::model::Model<float> model;
  ufl::Tape<float> tape;
  ufl::model::ModelGraph<float> graph;
  ufl::task::LossGraph<float> loss;
  ufl::train::Adam adam;
  Sampler sampler;
  std::size_t sample_floats;
  float *inputs = nullptr, *targets = nullptr;
  int step_count = 0;
  std::vector<int> used_indices;  // recorded only for --dump
  bool record_indices = false;

  static ufl::model::LayerKernels kernels_of(const std::string& kernel) {
    if (kernel == "dense") return ufl::model::LayerKernels::kDense;
    if (kernel == "structured") return ufl::model::LayerKernels::kStructured;
    return ufl::model::LayerKernels::kFused;  // the cost model chooses
  }

  static ufl::model::LayerConfig layer_config(const Options& o) {
    ufl::model::LayerConfig layer;
    layer.mixer = o.mixer;
    layer.rank = o.r;
    layer.kernel_width = o.kernel_width;
    return layer;
  }

  static ufl::model::ModelConfig model_config(const Options& o) {
    ufl::model::ModelConfig stack;
    stack.depth = o.depth;
    stack.width = o.width;
    stack.residual = o.residual;
    return stack;
  }

  static ufl::data::Dataset make_data(const Options& o) {
    ufl::data::DatasetConfig spec;
    spec.kind = "local";
    spec.n = o.n;
    spec.d = o.d;
    spec.train_size = o.pool;
    spec.test_size = 1;
    return ufl::data::generate(spec, o.seed);
  }

  explicit Bench(const Options& o)
      : options(o),
        dataset(make_data(o)),
        model(o.n, o.d, model_config(o), layer_config(o)),
        adam(0),
        sampler(o.pool, o.seed + 1000),
        sample_floats(static_cast<std::size_t>(o.n) * o.d) {
    ufl::model::initialize(model, o.seed);
    graph = ufl::model::record_model(tape, model, o.batch, true, kernels_of(o.kernel));
    loss = ufl::task::record_loss(tape, graph, o.ortho_weight);
    tape.plan();
    adam = ufl::train::Adam(model.params.values.size());
    inputs = tape.value(graph.x).data;
    targets = tape.value(loss.target).data;
  }

  // One training step, as in train_layer (without its logging, evaluation and divergence checks).
  float step() {
    const ufl::data::SampleSet& train = dataset.train;
    for (int s = 0; s < options.batch; ++s) {
      const int index = sampler.next();
      if (record_indices) used_indices.push_back(index);
      std::memcpy(inputs + s * sample_floats, train.input(index), sample_floats * sizeof(float));
      std::memcpy(targets + s * sample_floats, train.target(index), sample_floats * sizeof(float));
    }
    tape.forward();
    const float value = tape.value(loss.loss).data[0];
    tape.backward(loss.loss);
    const double lr = ufl::train::cosine_learning_rate(
        step_count % options.schedule_steps, options.schedule_steps, options.lr, options.lr_final);
    adam.step(model.params.values.data(), model.params.grads.data(), lr);
    ++step_count;
    return value;
  }
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <class T>
void write_raw(const std::filesystem::path& path, const std::vector<T>& values) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error("cannot write " + path.string());
  const std::size_t written = std::fwrite(values.data(), sizeof(T), values.size(), file);
  std::fclose(file);
  if (written != values.size()) throw std::runtime_error("short write to " + path.string());
}

// Runs `steps` steps from the initial parameters and writes everything needed to replay them:
// meta.json, params0.f32 (A, B, s, g, W_v row-major, in this order), inputs.f32 / targets.f32
// (pool×n×d), indices.i32 (steps×batch), losses.f32 (loss of each step, before its update),
// params_final.f32.
int dump(const Options& o) {
  const int steps = o.steps > 0 ? o.steps : 5;
  Bench bench(o);
  bench.record_indices = true;
  const std::filesystem::path dir = o.dump;
  std::filesystem::create_directories(dir);
  write_raw(dir / "params0.f32", bench.model.params.values);
  write_raw(dir / "inputs.f32", bench.dataset.train.inputs);
  write_raw(dir / "targets.f32", bench.dataset.train.targets);
  std::vector<float> losses;
  for (int k = 0; k < steps; ++k) losses.push_back(bench.step());
  write_raw(dir / "indices.i32", bench.used_indices);
  write_raw(dir / "losses.f32", losses);
  write_raw(dir / "params_final.f32", bench.model.params.values);
  std::FILE* meta = std::fopen((dir / "meta.json").c_str(), "w");
  if (meta == nullptr) throw std::runtime_error("cannot write meta.json");
  std::fprintf(meta,
               "{\"n\":%d,\"d\":%d,\"r\":%d,\"batch\":%d,\"pool\":%d,\"steps\":%d,"
               "\"lr\":%g,\"lr_final\":%g,\"schedule_steps\":%d,\"ortho_weight\":%g}\n",
               o.n, o.d, o.r, o.batch, o.pool, steps, o.lr, o.lr_final, o.schedule_steps,
               o.ortho_weight);
  std::fclose(meta);
  std::printf("wrote %d steps to %s (first loss %.6f, last loss %.6f)\n", steps, o.dump.c_str(),
              losses.front(), losses.back());
  return 0;
}

int run(const Options& o) {
  Bench bench(o);

  // Warm-up: a fixed count, or until warmup_seconds have passed (at least one step).
  const auto warm_start = Clock::now();
  int warm_steps = 0;
  if (o.warmup >= 0) {
    for (; warm_steps < o.warmup; ++warm_steps) bench.step();
  } else {
    do {
      bench.step();
      ++warm_steps;
    } while (seconds_since(warm_start) < o.warmup_seconds);
  }
  double estimate = warm_steps > 0 ? seconds_since(warm_start) / warm_steps : 0.0;
  if (warm_steps == 0) {
    const auto start = Clock::now();
    bench.step();
    estimate = seconds_since(start);
  }

  // Steps per repeat: given, or chosen so that all repeats together take about `seconds`.
  int repeats = o.repeats, steps = o.steps;
  if (steps <= 0) {
    const double budget = o.seconds;
    repeats = std::clamp(int(budget / std::max(estimate, 1e-9)), 1, o.repeats);
    steps = std::max(1, int(budget / repeats / std::max(estimate, 1e-9) + 0.5));
  }

  std::vector<double> ms_per_step;
  for (int k = 0; k < repeats; ++k) {
    const auto start = Clock::now();
    for (int s = 0; s < steps; ++s) bench.step();
    ms_per_step.push_back(seconds_since(start) * 1e3 / steps);
  }
  std::vector<double> sorted = ms_per_step;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2 == 1
                            ? sorted[sorted.size() / 2]
                            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  // "variant": the kernel this step ran; "auto_kernel": the one `ufl train` would choose here.
  // A stack: each layer's products at the stream's width D. The gradients with respect to the
  // layers' inputs (dH, layers 2…L) are not counted, so gflops understates a stack's rate a bit.
  const std::string kernel = bench.graph.blocks.front().kernel;
  const bool input_dependent = bench.model.part(0).mixer->input_dependent();
  const char* auto_kernel = !input_dependent ? kernel.c_str()
                            : ufl::model::structured_pays(o.n, o.width, o.r, o.batch, o.depth > 1)
                                ? "structured"
                                : "dense";
  const double flops =
      o.depth * flops_per_step(o.n, o.width, o.r, o.batch, kernel, input_dependent);
  const float final_loss = bench.tape.value(bench.loss.loss).data[0];

  std::printf(
      "{\"impl\":\"ufl\",\"variant\":\"%s\",\"auto_kernel\":\"%s\",\"mixer\":\"%s\",\"n\":%d,"
      "\"d\":%d,\"r\":%d,\"batch\":%d,\"threads\":%d,\"depth\":%d,\"width\":%d,\"residual\":%s,"
      "\"ms_per_step\":%.6g,\"ms_min\":%.6g,\"ms_max\":%.6g,\"gflops\":%.6g,"
      "\"flops_per_step\":%.0f,\"steps\":%d,\"repeats\":%d,\"warmup\":%d,\"loss\":%.6g}\n",
      kernel.c_str(), auto_kernel, o.mixer.c_str(), o.n, o.d, o.r, o.batch, o.threads, o.depth,
      o.width, o.residual ? "true" : "false", median, sorted.front(), sorted.back(),
      flops / (median * 1e-3) / 1e9, flops, steps, repeats, warm_steps, final_loss);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  omp_set_num_threads(options.threads);
  try {
    return options.dump.empty() ? run(options) : dump(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ufl_step_bench: %s\n", error.what());
    return 1;
  }
}
