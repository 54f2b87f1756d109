#pragma once
// A seeded random stream that gives the same numbers on every platform and compiler:
// splitmix64 to derive independent streams from (seed, stream id), xoshiro256** for the
// stream, and our own Box-Muller for normals (std::normal_distribution is
// implementation-defined, so it would break bit-for-bit reproduction across toolchains).
#include <cmath>
#include <cstdint>
#include <numbers>

namespace ufl::data {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Stream ids used across ufl, so that no two consumers share random numbers.
enum class Stream : std::uint64_t {
  kDatasetStructure = 1,  // per-seed structure (lowrank basis Q)
  kTrainSamples = 2,
  kTestSamples = 3,
  kLayerInit = 4,
  kMinibatches = 5,
  kMonteCarlo = 6,
  kSampling = 7,  // ufl sample: the tokens drawn from the model's distribution
  // copy_text's control (dataset.copy_source "shuffled"): the segments drawn from elsewhere in
  // the training and the validation text, apart from the windows' own draws
  kTrainShuffled = 8,
  kTestShuffled = 9,
};

// Everything a stream needs to continue where it stopped (checkpoints).
struct RngState {
  std::uint64_t words[4];
  double spare_normal;
  bool has_spare;
};

class Rng {
 public:
  Rng(std::uint64_t seed, Stream stream) {
    std::uint64_t state = seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(stream);
    for (auto& word : state_) word = splitmix64(state);
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, bound), without modulo bias.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t x;
    do x = next_u64();
    while (x >= limit);
    return x % bound;
  }

  // Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1;
    do u1 = uniform();
    while (u1 <= 0.0);
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

  RngState state() const {
    return RngState{{state_[0], state_[1], state_[2], state_[3]}, spare_, has_spare_};
  }
  void restore(const RngState& saved) {
    for (int k = 0; k < 4; ++k) state_[k] = saved.words[k];
    spare_ = saved.spare_normal;
    has_spare_ = saved.has_spare;
  }

  // Fisher-Yates shuffle of [first, last).
  template <class It>
  void shuffle(It first, It last) {
    for (auto i = (last - first) - 1; i > 0; --i) {
      auto j = static_cast<decltype(i)>(below(static_cast<std::uint64_t>(i) + 1));
      std::swap(first[i], first[j]);
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace ufl::data
