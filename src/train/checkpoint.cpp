#include "train/checkpoint.hpp"

#include <cstring>
#include <limits>

#include "io/atomic_file.hpp"
#include "io/content_hash.hpp"
#include "io/io_error.hpp"

namespace ufl::train {
namespace {

constexpr char kMagic[8] = {'U', 'F', 'L', 'C', 'K', 'P', 'T', '1'};
// 1: without the probe rows; 2: without the loss curve's more held-out values (LossPoint::held_out)
constexpr std::uint32_t kVersion = 3;

class Writer {
 public:
  template <class T>
  void value(const T& x) {
    out_.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  template <class T>
  void array(const std::vector<T>& values) {
    value<std::uint64_t>(values.size());
    out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  template <class T>
  T value() {
    T x;
    need(sizeof x);
    std::memcpy(&x, bytes_.data() + at_, sizeof x);
    at_ += sizeof x;
    return x;
  }
  template <class T>
  std::vector<T> array() {
    const auto count = value<std::uint64_t>();
    // Check against what is left before allocating: a corrupt count must not allocate terabytes.
    if (count > (bytes_.size() - at_) / sizeof(T)) fail("an array is longer than the file");
    std::vector<T> values(count);
    if (count > 0) std::memcpy(values.data(), bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return values;
  }
  bool done() const { return at_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw io::IoError(source_ + ": corrupt checkpoint (" + what +
                      "); rerun the training without --resume");
  }

 private:
  void need(std::size_t size) const {
    if (bytes_.size() - at_ < size) fail("truncated");
  }
  std::string_view bytes_;
  const std::string& source_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_checkpoint(const TrainingState& state) {
  Writer payload;
  payload.value<std::int32_t>(state.steps_done);
  payload.array(state.params);
  payload.array(state.first_moment);
  payload.array(state.second_moment);
  payload.value<std::int64_t>(state.adam_steps);
  for (std::uint64_t word : state.sampler_rng.words) payload.value(word);
  payload.value(state.sampler_rng.spare_normal);
  payload.value<std::uint8_t>(state.sampler_rng.has_spare ? 1 : 0);
  payload.array(state.sampler_order);
  payload.value(state.sampler_position);
  payload.value<std::uint64_t>(state.curve.size());
  for (const LossPoint& point : state.curve) {
    payload.value<std::int32_t>(point.step);
    for (double x :
         {point.learning_rate, point.loss, point.task_loss, point.orthogonality, point.test_metric})
      payload.value(x);
    payload.array(point.held_out);
  }
  payload.value(state.train_seconds);
  payload.value<std::uint64_t>(state.probe_rows.size());
  for (const ProbeRow& row : state.probe_rows) {
    payload.value<std::int32_t>(row.step);
    payload.array(row.values);
  }
  payload.value(state.probe_seconds);

  Writer file;
  file.bytes().append(kMagic, sizeof kMagic);
  file.value(kVersion);
  file.value<std::uint64_t>(payload.bytes().size());
  file.bytes() += payload.bytes();
  file.value(io::content_hash(payload.bytes()));
  return std::move(file.bytes());
}

TrainingState decode_checkpoint(std::string_view bytes, const std::string& source) {
  Reader header(bytes, source);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    header.fail("not a ufl checkpoint");
  const std::size_t header_size = sizeof kMagic + sizeof(std::uint32_t) + sizeof(std::uint64_t);
  if (bytes.size() < header_size + sizeof(std::uint64_t)) header.fail("truncated");
  std::uint32_t version;
  std::uint64_t length, checksum;
  std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
  std::memcpy(&length, bytes.data() + sizeof kMagic + sizeof version, sizeof length);
  if (version < 1 || version > kVersion)
    header.fail("format version " + std::to_string(version) + ", expected 1, 2 or 3");
  if (length != bytes.size() - header_size - sizeof checksum) header.fail("truncated or padded");
  const std::string_view payload = bytes.substr(header_size, length);
  std::memcpy(&checksum, bytes.data() + header_size + length, sizeof checksum);
  if (checksum != io::content_hash(payload)) header.fail("checksum mismatch");

  Reader reader(payload, source);
  TrainingState state;
  state.steps_done = reader.value<std::int32_t>();
  state.params = reader.array<float>();
  state.first_moment = reader.array<float>();
  state.second_moment = reader.array<float>();
  state.adam_steps = reader.value<std::int64_t>();
  for (std::uint64_t& word : state.sampler_rng.words) word = reader.value<std::uint64_t>();
  state.sampler_rng.spare_normal = reader.value<double>();
  state.sampler_rng.has_spare = reader.value<std::uint8_t>() != 0;
  state.sampler_order = reader.array<std::int32_t>();
  state.sampler_position = reader.value<std::uint64_t>();
  const auto points = reader.value<std::uint64_t>();
  if (points > payload.size() / (sizeof(std::int32_t) + 5 * sizeof(double)))
    reader.fail("loss curve too long");
  state.curve.reserve(points);
  for (std::uint64_t k = 0; k < points; ++k) {
    LossPoint point{};
    point.step = reader.value<std::int32_t>();
    point.learning_rate = reader.value<double>();
    point.loss = reader.value<double>();
    point.task_loss = reader.value<double>();
    point.orthogonality = reader.value<double>();
    point.test_metric = reader.value<double>();
    if (version >= 3) point.held_out = reader.array<double>();
    state.curve.push_back(point);
  }
  state.train_seconds = reader.value<double>();
  if (version >= 2) {
    const auto rows = reader.value<std::uint64_t>();
    if (rows > state.curve.size()) reader.fail("more probe rows than steps");
    for (std::uint64_t k = 0; k < rows; ++k) {
      ProbeRow row;
      row.step = reader.value<std::int32_t>();
      row.values = reader.array<double>();
      state.probe_rows.push_back(std::move(row));
    }
    state.probe_seconds = reader.value<double>();
  }
  if (!reader.done()) reader.fail("unexpected bytes after the last field");
  // Consistency a corrupt-but-checksummed file could still break.
  if (state.steps_done < 0 || state.curve.size() != std::size_t(state.steps_done) ||
      state.adam_steps != state.steps_done || state.first_moment.size() != state.params.size() ||
      state.second_moment.size() != state.params.size() ||
      state.sampler_position > state.sampler_order.size())
    reader.fail("inconsistent sizes");
  for (std::int32_t index : state.sampler_order)
    if (index < 0 || std::size_t(index) >= state.sampler_order.size())
      reader.fail("sample index out of range");
  return state;
}

void write_checkpoint(const std::filesystem::path& path, const TrainingState& state) {
  io::write_file_atomic(path, encode_checkpoint(state));
}

TrainingState read_checkpoint(const std::filesystem::path& path) {
  return decode_checkpoint(io::read_file(path), path.string());
}

}  // namespace ufl::train
