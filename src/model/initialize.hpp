#pragma once
#include <cstdint>

#include "model/parameters.hpp"

namespace ufl::model {

// Spec §2 initialisation: position rows of A and B ~ N(0, 1/n), content rows
// ~ N(0, c²/(n·d)) with c = content_init_scale, bias rows 0, s = 0, g = 0, W_v = I.
// Draw order: A content, A position, B content, B position (row-major), from the layer-init
// stream of `seed`.
void initialize(Parameters<float>& params, double content_init_scale, std::uint64_t seed);

}  // namespace ufl::model
