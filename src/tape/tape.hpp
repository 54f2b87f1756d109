#pragma once
// A reverse-mode tape over batched tensors. The graph is recorded once per run (the layer's
// forward as a list of ops), then plan() allocates one arena for every activation, gradient
// and op scratch buffer; each training step only runs forward() and backward() over it, so no
// memory is allocated per step.
//
// The batch is the unit of parallel work: forward() and backward() each run every sample's ops
// on one thread, in one parallel region. It is over fixed groups of consecutive samples (at
// most kMaxSampleGroups of them, whatever the thread count); a group's samples run on one thread,
// op after op, each op over the group's samples in order (each thread runs an op over all its
// groups before the next op: for_each_thread_groups). Ops on shared tensors only (the prelude,
// e.g. Σ = softplus(s)) run once before that loop; batch reductions (the loss) are finished after
// it (the epilogue). Gradients of shared operands are accumulated per group, in sample order, into
// scratch and then summed over the groups in fixed order, so results are bit-identical at any
// thread count (an op may instead sum a shared input's gradient itself after the loop, as one
// product over every sample's rows: the weights of the fused transformer kernels,
// docs/transformer.md §8). Each op has forward and backward kernels side by side in tape/ops/. A
// stop request leaves a pass incomplete (see for_each_thread_groups); its caller checks
// interrupt::stop_requested() and discards it.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/stop_request.hpp"
#include "tape/parallel.hpp"
#include "tensor/tensor.hpp"

namespace ufl {

struct Var {
  int id = -1;
  bool valid() const { return id >= 0; }
};

// At most this many groups of samples per parallel loop: enough to keep 16 threads busy, few
// enough that the per-group gradient slots of shared parameters stay small and cache-resident.
inline constexpr int kMaxSampleGroups = 16;

// Samples per pass of a forward-only tape over a long list of them (the validation windows of a
// token run): one per thread, at most kMaxSampleGroups and at most `max_samples`. Such a tape
// holds every op's forward values for each sample of a pass, so a pass as wide as the threads
// keeps it small; with at most kMaxSampleGroups samples each sample is a group of its own, so
// the results depend neither on the pass width nor on the threads.
inline int evaluation_chunk(int max_samples, int threads) {
  return std::max(1, std::min({max_samples, threads, kMaxSampleGroups}));
}

// Where an op's backward adds sample b's gradient for one input: the input's own gradient when
// it is per-sample, or the slot of b's sample group in scratch when the input is shared by the
// batch (the slot is cleared at the group's first sample; finish() sums the slots in order).
template <class T>
struct GradSink {
  T* grad = nullptr;     // nullptr when the input needs no gradient
  T* scratch = nullptr;  // per-group slots for a shared input
  std::size_t sample_size = 0;
  int batch = 1;       // samples of a per-sample input; groups for a shared one
  int group_size = 1;  // samples per group

