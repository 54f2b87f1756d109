#pragma once
// A run's training settings (the keys train.*); rules and meanings are in config/keys.cpp.

namespace ufl::train {

struct TrainConfig {
  int steps = 6000;
  int batch_size = 64;
  double lr = 1e-2;
  double lr_final = 1e-4;
  double ortho_weight = 0.01;
  int eval_every = 200;  // steps between test-set evaluations in loss.csv
  // Steps between checkpoints in the staging folder (docs/running.md); 0: about once a minute
  // of training. Checkpoints never change results.
  int checkpoint_every = 0;
  // AdamW and the schedule (docs/transformer.md §4); the defaults are plain Adam with cosine
  // decay from the first step, as Section 8 trains.
  double beta2 = 0.999;
  double weight_decay = 0;  // decoupled, on matrices only
  int warmup_steps = 0;     // linear warm-up before the cosine decay
  double clip = 0;          // the global gradient norm's limit; 0: no clipping
};

}  // namespace ufl::train
