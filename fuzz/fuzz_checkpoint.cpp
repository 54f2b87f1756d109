// libFuzzer target for ufl::train::decode_checkpoint (the --resume file, src/train/checkpoint.hpp).
// Each input is decoded twice:
//   1. as the whole file, exactly as read from disk (magic, version, length, checksum checks);
//   2. as the payload only, wrapped by this target in a valid envelope ("UFLCKPT1", version 1,
//      the payload length, the payload, its FNV-1a checksum), so that mutations reach the payload
//      parser instead of stopping at the checksum.
// Only ufl::io::IoError may escape; any other exception (it terminates the process) or a sanitizer
// report is a bug. A decoded state must be self-consistent (the rules decode_checkpoint enforces)
// and survive encode → decode unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "io/io_error.hpp"
#include "train/checkpoint.hpp"

namespace {

using ufl::train::TrainingState;

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

template <class T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

std::string wrap_payload(std::string_view payload) {
  std::string file = "UFLCKPT1";
  append<std::uint32_t>(file, 1);
  append<std::uint64_t>(file, payload.size());
  file += payload;
  append<std::uint64_t>(file, fnv1a(payload));
  return file;
}

// Bitwise equality, so NaNs (the held-out metric between evaluations) compare equal to themselves.
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

bool same_state(const TrainingState& a, const TrainingState& b) {
  if (a.steps_done != b.steps_done || a.adam_steps != b.adam_steps ||
      a.sampler_order != b.sampler_order || a.sampler_position != b.sampler_position ||
      a.curve.size() != b.curve.size() || !same_bits(a.train_seconds, b.train_seconds))
    return false;
  // Float vectors compared bitwise as well (a NaN parameter must survive a round trip).
  const auto same_floats = [](const auto& x, const auto& y) {
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0);
  };
  if (!same_floats(a.params, b.params) || !same_floats(a.first_moment, b.first_moment) ||
      !same_floats(a.second_moment, b.second_moment))
    return false;
  for (int k = 0; k < 4; ++k)
    if (a.sampler_rng.words[k] != b.sampler_rng.words[k]) return false;
  if (!same_bits(a.sampler_rng.spare_normal, b.sampler_rng.spare_normal) ||
      a.sampler_rng.has_spare != b.sampler_rng.has_spare)
    return false;
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    const auto &p = a.curve[i], &q = b.curve[i];
    if (p.step != q.step || !same_bits(p.learning_rate, q.learning_rate) ||
        !same_bits(p.loss, q.loss) || !same_bits(p.task_loss, q.task_loss) ||
        !same_bits(p.orthogonality, q.orthogonality) || !same_bits(p.test_metric, q.test_metric))
      return false;
  }
  return true;
}

void check_decoded(const TrainingState& state, std::size_t file_size) {
  UFL_FUZZ_CHECK(
      state.steps_done >= 0 && state.curve.size() == static_cast<std::size_t>(state.steps_done),
      "one loss point per step done");
  UFL_FUZZ_CHECK(state.first_moment.size() == state.params.size() &&
                     state.second_moment.size() == state.params.size(),
                 "Adam moments match the parameters");
  UFL_FUZZ_CHECK(state.adam_steps == state.steps_done, "one Adam step per step done");
  UFL_FUZZ_CHECK(state.sampler_position <= state.sampler_order.size(),
                 "sampler position inside its order");
  for (const std::int32_t index : state.sampler_order)
    UFL_FUZZ_CHECK(index >= 0 && static_cast<std::size_t>(index) < state.sampler_order.size(),
                   "sample indices in range");
  UFL_FUZZ_CHECK(state.params.size() * sizeof(float) <= file_size,
                 "no array is larger than the file");

  const std::string encoded = ufl::train::encode_checkpoint(state);
  TrainingState again;
  try {
    again = ufl::train::decode_checkpoint(encoded, "re-encoded");
  } catch (const ufl::io::IoError& error) {
    std::fprintf(stderr, "refused: %s\n", error.what());
    UFL_FUZZ_CHECK(false, "decode_checkpoint(encode_checkpoint(state)) is refused");
  }
  UFL_FUZZ_CHECK(same_state(state, again), "decode(encode(state)) == state");
  UFL_FUZZ_CHECK(ufl::train::encode_checkpoint(again) == encoded, "encoding is deterministic");
}

void decode(std::string_view bytes) {
  std::optional<TrainingState> state;
  try {
    state = ufl::train::decode_checkpoint(bytes, "fuzz.ckpt");
  } catch (const ufl::io::IoError&) {
    return;  // refused with a one-line message: the expected outcome for a corrupt file
  }
  check_decoded(*state, bytes.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  decode(bytes);
  decode(wrap_payload(bytes));
  return 0;
}
