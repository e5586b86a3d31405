// The OIDs of PostgreSQL's built-in types that ksink reads or writes natively. They are fixed for
// built-in types (src/include/catalog/pg_type.dat), so no lookup is needed.
#pragma once

#include <cstdint>

namespace ksink::postgres {

struct PgTypeOids {
  static constexpr uint32_t kBool = 16;
  static constexpr uint32_t kBytea = 17;
  static constexpr uint32_t kName = 19;
  static constexpr uint32_t kInt8 = 20;
  static constexpr uint32_t kInt2 = 21;
  static constexpr uint32_t kInt4 = 23;
  static constexpr uint32_t kText = 25;
  static constexpr uint32_t kOid = 26;
  static constexpr uint32_t kJson = 114;
  static constexpr uint32_t kXml = 142;
  static constexpr uint32_t kFloat4 = 700;
  static constexpr uint32_t kFloat8 = 701;
  static constexpr uint32_t kBpchar = 1042;
  static constexpr uint32_t kVarchar = 1043;
  static constexpr uint32_t kDate = 1082;
  static constexpr uint32_t kTime = 1083;
  static constexpr uint32_t kTimestamp = 1114;
  static constexpr uint32_t kTimestamptz = 1184;
  static constexpr uint32_t kTimetz = 1266;
  static constexpr uint32_t kBit = 1560;
  static constexpr uint32_t kVarbit = 1562;
  static constexpr uint32_t kNumeric = 1700;
  static constexpr uint32_t kUuid = 2950;
  static constexpr uint32_t kJsonb = 3802;
  // Arrays of the element types above (pg_type.dat's array_type_oid).
  static constexpr uint32_t kBoolArray = 1000;
  static constexpr uint32_t kByteaArray = 1001;
  static constexpr uint32_t kInt2Array = 1005;
  static constexpr uint32_t kInt4Array = 1007;
  static constexpr uint32_t kTextArray = 1009;
  static constexpr uint32_t kVarcharArray = 1015;
  static constexpr uint32_t kInt8Array = 1016;
  static constexpr uint32_t kFloat4Array = 1021;
  static constexpr uint32_t kFloat8Array = 1022;
  static constexpr uint32_t kNumericArray = 1231;
  static constexpr uint32_t kNameArray = 1003;
  static constexpr uint32_t kBpcharArray = 1014;
  static constexpr uint32_t kOidArray = 1028;
  static constexpr uint32_t kDateArray = 1182;
  static constexpr uint32_t kTimeArray = 1183;
  static constexpr uint32_t kTimestampArray = 1115;
  static constexpr uint32_t kTimestamptzArray = 1185;
  static constexpr uint32_t kJsonArray = 199;
  static constexpr uint32_t kJsonbArray = 3807;
  static constexpr uint32_t kUuidArray = 2951;
};

}  // namespace ksink::postgres
