// The transforms and predicates that ship with ksink, each in its own file under transforms/,
// registered into the global TransformationRegistry under Connect's (or Debezium's) class names
// and short aliases.
#pragma once

#include "ksink/transformation_registry.h"

namespace ksink::detail {

void registerBuiltinTransforms(TransformationRegistry& registry);

// One per file.
void registerExtractNewRecordState(TransformationRegistry& registry);
void registerDebeziumCollectionName(TransformationRegistry& registry);
void registerInsertField(TransformationRegistry& registry);
void registerReplaceField(TransformationRegistry& registry);
void registerValueToKey(TransformationRegistry& registry);
void registerExtractField(TransformationRegistry& registry);
void registerRegexRouter(TransformationRegistry& registry);
void registerFilter(TransformationRegistry& registry);
void registerTopicNameMatches(TransformationRegistry& registry);
void registerHasHeaderKey(TransformationRegistry& registry);
void registerRecordIsTombstone(TransformationRegistry& registry);
void registerFlatten(TransformationRegistry& registry);
void registerCast(TransformationRegistry& registry);
void registerHoistField(TransformationRegistry& registry);
void registerMaskField(TransformationRegistry& registry);
void registerTimestampRouter(TransformationRegistry& registry);
void registerInsertHeader(TransformationRegistry& registry);
void registerDropHeaders(TransformationRegistry& registry);
void registerHeaderFrom(TransformationRegistry& registry);
void registerTimestampConverter(TransformationRegistry& registry);

}  // namespace ksink::detail
