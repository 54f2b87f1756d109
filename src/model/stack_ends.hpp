#pragma once
// The two ends of the stack, which belong to the task (docs/transformer.md §1): how the task's
// input becomes the stream H_0, and what of the last stream H_L its loss reads. Their parameters
// are slices of the model's one buffer, as the blocks' are: the input end's come before every
// block's and the output end's after them, in that order in the initialisation stream too. The
// default here is the float samples' (docs/experiment.md §2); the token task's is
// task/token_ends.hpp. ("Ends", not "head": a head is an attention head, docs/transformer.md §3.)
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
class Model;
template <class T>
struct ModelGraph;

// Holds no state of a model (its slice indices are the model's input_end and output_end), so
// copies of a model, and models built alike, share one StackEnds.
template <class T>
class StackEnds {
 public:
  virtual ~StackEnds() = default;
  // Each head's M reads only positions j ≤ i (next-token prediction).
  virtual bool causal() const { return false; }
  // Adds the input end's parameter slices (before the blocks') or the output end's (after) to
  // the model's buffer and returns their indices.
  virtual std::vector<int> build_input(Model<T>&) const { return {}; }
  virtual std::vector<int> build_output(Model<T>&) const { return {}; }
  // Draws their initial values from the model's one initialisation stream.
  virtual void initialize_input(Model<T>&, data::Rng&) const {}
  virtual void initialize_output(Model<T>&, data::Rng&) const {}
  // Records the input for `batch` samples (graph.x) and returns the stream H_0, which is named
  // input_name() (the block kind may add P to it).
  virtual std::string input_name() const = 0;
  virtual Var record_input(Tape<T>& tape, Model<T>& model, int batch, bool with_grads,
                           ModelGraph<T>& graph) const = 0;
  // Records what the task's loss reads of the last stream H_L: the output Y.
  virtual Var record_output(Tape<T>& tape, Model<T>& model, Var h, bool with_grads) const = 0;
};

// Float n×d samples: H_0 = [X, 0] (n×D, zero-padded to the stream's width), Y = H_L[:, :d]. A
// stream as wide as the data needs neither padding nor slicing: the single layer of
// docs/experiment.md §2 is recorded op for op as before.
template <class T>
class SampleEnds : public StackEnds<T> {
 public:
  std::string input_name() const override { return "H_0"; }
  Var record_input(Tape<T>& tape, Model<T>& model, int batch, bool,
                   ModelGraph<T>& graph) const override {
    graph.x = tape.input(Shape{batch, model.n, model.d}, "X");
    return model.width != model.d ? pad_columns(tape, graph.x, model.width, input_name()) : graph.x;
  }
  Var record_output(Tape<T>& tape, Model<T>& model, Var h, bool) const override {
    return model.width != model.d ? leading_columns(tape, h, model.d, "Y") : h;
  }
};

}  // namespace ufl::model
