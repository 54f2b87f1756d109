#pragma once
// A reverse-mode tape over batched tensors. The graph is recorded once per run (the layer's
// forward as a list of ops), then plan() allocates one arena for every activation, gradient
// and op scratch buffer; each training step only runs forward() and backward() over it, so no
// memory is allocated per step. Each op has a forward and a backward kernel side by side in
// tape/ops/, parallel over the batch; gradients of shared operands are summed over samples in a
// fixed order, so results are bit-identical at any thread count.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace ufl {

struct Var {
  int id = -1;
  bool valid() const { return id >= 0; }
};

template <class T>
class Tape;

template <class T>
struct Op {
  virtual ~Op() = default;
  // Elements of scratch memory the op needs (planned with everything else).
  virtual std::size_t scratch_elements(const Tape<T>&) const { return 0; }
  virtual void forward(Tape<T>& tape) = 0;
  // Adds this op's contribution to the gradients of its inputs that need one.
  virtual void backward(Tape<T>& tape) = 0;

  std::vector<Var> inputs;
  Var output;
  T* scratch = nullptr;
};

template <class T>
class Tape {
 public:
  // A per-run input, filled by the caller before each forward(). `requires_grad` is for
  // gradient checks of ops with respect to their inputs.
  Var input(Shape shape, std::string name, bool requires_grad = false) {
    return add_node(shape, requires_grad, std::move(name), nullptr, nullptr);
  }
  // A value shared by all samples that never needs a gradient; fill it after plan().
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
    bool needs = false;
    for (Var in : op->inputs) needs = needs || nodes_.at(in.id).needs_grad;
    Var out = add_node(shape, needs, std::move(name), nullptr, nullptr);
    op->output = out;
    ops_.push_back(std::move(op));
    return out;
  }

  // Allocates all activations, gradients and scratch in one arena. Call once, after recording.
  void plan() {
    std::size_t total = 0;
    auto reserve = [&total](std::size_t elements) {
      const std::size_t offset = total;
      total += (elements + 15) / 16 * 16;  // keep every buffer 64-byte aligned
      return offset;
    };
    std::vector<std::size_t> value_offset(nodes_.size()), grad_offset(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].external_value) value_offset[i] = reserve(nodes_[i].shape.size());
    }
    gradients_begin_ = total;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].needs_grad && !nodes_[i].external_grad)
        grad_offset[i] = reserve(nodes_[i].shape.size());
    }
    gradients_end_ = total;
    std::vector<std::size_t> scratch_offset(ops_.size());
    for (std::size_t k = 0; k < ops_.size(); ++k)
      scratch_offset[k] = reserve(ops_[k]->scratch_elements(*this));
    arena_.assign(total + 16, T(0));
    T* base = aligned_base();
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      Node& node = nodes_[i];
      if (!node.external_value) node.value = base + value_offset[i];
      if (node.needs_grad && !node.external_grad) node.grad = base + grad_offset[i];
    }
    for (std::size_t k = 0; k < ops_.size(); ++k) ops_[k]->scratch = base + scratch_offset[k];
    planned_ = true;
  }

  void forward() {
    require_planned();
    for (auto& op : ops_) op->forward(*this);
  }

  // Gradients of the scalar `loss` with respect to every node that needs one.
  void backward(Var loss) {
    require_planned();
    const Node& loss_node = nodes_.at(loss.id);
    if (loss_node.shape.size() != 1) throw std::logic_error("backward() needs a scalar loss");
    T* base = aligned_base();
    std::fill(base + gradients_begin_, base + gradients_end_, T(0));
    for (Node& node : nodes_)
      if (node.external_grad) std::fill(node.grad, node.grad + node.shape.size(), T(0));
    if (!loss_node.needs_grad) return;
    loss_node.grad[0] = T(1);
    for (auto it = ops_.rbegin(); it != ops_.rend(); ++it)
      if (nodes_[(*it)->output.id].needs_grad) (*it)->backward(*this);
  }

  Tensor<T> value(Var v) const { return Tensor<T>{nodes_.at(v.id).value, nodes_.at(v.id).shape}; }
  Tensor<T> grad(Var v) const { return Tensor<T>{nodes_.at(v.id).grad, nodes_.at(v.id).shape}; }
  const Shape& shape(Var v) const { return nodes_.at(v.id).shape; }
  bool needs_grad(Var v) const { return nodes_.at(v.id).needs_grad; }
  const std::string& name(Var v) const { return nodes_.at(v.id).name; }
  std::size_t arena_bytes() const { return arena_.size() * sizeof(T); }
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

  Var add_node(Shape shape, bool needs_grad, std::string name, T* value, T* grad) {
    if (planned_) throw std::logic_error("cannot record '" + name + "' after plan()");
    if (shape.batch < 1 || shape.rows < 1 || shape.cols < 1)
      throw std::logic_error("tensor '" + name + "' has empty shape " + shape.str());
    Node node{shape, needs_grad, std::move(name), value, grad, value != nullptr, grad != nullptr};
    nodes_.push_back(std::move(node));
    return Var{static_cast<int>(nodes_.size()) - 1};
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
  std::vector<T> arena_;
  std::size_t gradients_begin_ = 0, gradients_end_ = 0;
  bool planned_ = false;
};

}  // namespace ufl
