#pragma once
// What a run will need, known before it starts: its peak memory, part by part, with the config
// keys that drive each part, and its time per step from a cost model in n, d, r and the batch.
// `ufl config` prints it, `ufl train` prints it first and refuses (exit 2) a run whose memory does
// not fit in what is available, before allocating anything. The memory is the sum of the
// buffers ufl allocates (the tapes' arenas, the data, the parameters with Adam's moments and a
// checkpoint's copy, the analysis's matrices), checked against the real allocations by
// tests/train/resource_estimate_test.cpp; the time is an estimate (the measured time per step is
// printed after the first steps). docs/running.md describes both.
#include <string>
#include <vector>

// The types live here, with the block kinds that fill them in (model/blocks/); the estimate of a
// run is train/resource_estimate.hpp's estimate_resources.
namespace ufl::model {

// What of the keys train.* the estimate reads (train/train_config.hpp), and the speed of the
// products inside a step per thread: a 2020s x86 core's share of its float GEMM peak by default
// (blocks/cost_model.hpp), or the share of the kernel rate measured on this machine
// (train/resource_estimate.hpp).
struct TrainingShape {
  int batch_size = 64;
  int steps = 6000;
  int eval_every = 200;
  double gflops_per_thread = 60;
};

struct MemoryPart {
  std::string name;  // "training tape"
  double bytes = 0;
  std::string drivers;  // the keys that drive it, with their values: "train.batch_size = 64 × …"
  std::vector<std::string> keys;  // the same keys, bare: "train.batch_size", "dataset.n"
};

struct ResourceEstimate {
  std::vector<MemoryPart> parts;  // the parts alive at the peak, largest first
  double peak_bytes = 0;
  double flops_per_step = 0;  // a training step plus its share of the evaluations
  double seconds_per_step = 0, total_seconds = 0;
  // Of total_seconds, the final evaluation and analysis after the last step (token runs).
  double final_seconds = 0;
  int threads = 1;
  double gflops_per_thread = 0;  // the cost model's assumed speed
  double kernel_gflops = 0;      // the kernel rate measured on this machine it came from, or 0

  // "1.23 GB: training tape 1.1 GB (train.batch_size = 64 × …), dataset 270 MB (…), …".
  std::string memory_text() const;
  // "about 0.85 s per step, 1h25m for 6000 steps on 2 threads (cost model: …; an estimate)".
  std::string time_text(int steps) const;
  // The keys of the largest parts, to lower when the run does not fit.
  std::string keys_to_lower() const;
};

// "1h25m", "4m05s", "12.3s", "850ms".
std::string format_seconds(double seconds);

}  // namespace ufl::model