  bool active() const { return grad != nullptr; }
  T* begin_sample(int b) const {
    if (grad == nullptr) return nullptr;
    if (scratch == nullptr)
      return grad + (batch == 1 ? 0 : static_cast<std::size_t>(b) * sample_size);
    T* slot = scratch + static_cast<std::size_t>(b / group_size) * sample_size;
    if (b % group_size == 0) std::fill(slot, slot + sample_size, T(0));
    return slot;
  }
  void finish() const {
    if (scratch != nullptr) sum_over_batch(scratch, batch, sample_size, grad);
  }
};

template <class T>
class Tape;

template <class T>
struct Op {
  virtual ~Op() = default;
  // Scratch the op needs for itself (the tape adds the per-sample gradient slices).
  virtual std::size_t extra_scratch_elements(const Tape<T>&) const { return 0; }
  // Temporaries of one sample group that live only while the op runs on that group (one
  // forward_group or backward_group call): every op of the tape shares one such workspace per
  // group (Tape::group_workspace), sized to the largest, since a group's ops run one at a time.
  virtual std::size_t group_workspace_elements(const Tape<T>&) const { return 0; }
  // Sample b's forward (b = 0 for an op whose inputs are all shared).
  virtual void forward_sample(Tape<T>& tape, int b) = 0;
  // Sample b's contribution to the gradients of its inputs, through sink(operand).begin_sample(b).
  virtual void backward_sample(Tape<T>& tape, int b) = 0;
  // The samples [first, end) of one group, which run on one thread, each in order; an op may
  // instead do the group's rows at once (the fused transformer kernels' row-wise products).
  virtual void forward_group(Tape<T>& tape, int first, int end) {
    for (int b = first; b < end; ++b) forward_sample(tape, b);
  }
  virtual void backward_group(Tape<T>& tape, int first, int end) {
    for (int b = first; b < end; ++b) backward_sample(tape, b);
  }
  // After every sample's forward: combine per-sample partial results (batch reductions).
  virtual void finish_forward(Tape<T>&) {}
  // Before the op's forward on any sample: per-step work on shared inputs that every sample's
  // forward reads (the fused transformer kernels copy their weights into the product kernel's
  // panel layout once here, not once per sample).
  virtual void prepare_forward(Tape<T>&) {}
  // Before any sample's backward: per-step work on shared inputs that every sample's backward
  // reads (the fused transformer kernels transpose their weights once here, not per sample).
  virtual void prepare_backward(Tape<T>&) {}
  // Inputs whose gradient the op sums over the batch itself, in finish_backward, as one product
  // over every sample's rows (the weight gradients of the fused transformer kernels): plan()
  // gives them no per-group slots, and backward_sample must not write them.
  virtual bool sums_batch_gradient(std::size_t /*input*/) const { return false; }
  // After every sample's backward: those inputs' gradients (may run parallel loops of its own,
  // each sum in a fixed order).
  virtual void finish_backward(Tape<T>&) {}

  // An op reads its operands by name, as micrograd's _backward names `self` and `other`: each op
  // declares `enum Operand : int { … }` listing its inputs in the order its builder puts them in
  // `inputs`, and reads operand k's value, shape and gradient sink through these.
  Tensor<T> value_of(const Tape<T>& tape, int operand) const {
    return tape.value(inputs[std::size_t(operand)]);
  }
  const Shape& shape_of(const Tape<T>& tape, int operand) const {
    return tape.shape(inputs[std::size_t(operand)]);
  }
  // Where backward adds operand k's gradient (set by plan()).
  const GradSink<T>& sink(int operand) const { return sinks[std::size_t(operand)]; }

  std::vector<Var> inputs;  // the operands, in the order of the op's Operand enum
  Var output;
  // Further outputs of an op that computes several results in one kernel (a fused layer's
  // output and its orthogonality penalty); recorded with Tape::record_outputs.
  std::vector<Var> extra_outputs;
  T* scratch = nullptr;            // the op's own scratch
  std::vector<GradSink<T>> sinks;  // one per input, set by plan()
};

template <class T>
class Tape {
 public:
  // A per-run input, filled by the caller before each forward(). `requires_grad` is for
  // gradient checks of ops with respect to their inputs.
  Var input(Shape shape, std::string name, bool requires_grad = false) {
    return add_node(shape, requires_grad, std::move(name), nullptr, nullptr);
  }
  // A value that never needs a gradient; fill it after plan().
  Var constant(Shape shape, std::string name) {
    return add_node(shape, false, std::move(name), nullptr, nullptr);
  }
  // A learned parameter stored outside the tape (shared between the training and evaluation
  // tapes); `grad` receives the summed gradient at every backward().
  Var parameter(T* value, T* grad, int rows, int cols, std::string name) {
    return add_node(Shape{1, rows, cols}, grad != nullptr, std::move(name), value, grad);
  }

  // Records an op whose output has `shape`; used by the op builders in tape/ops/.
  Var record(std::unique_ptr<Op<T>> op, Shape shape, std::string name) {
    return record_outputs(std::move(op), {{shape, std::move(name)}}).front();
  }
  // Records an op with several outputs, the first being its `output`. All outputs of a
  // per-sample op must be per-sample.
  std::vector<Var> record_outputs(std::unique_ptr<Op<T>> op,
                                  std::vector<std::pair<Shape, std::string>> outputs) {
    bool needs = false;
    for (Var in : op->inputs) needs = needs || nodes_.at(in.id).needs_grad;
    std::vector<Var> vars;
    for (auto& [shape, name] : outputs)
      vars.push_back(add_node(shape, needs, std::move(name), nullptr, nullptr));
    op->output = vars.front();
    op->extra_outputs.assign(vars.begin() + 1, vars.end());
    ops_.push_back(std::move(op));
    return vars;
  }

