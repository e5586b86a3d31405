#include "builtin_transforms.h"

namespace ksink::detail {

void registerBuiltinTransforms(TransformationRegistry& registry) {
  registerExtractNewRecordState(registry);
  registerDebeziumCollectionName(registry);
  registerInsertField(registry);
  registerReplaceField(registry);
  registerValueToKey(registry);
  registerExtractField(registry);
  registerRegexRouter(registry);
  registerFilter(registry);
  registerTopicNameMatches(registry);
  registerHasHeaderKey(registry);
  registerRecordIsTombstone(registry);
  registerFlatten(registry);
  registerCast(registry);
  registerHoistField(registry);
  registerMaskField(registry);
  registerTimestampRouter(registry);
  registerInsertHeader(registry);
  registerDropHeaders(registry);
  registerHeaderFrom(registry);
  registerTimestampConverter(registry);
}

}  // namespace ksink::detail
