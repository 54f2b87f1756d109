#pragma once
// A run's dataset settings (the keys dataset.*). Their defaults are the spec's; their rules and
// meanings are in the key table, config/keys.cpp.
#include <string>
#include <vector>

namespace ufl::data {

struct DatasetConfig {
  std::string kind = "local";  // a registered dataset kind (data/registry.hpp)
  int n = 32;                  // positions
  int d = 16;                  // channels
  double noise = 0.5;          // σ of the additive Gaussian noise
  int train_size = 4096;
  int test_size = 1024;
  // local only
  int kernel_width = 5;
  // periodic only
  std::vector<int> freqs = {2, 5, 9};
  double amplitude_decay = 0.5;
  // lowrank only
  int rank = 4;
  double singular_value_decay = 0.7;
  // The planted kinds (docs/planted.md). hadamard only: the Walsh functions (rows of the
  // Walsh–Hadamard matrix in natural order) the signal is made of.
  std::vector<int> walsh = {3, 10, 21};
  // haar only: the variance of a Haar coefficient ∝ scale_decay^scale.
  double scale_decay = 0.5;
  // dct only: the DCT-II basis vectors band[0] … band[1] the signal is made of.
  std::vector<int> band = {4, 11};
  // text and copy_text (docs/transformer.md §2): a UTF-8 file or a folder of them; the last
  // val_fraction of the characters validate, on val_windows windows drawn once from the data
  // seed.
  std::string path = "/usr/share/games/fortunes";
  double val_fraction = 0.1;
  int val_windows = 200;
  // mqar: the vocabulary (keys from its first half, values from its second) and the key–value
  // pairs per sequence. copy: the letters of a segment (the config loader fills in 26).
  int vocab = 256;
  int pairs = 8;
  // mqar only: what the positions between queries hold, "random" tokens of the whole vocabulary
  // or one "blank" token of their own (Zoology's random_non_queries = False; docs/transformer.md
  // §2).
  std::string filler = "random";
  // copy and copy_text: the lengths of the segments that are copied (the config loader fills in
  // each kind's defaults: 6 … 20 for copy, 8 … 24 for copy_text).
  int segment_min = 6, segment_max = 20;
  // copy_text only (docs/transformer.md §13): text in which `segments` segments of each window
  // are repeated later in it, at least gap_min characters after their end; copy_source "window"
  // (copies of the window's own text) or "shuffled" (the control: text from elsewhere in the
  // corpus, which the window holds nowhere before).
  int segments = 3;
  int gap_min = 8;
  std::string copy_source = "window";
};

}  // namespace ufl::data
