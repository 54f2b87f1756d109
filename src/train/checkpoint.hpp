#pragma once
// Everything needed to continue a training run exactly where it stopped (SIGINT/SIGTERM), so that
// a resumed run ends bit-identical to one never interrupted: the parameters, Adam's moments and
// step count, the minibatch sampler's random state and epoch order, and the loss curve so far.
//
// File format (little-endian): the 8 bytes "UFLCKPT1", a u32 format version, a u64 payload
// length, the payload, and the payload's 64-bit FNV-1a checksum. The payload is a sequence of
// fields each written as u64 element count + raw elements. Version 2 adds, after train_seconds,
// the evaluation probe's rows (the score trajectory) and its seconds; version 1 files are still
// read (with no rows).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "data/rng.hpp"
#include "train/loss_point.hpp"
#include "train/probe_row.hpp"

namespace ufl::train {

struct TrainingState {
  int steps_done = 0;
  std::vector<float> params;
  std::vector<float> first_moment, second_moment;
  long long adam_steps = 0;
  data::RngState sampler_rng{};
  std::vector<std::int32_t> sampler_order;
  std::uint64_t sampler_position = 0;
  std::vector<LossPoint> curve;
  double train_seconds = 0;  // time spent before the interruption
  std::vector<ProbeRow> probe_rows;
  double probe_seconds = 0;  // of train_seconds, the time the probe took
};

std::string encode_checkpoint(const TrainingState& state);
// Throws io::IoError naming `source` for anything truncated, corrupt or of another version.
TrainingState decode_checkpoint(std::string_view bytes, const std::string& source);

void write_checkpoint(const std::filesystem::path& path, const TrainingState& state);
TrainingState read_checkpoint(const std::filesystem::path& path);

}  // namespace ufl::train
