#include "pg_types.h"

namespace ksink::postgres {

std::string PgTypes::columnType(const Schema& schema) {
  using Type = Schema::Type;
  using Logical = Schema::Logical;
  switch (schema.logical()) {
    case Logical::kDecimal:
      return "numeric";
    case Logical::kDate:
      return "date";
    case Logical::kTime:
      return "time";
    case Logical::kTimestamp:
      return "timestamptz";
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
      if (schema.value_schema && schema.value_schema->isPrimitive())
        return columnType(*schema.value_schema) + "[]";
      return "jsonb";
    case Type::kMap:
    case Type::kStruct:
      return "jsonb";
  }
  return "text";
}

}  // namespace ksink::postgres
