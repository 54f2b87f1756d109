#pragma once
// Every op of the tape, one header per family (forward and backward kernels side by side).
#include "tape/ops/activation.hpp"
#include "tape/ops/columns.hpp"
#include "tape/ops/diag_scale.hpp"
#include "tape/ops/elementwise.hpp"
#include "tape/ops/homogeneous_project.hpp"
#include "tape/ops/matmul.hpp"
#include "tape/ops/reduce.hpp"
#include "tape/ops/softmax.hpp"
#include "tape/ops/transpose.hpp"
