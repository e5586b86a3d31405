#include "builtin_transforms.h"

namespace ksink::detail {

void registerBuiltinTransforms(TransformationRegistry& registry) {
  registerInsertField(registry);
  registerReplaceField(registry);
  registerValueToKey(registry);
  registerExtractField(registry);
}

}  // namespace ksink::detail
