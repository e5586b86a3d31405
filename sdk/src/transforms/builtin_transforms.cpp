#include "builtin_transforms.h"

namespace ksink::detail {

void registerBuiltinTransforms(TransformationRegistry& registry) {
  (void)registry;
}

}  // namespace ksink::detail
