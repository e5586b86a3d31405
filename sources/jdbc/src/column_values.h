// What the PostgreSQL and SQLite column readers share: the Connect schemas they declare and the
// decimal values they read from a number's text (a Decimal at its column's scale, or Debezium's
// VariableScaleDecimal at the value's own).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::jdbc {

std::shared_ptr<Schema> columnSchema(Schema::Type type, bool optional, std::string_view name = {});
// Connect's logical types (Decimal, Date, Time, Timestamp): version 1, as Connect builds them.
std::shared_ptr<Schema> logicalSchema(Schema::Type type, bool optional, std::string_view name);
std::shared_ptr<Schema> decimalSchema(int32_t scale, bool optional);
std::shared_ptr<Schema> variableScaleDecimalSchema(bool optional);

// Throw std::invalid_argument for text that is not a plain decimal number (or has more digits
// after the point than `scale`).
Value decimalValue(std::string_view text, int32_t scale);
Value variableScaleDecimalValue(std::string_view text);

// The index of the column `name` among `fields`; DbError (kFatal) naming it when there is none.
size_t columnIndex(const std::vector<Schema::Field>& fields, const std::string& name);

}  // namespace ksink::jdbc
