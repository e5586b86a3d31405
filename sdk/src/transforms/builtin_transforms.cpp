#include "builtin_transforms.h"

namespace ksink::detail {

void registerBuiltinTransforms(TransformationRegistry& registry) {
  registerExtractNewRecordState(registry);
  registerDebeziumCollectionName(registry);
}

}  // namespace ksink::detail
