// Building a model (model.hpp): compiled here once for float rather than in every file that builds
// a model; the double models with the tests (model/block.hpp, build_blocks).
#include "model/model_build.hpp"

namespace ufl::model {

template class Model<float>;

}  // namespace ufl::model
