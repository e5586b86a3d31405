#include "pg_types.h"

namespace ksink::postgres {

std::string PgTypes::columnType(const Schema& schema) {
  using Type = Schema::Type;
  using Logical = Schema::Logical;
  switch (schema.logical()) {
    case Logical::kDecimal:
    case Logical::kVariableScaleDecimal:
      return "numeric";
    case Logical::kDate:
      return "date";
    case Logical::kTime:
    case Logical::kMicroTime:
    case Logical::kNanoTime:
      return "time";
    case Logical::kTimestamp:
    case Logical::kZonedTimestamp:
      return "timestamptz";
    case Logical::kLocalTimestamp:
    case Logical::kMicroTimestamp:
    case Logical::kNanoTimestamp:
      return "timestamp";
    case Logical::kZonedTime:
      return "timetz";
    case Logical::kUuid:
      return "uuid";
    case Logical::kJson:
      return "jsonb";
    case Logical::kXml:
      return "xml";
    case Logical::kEnum:
    case Logical::kEnumSet:
      return "text";
    case Logical::kBits:
      // Not bit(n): a value whose schema has no usable "length" is as wide as its highest set
      // bit, so widths can vary.
      return "bit varying";
    case Logical::kNone:
      break;
  }
  switch (schema.type) {
    case Type::kInt8:
    case Type::kInt16:
      return "smallint";
    case Type::kInt32:
      return "integer";
    case Type::kInt64:
      return "bigint";
    case Type::kFloat32:
      return "real";
    case Type::kFloat64:
      return "double precision";
    case Type::kBoolean:
      return "boolean";
    case Type::kString:
      return "text";
    case Type::kBytes:
      return "bytea";
    case Type::kArray:
      if (schema.value_schema && (schema.value_schema->isPrimitive() ||
                                  schema.value_schema->logical() == Logical::kVariableScaleDecimal))
        return columnType(*schema.value_schema) + "[]";
      return "jsonb";
    case Type::kMap:
    case Type::kStruct:
      return "jsonb";
  }
  return "text";
}

bool PgTypes::convertedViaZone(uint32_t column_oid, const Schema& schema,
                               bool timestamps_via_zone) {
  if (!timestamps_via_zone || column_oid != kTimestamp) return false;
  const auto logical = schema.logical();
  return logical != Schema::Logical::kLocalTimestamp &&
         logical != Schema::Logical::kMicroTimestamp && logical != Schema::Logical::kNanoTimestamp;
}

}  // namespace ksink::postgres
