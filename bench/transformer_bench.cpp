// ufl_transformer_bench: times one training step of a transformer (docs/transformer.md), exactly
// as `ufl train` runs it: a minibatch of windows loaded into the tape, forward, backward, gradient
// clipping and the AdamW update. The model, the data and the training rule come from a config
// (default configs/transformer/text.json, the reference configuration) with `--set` overrides,
// through the same loader as `ufl train`; the data are the config's corpus (its vocabulary sets
// the head's size). Prints one JSON line:
//   {"impl":"ufl","mixer":..,"n":..,"width":..,"depth":..,"heads":..,"batch":..,"vocab":..,
//    "threads":..,"kernels":..,"ms_per_step":..,"flops_per_step":..,"gflops":..,"parameters":..}
// ms_per_step is the median over `repeats` timed runs of `steps` steps each (after a warm-up).
// flops_per_step counts the model's matrix products, 2·m·k·n each, forward and backward (twice
// the forward), at full n×n for the scores, as torch_peer.py counts its own (bench/README.md).
#include <omp.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "config/load.hpp"
#include "data/tokens.hpp"
#include "io/available_memory.hpp"
#include "model/initialize.hpp"
#include "model/mixers/registry.hpp"
#include "options.hpp"
#include "task/next_token_session.hpp"
#include "train/adam.hpp"
#include "train/clip.hpp"
#include "train/minibatch_sampler.hpp"
#include "train/schedule.hpp"
#include "train/trainer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string config = "configs/transformer/text.json";
  std::vector<std::string> sets;
  int threads = 1, repeats = 5, steps = 0;
  double seconds = 3.0;
  std::string kernels = "fused";
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ufl_transformer_bench: %s\n"
               "usage: ufl_transformer_bench [--config FILE] [--set key=value ...] [--threads T]\n"
               "                             [--seconds S] [--repeats R] [--steps K]\n"
               "                             [--kernels fused|composite]\n"
               "e.g. --set layer.mixer=attention --set model.width=256 --set dataset.n=256\n",
               problem.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  ufl::bench::read_options(
      argc, argv, true,
      [&](const std::string& key, const std::string& value) {
        if (key == "--config")
          o.config = value;
        else if (key == "--set")
          o.sets.push_back(value);
        else if (key == "--threads")
          o.threads = std::stoi(value);
        else if (key == "--seconds")
          o.seconds = std::stod(value);
        else if (key == "--repeats")
          o.repeats = std::stoi(value);
        else if (key == "--steps")
          o.steps = std::stoi(value);
        else if (key == "--kernels")
          o.kernels = value;
        else
          return false;
        return true;
      },
      usage);
  if (o.kernels != "fused" && o.kernels != "composite") usage("--kernels: fused or composite");
  return o;
}

// The matrix products of one step, forward and backward (2× forward), for the whole batch.
double flops_per_step(const ufl::config::Config& c, int vocab, bool scores) {
  const double n = c.dataset.n, width = c.model.width, heads = c.layer.heads;
  const double rank = c.layer.rank, values = width / heads, hidden = c.model.mlp_ratio * width;
  double projections = heads * values;  // W_v of every head
  double mixing = heads * 2 * n * n * values;
  if (scores) {
    projections += heads * 2 * rank;
    mixing += heads * 2 * n * n * rank;
  }
  const double block =
      2 * n * width * projections + 2 * n * width * width + 2 * 2 * n * width * hidden + mixing;
  const double forward = c.model.depth * block + 2 * n * width * vocab;
  return 3 * forward * c.train.batch_size;
}

}  // namespace

int main(int argc, char** argv) {
  // Log lines (the corpus read) go to standard error: standard output is the one JSON line the
  // scripts parse.
  spdlog::set_default_logger(spdlog::stderr_color_mt("ufl_transformer_bench"));
  const Options o = parse(argc, argv);
  omp_set_num_threads(o.threads);
  const ufl::config::Config c = ufl::config::load_config(o.config, o.sets);
  const ufl::data::TokenDataset data = ufl::data::generate_tokens(c.dataset, c.dataset_seed);
  ufl::model::Model<float> model(c.dataset.n, 0, c.model, c.layer,
                                 ufl::task::make_token_ends<float>(int(data.vocab.size())));
  ufl::model::initialize(model, c.seed);
  ufl::task::NextTokenSession session(data, model, c.train.batch_size,
                                      o.kernels == "fused" ? ufl::model::LayerKernels::kFused
                                                           : ufl::model::LayerKernels::kComposite);
  ufl::train::Adam adam = ufl::train::optimizer_for(c.train, model.params);
  ufl::train::MinibatchSampler sampler(session.train_count(), c.seed);
  ufl::Tape<float>& tape = session.tape();
  int step_count = 0;
  auto step = [&] {
    for (int s = 0; s < c.train.batch_size; ++s) session.load_sample(s, sampler.next());
    tape.forward();
    tape.backward(session.loss());
    ++step_count;
    const float clip =
        c.train.clip > 0
            ? ufl::train::clip_factor(
                  ufl::train::gradient_norm(model.params.grads.data(), model.params.grads.size()),
                  c.train.clip)
            : 1.0f;
    adam.step(model.params.values.data(), model.params.grads.data(),
              ufl::train::learning_rate_at(1 + step_count % c.train.steps, c.train), clip);
  };
  auto since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Warm-up: at least two steps and a quarter second; then steps per repeat for ~`seconds`.
  const auto warm = Clock::now();
  int warm_steps = 0;
  while (warm_steps < 2 || since(warm) < 0.25) {
    step();
    ++warm_steps;
  }
  const double estimate = since(warm) / warm_steps;
  const int per_repeat =
      o.steps > 0 ? o.steps : std::max(1, int(o.seconds / o.repeats / std::max(estimate, 1e-6)));
  std::vector<double> times;
  for (int r = 0; r < o.repeats; ++r) {
    const auto start = Clock::now();
    for (int k = 0; k < per_repeat; ++k) step();
    times.push_back(since(start) / per_repeat);
  }
  std::sort(times.begin(), times.end());
  const double seconds = times[times.size() / 2];
  const bool scores = ufl::model::mixer<float>(c.layer.mixer).input_dependent();
  const double flops = flops_per_step(c, int(data.vocab.size()), scores);
  std::printf(
      "{\"impl\":\"ufl\",\"mixer\":\"%s\",\"n\":%d,\"width\":%d,\"depth\":%d,\"heads\":%d,"
      "\"batch\":%d,\"vocab\":%zu,\"threads\":%d,\"kernels\":\"%s\",\"ms_per_step\":%.4f,"
      "\"ms_min\":%.4f,\"ms_max\":%.4f,\"flops_per_step\":%.6g,\"gflops\":%.2f,"
      "\"parameters\":%zu,\"steps_timed\":%d,\"peak_memory_bytes\":%.0f,\"tape_bytes\":%zu}\n",
      c.layer.mixer.c_str(), c.dataset.n, c.model.width, c.model.depth, c.layer.heads,
      c.train.batch_size, data.vocab.size(), o.threads, o.kernels.c_str(), seconds * 1e3,
      times.front() * 1e3, times.back() * 1e3, flops, flops / seconds / 1e9,
      model.params.values.size(), per_repeat * o.repeats, ufl::io::peak_resident_bytes(),
      tape.arena_bytes());
  return 0;
}
