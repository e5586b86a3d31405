// The names and parameters by which Confluent's AvroData marks Connect's schemas in Avro and Avro's
// in Connect: shared by the reading (avro_data.h) and the writing (avro_writer.h) side.
#pragma once

#include <string_view>

#include "avro/avro_schema.h"

namespace ksink::avro {

inline constexpr std::string_view kUnionName = "io.confluent.connect.avro.Union";
inline constexpr std::string_view kMapEntryName = "io.confluent.connect.avro.MapEntry";
inline constexpr std::string_view kEnumParameter = "io.confluent.connect.avro.Enum";
inline constexpr std::string_view kDefaultName = "io.confluent.connect.avro.ConnectDefault";
inline constexpr std::string_view kFixedSizeParameter = "connect.fixed.size";
inline constexpr std::string_view kPrecisionParameter = "connect.decimal.precision";

// The name of a general union's branch, which is its Connect Union struct's field: a record's,
// enum's or fixed's simple name, else the Avro type's name ("string", "array"…).
inline std::string_view branchName(const AvroNode& branch) {
  const bool named = branch.type == AvroNode::Type::kRecord ||
                     branch.type == AvroNode::Type::kEnum || branch.type == AvroNode::Type::kFixed;
  return named ? branch.simpleName() : AvroNode::typeName(branch.type);
}

// The branch a union stands for when it is a plain (or optional) value — a union of one branch, or
// of null and one other — and nullptr when it is a general union (Connect's Union struct).
inline const AvroNode* plainBranch(const AvroNode& u) {
  const auto& b = u.branches;
  if (b.size() == 1) return b[0];
  const auto isNull = [](const AvroNode* n) { return n->type == AvroNode::Type::kNull; };
  if (b.size() == 2 && isNull(b[0]) != isNull(b[1])) return isNull(b[0]) ? b[1] : b[0];
  return nullptr;
}

}  // namespace ksink::avro
