// Field paths as Connect's transforms read them (KIP-821 `field.syntax.version`): V1 one
// top-level name, V2 dotted steps. Immutable once built: any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::detail {

// A field path as `field.syntax.version` reads it: V1 one top-level name, V2 dotted steps with
// backtick-quoted names holding dots (`` `a.b`.c ``, backslash escapes a backtick).
class FieldPath {
 public:
  // Throws ConfigException(key, reason) for an incomplete backtick pair.
  FieldPath(std::string_view text, bool v2, std::string_view key);
  const std::vector<std::string>& steps() const { return steps_; }
  // The schema field at the path, or nullptr; throws ConversionError when a step is not a struct.
  const Schema::Field* fieldFrom(const Schema& schema) const;
  // The value at the path in a struct (nullptr value when absent or under a null struct).
  Value valueFrom(const Schema& schema, const Value& value, bool replace_null_with_default) const;
  // The value at the path in a schemaless object.
  Value valueFrom(const Value& value) const;

 private:
  std::vector<std::string> steps_;
};

// `field.syntax.version` (V1 or V2, any case), included into a transform's definitions.
const ConfigDef& fieldSyntaxVersionDef();
bool fieldSyntaxIsV2(std::string_view value);

}  // namespace ksink::detail