  // Allocates all activations, gradients and scratch in one arena and sorts the ops into
  // prelude, per-sample and epilogue. Call once, after recording.
  void plan() {
    classify_ops();
    std::size_t total = 0;
    auto reserve = [&total](std::size_t elements) {
      const std::size_t offset = total;
      total += (elements + 15) / 16 * 16;  // keep every buffer 64-byte aligned
      return offset;
    };
    std::vector<std::size_t> value_offset(nodes_.size()), grad_offset(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (!nodes_[i].external_value) value_offset[i] = reserve(nodes_[i].shape.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].needs_grad && !nodes_[i].external_grad)
        grad_offset[i] = reserve(nodes_[i].shape.size());
    std::vector<std::size_t> scratch_offset(ops_.size());
    std::vector<std::vector<std::size_t>> sink_offset(ops_.size());
    workspace_elements_ = 0;
    for (std::size_t k = 0; k < ops_.size(); ++k) {
      Op<T>& op = *ops_[k];
      scratch_offset[k] = reserve(op.extra_scratch_elements(*this));
      workspace_elements_ =
          std::max(workspace_elements_, (op.group_workspace_elements(*this) + 15) / 16 * 16);
      for (std::size_t i = 0; i < op.inputs.size(); ++i)
        sink_offset[k].push_back(
            summed_over_batch(op, i) ? reserve(groups_ * shape(op.inputs[i]).sample_size()) : 0);
    }
    const std::size_t workspace_offset = reserve(std::size_t(groups_) * workspace_elements_);
    arena_.assign(total + 16, T(0));
    T* base = aligned_base();
    workspace_ = base + workspace_offset;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      Node& node = nodes_[i];
      if (!node.external_value) node.value = base + value_offset[i];
      if (node.needs_grad && !node.external_grad) node.grad = base + grad_offset[i];
    }
    for (std::size_t k = 0; k < ops_.size(); ++k) {
      Op<T>& op = *ops_[k];
      op.scratch = base + scratch_offset[k];
      op.sinks.clear();
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const Node& in = nodes_[op.inputs[i].id];
        GradSink<T> sink;
        if (in.needs_grad) {
          sink.grad = in.grad;
          sink.sample_size = in.shape.sample_size();
          sink.batch = in.shape.batch;
          if (summed_over_batch(op, i)) {
            sink.scratch = base + sink_offset[k][i];
            sink.batch = groups_;
            sink.group_size = group_size_;
          }
        }
        op.sinks.push_back(sink);
      }
    }
    for (const Node& node : nodes_)
      (node.shape.batch > 1 && node.needs_grad ? per_sample_grads_ : shared_grads_)
          .push_back(GradBuffer{node.grad, node.shape.sample_size(), node.shape.size()});
    planned_ = true;
  }

  // An edit of per-sample values during forward, for interventions in the analysis (each head's
  // M replaced by its rank-k truncation, docs/head_structure.md §2): called after every op with its
  // output and the samples [first, end) just computed, on that group's thread ([0, 1) for an op
  // whose inputs are all shared, as every op of a batch-1 tape), so that the ops after it read
  // the edited values. It must touch only those samples.
  using ForwardEdit = std::function<void(Tape& tape, Var output, int first, int end)>;

  void forward(const ForwardEdit& edit = {}) {
    require_planned();
    for (Op<T>* op : prelude_) {
      op->prepare_forward(*this);
      op->forward_sample(*this, 0);
      if (edit) edit(*this, op->output, 0, 1);
    }
    if (!sample_ops_.empty()) {
      for (Op<T>* op : sample_ops_) op->prepare_forward(*this);
      for_each_thread_groups([&](int first_group, int end_group) {
        for (Op<T>* op : sample_ops_)
          for (int group = first_group; group < end_group; ++group) {
            if (interrupt::stop_requested()) return;
            const auto [first, end] = group_samples(group);
            op->forward_group(*this, first, end);
            if (edit) edit(*this, op->output, first, end);
          }
      });
      for (Op<T>* op : sample_ops_) op->finish_forward(*this);
    }
    for (Op<T>* op : epilogue_) {
      op->prepare_forward(*this);
      op->forward_sample(*this, 0);
      if (edit) edit(*this, op->output, 0, 1);
    }
  }

  // Gradients of the scalar `loss` with respect to every node that needs one.
  void backward(Var loss) {
    require_planned();
    const Node& loss_node = nodes_.at(loss.id);
    if (loss_node.shape.size() != 1) throw std::logic_error("backward() needs a scalar loss");
    for (const GradBuffer& buffer : shared_grads_)
      if (buffer.data != nullptr) std::fill(buffer.data, buffer.data + buffer.size, T(0));
    if (!loss_node.needs_grad) return;
    loss_node.grad[0] = T(1);
    // An op's outputs share needs_grad (record_outputs), so the first one speaks for all.
    auto needs_backward = [this](const Op<T>* op) { return nodes_[op->output.id].needs_grad; };
    for (auto it = epilogue_.rbegin(); it != epilogue_.rend(); ++it)
      if (needs_backward(*it)) {
        (*it)->prepare_backward(*this);
        (*it)->backward_sample(*this, 0);
      }
    if (!sample_ops_.empty()) {
      for (Op<T>* op : sample_ops_)
        if (needs_backward(op)) op->prepare_backward(*this);
      for_each_thread_groups([&](int first_group, int end_group) {
        // Each thread clears its own samples' gradient slices, while they are about to be used.
        const int first = group_samples(first_group).first,
                  end = group_samples(end_group - 1).second;
        for (const GradBuffer& buffer : per_sample_grads_)
          std::fill(buffer.data + static_cast<std::size_t>(first) * buffer.sample_size,
                    buffer.data + static_cast<std::size_t>(end) * buffer.sample_size, T(0));
        for (auto it = sample_ops_.rbegin(); it != sample_ops_.rend(); ++it) {
          if (!needs_backward(*it)) continue;
          for (int group = first_group; group < end_group; ++group) {
            if (interrupt::stop_requested()) return;
            const auto [first_sample, end_sample] = group_samples(group);
            (*it)->backward_group(*this, first_sample, end_sample);
          }
        }
      });
      for (auto it = sample_ops_.rbegin(); it != sample_ops_.rend(); ++it)
        if (needs_backward(*it)) {
          for (const GradSink<T>& sink : (*it)->sinks) sink.finish();
          (*it)->finish_backward(*this);
        }
    }
    for (auto it = prelude_.rbegin(); it != prelude_.rend(); ++it)
      if (needs_backward(*it)) {
        (*it)->prepare_backward(*this);
        (*it)->backward_sample(*this, 0);
      }
  }

  Tensor<T> value(Var v) const { return Tensor<T>{nodes_.at(v.id).value, nodes_.at(v.id).shape}; }
  Tensor<T> grad(Var v) const { return Tensor<T>{nodes_.at(v.id).grad, nodes_.at(v.id).shape}; }
  const Shape& shape(Var v) const { return nodes_.at(v.id).shape; }
  bool needs_grad(Var v) const { return nodes_.at(v.id).needs_grad; }
  const std::string& name(Var v) const { return nodes_.at(v.id).name; }
  std::size_t arena_bytes() const { return arena_.size() * sizeof(T); }
  // The fixed sample groups of the parallel loop (set by plan()): sample b is in group
  // b / group_size(). Ops may keep per-group temporaries, reused by the group's samples.
  int group_size() const { return group_size_; }
  int group_count() const { return groups_; }
  // The workspace of sample b's group (Op::group_workspace_elements): an op may use it only
  // within one call on that group; the next op of the group overwrites it.
  T* group_workspace(int b) const {
    return workspace_ + std::size_t(b / group_size_) * workspace_elements_;
  }
  std::size_t op_count() const { return ops_.size(); }

 private:
  struct Node {
    Shape shape;
    bool needs_grad = false;
    std::string name;
    T* value = nullptr;
    T* grad = nullptr;
    bool external_value = false, external_grad = false;
  };
  struct GradBuffer {
    T* data;
    std::size_t sample_size, size;
  };

  Var add_node(Shape shape, bool needs_grad, std::string name, T* value, T* grad) {
    if (planned_) throw std::logic_error("cannot record '" + name + "' after plan()");
    if (shape.batch < 1 || shape.rows < 1 || shape.cols < 1)
      throw std::logic_error("tensor '" + name + "' has empty shape " + shape.str());
    nodes_.push_back(
        Node{shape, needs_grad, std::move(name), value, grad, value != nullptr, grad != nullptr});
    return Var{static_cast<int>(nodes_.size()) - 1};
  }

  // An op runs once per sample when any of its inputs is per-sample.
  bool is_per_sample(const Op<T>& op) const {
    for (Var in : op.inputs)
      if (nodes_[in.id].shape.batch > 1) return true;
    return false;
  }
  // A shared input of a per-sample op: its gradient is summed over the samples, in per-group
  // slots, unless the op sums it itself.
  bool summed_over_batch(const Op<T>& op, std::size_t input) const {
    const Node& node = nodes_[op.inputs[input].id];
    return node.needs_grad && node.shape.batch == 1 && is_per_sample(op) &&
           !op.sums_batch_gradient(input);
  }

  // Sorts the ops into the three phases and checks that the graph fits them: a per-sample op
  // may not read the result of a batch reduction.
  void classify_ops() {
    enum Phase { kBefore, kPerSample, kAfter };
    std::vector<Phase> phase(nodes_.size(), kBefore);
    batch_ = 1;
    for (auto& op : ops_) {
      Phase latest = kBefore;
      for (Var in : op->inputs) latest = std::max(latest, phase[in.id]);
      if (is_per_sample(*op)) {
        if (latest == kAfter)
          throw std::logic_error("op '" + nodes_[op->output.id].name +
                                 "' reads a batch reduction inside the per-sample phase");
        for (Var in : op->inputs) {
          const int b = nodes_[in.id].shape.batch;
          if (b > 1 && batch_ > 1 && b != batch_)
            throw std::logic_error("ops of one tape need one batch size");
          if (b > 1) batch_ = b;
        }
        sample_ops_.push_back(op.get());
        phase[op->output.id] = nodes_[op->output.id].shape.batch > 1 ? kPerSample : kAfter;
        for (Var extra : op->extra_outputs) phase[extra.id] = phase[op->output.id];
      } else if (latest == kAfter) {
        epilogue_.push_back(op.get());
        phase[op->output.id] = kAfter;
        for (Var extra : op->extra_outputs) phase[extra.id] = kAfter;
      } else {
        prelude_.push_back(op.get());
      }
    }
    group_size_ = (batch_ + kMaxSampleGroups - 1) / kMaxSampleGroups;
    groups_ = (batch_ + group_size_ - 1) / group_size_;
  }

  // The samples [first, end) of a group.
  std::pair<int, int> group_samples(int group) const {
    return {group * group_size_, std::min(batch_, (group + 1) * group_size_)};
  }
  // body(first_group, end_group) once on each thread, for a contiguous range of groups (the split
  // of a static schedule). The body runs op after op, each op over the thread's groups in order:
  // a weight that every sample's op reads is read once for all of a thread's samples, not again
  // after every other op has run on each one. Each group still runs its ops in order on one
  // thread, a shared input's gradient slot still sums the samples in order, and nothing one group
  // computes is read by another until the loop ends, so the split never changes a result. After a
  // stop request (io/stop_request.hpp) the body returns early: the pass is left incomplete
  // and its caller discards it.
  template <class Body>
  void for_each_thread_groups(Body&& body) {
#pragma omp parallel if (groups_ > 1)
    {
      const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
      const int share = groups_ / threads, extra = groups_ % threads;
      const int first = thread * share + std::min(thread, extra);
      const int end = first + share + (thread < extra ? 1 : 0);
      if (first < end) body(first, end);
    }
  }

  void require_planned() const {
    if (!planned_) throw std::logic_error("call plan() before forward() or backward()");
  }
  T* aligned_base() {
    auto address = reinterpret_cast<std::uintptr_t>(arena_.data());
    return arena_.data() + ((64 - address % 64) % 64) / sizeof(T);
  }

  std::vector<Node> nodes_;
  std::vector<std::unique_ptr<Op<T>>> ops_;
  std::vector<Op<T>*> prelude_, sample_ops_, epilogue_;
  std::vector<GradBuffer> per_sample_grads_, shared_grads_;
  std::vector<T> arena_;
  T* workspace_ = nullptr;
  std::size_t workspace_elements_ = 0;  // per group, padded to 64 bytes
  int batch_ = 1, group_size_ = 1, groups_ = 1;
  bool planned_ = false;
};

}  // namespace ufl
