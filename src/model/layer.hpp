#pragma once
// The universal factorization layer of spec §2, recorded on the tape:
//   U = X̃A, V = X̃B, Σ = diag(softplus(s)), S = UΣVᵀ,
//   M = (1−γ)·S + γ·softmax_rows(S), γ = sigmoid(g),   Y = M X W_v,
// and its loss mean((Y−C)²) + λ_orth·mean_batch(‖UᵀU−I‖²_F + ‖VᵀV−I‖²_F)/r².
#include "model/fused_layer_loss.hpp"
#include "model/parameters.hpp"
#include "tape/ops.hpp"

namespace ufl::model {

template <class T>
struct LayerGraph {
  Var x, target, identity;          // inputs and the r×r identity constant
  Var A, B, s, g, W_v;              // parameters
  Var U, V, sigma, gamma, S, M, Y;  // activations
  Var mse, orthogonality, loss;     // invalid when recorded without the loss
  Var per_sample_loss;              // [B, 1, 2] (mse_b, ortho_b) of the fused kernel
};

// How the layer with its loss is put on the tape: one op per step of the formula (the
// reference, and the only way that exposes U, V, S, M and Y), or one fused op per sample that
// computes the same loss and gradients much faster (model/fused_layer_loss.hpp). Without the
// loss the layer is always recorded op by op.
enum class LayerKernels { kFused, kComposite };

// Records the layer for `batch` samples. With `with_loss`, also the target input and the loss.
template <class T>
LayerGraph<T> record_layer(Tape<T>& tape, Parameters<T>& params, int batch, double ortho_weight,
                           bool with_loss, LayerKernels kernels = LayerKernels::kFused) {
  const LayerShape& shape = params.shape;
  LayerGraph<T> graph;
  auto parameter = [&](int index) {
    const ParameterSlice& slice = params.slice(index);
    return tape.parameter(params.value(index), with_loss ? params.grad(index) : nullptr, slice.rows,
                          slice.cols, slice.name);
  };
  graph.A = parameter(Parameters<T>::kA);
  graph.B = parameter(Parameters<T>::kB);
  graph.s = parameter(Parameters<T>::kS);
  graph.g = parameter(Parameters<T>::kG);
  graph.W_v = parameter(Parameters<T>::kWv);
  graph.x = tape.input(Shape{batch, shape.n, shape.d}, "X");
  graph.sigma = softplus(tape, graph.s, "Sigma");
  graph.gamma = sigmoid(tape, graph.g, "gamma");
  if (with_loss) graph.target = tape.input(Shape{batch, shape.n, shape.d}, "C");

  if (with_loss && kernels == LayerKernels::kFused) {
    graph.per_sample_loss = fused_layer_loss(tape, graph.x, graph.target, graph.A, graph.B,
                                             graph.sigma, graph.gamma, graph.W_v);
    graph.mse = column_mean(tape, graph.per_sample_loss, 0, "mse");
    graph.orthogonality = column_mean(tape, graph.per_sample_loss, 1, "orthogonality");
  } else {
    graph.U = homogeneous_project(tape, graph.x, graph.A, "U");
    graph.V = homogeneous_project(tape, graph.x, graph.B, "V");
    const Var u_sigma = diag_scale(tape, graph.U, graph.sigma, "U_Sigma");
    graph.S = matmul(tape, u_sigma, graph.V, false, true, "S");
    const Var attention = softmax_rows(tape, graph.S, "softmax_S");
    graph.M = lerp(tape, graph.S, attention, graph.gamma, "M");
    const Var mixed = matmul(tape, graph.M, graph.x, false, false, "MX");
    graph.Y = matmul(tape, mixed, graph.W_v, false, false, "Y");
    if (!with_loss) return graph;

    graph.identity = tape.constant(Shape{1, shape.r, shape.r}, "I");
    graph.mse = mean(tape, square(tape, sub(tape, graph.Y, graph.target)), "mse");
    // mean over B·r² elements of (UᵀU−I)² is mean_batch(‖UᵀU−I‖²_F)/r².
    auto gram_deviation = [&](Var factor, const char* name) {
      const Var gram = matmul(tape, factor, factor, true, false, std::string(name) + "_gram");
      return mean(tape, square(tape, sub(tape, gram, graph.identity)),
                  std::string(name) + "_ortho");
    };
    graph.orthogonality =
        add(tape, gram_deviation(graph.U, "U"), gram_deviation(graph.V, "V"), "orthogonality");
  }
  graph.loss = add(tape, graph.mse, scale(tape, graph.orthogonality, ortho_weight), "loss");
  return graph;
}

// Plans the tape's memory and fills the constants the layer recorded.
template <class T>
void plan_layer(Tape<T>& tape, const LayerGraph<T>& graph) {
  tape.plan();
  if (graph.identity.valid()) {
    const auto identity = tape.value(graph.identity);
    identity.matrix(0).setIdentity();
  }
}

}  // namespace ufl::model
