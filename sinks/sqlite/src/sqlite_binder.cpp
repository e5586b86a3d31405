#include "sqlite_binder.h"

#include <fmt/format.h>

#include <limits>

namespace ksink::sqlite {

using Affinity = SqliteDialect::Affinity;

std::optional<std::string> bindValue(SQLite::Statement& st, int index, const Value& v,
                                     const ColumnBinding& c, std::string& scratch) {
  enum class Rep { kNull, kInt, kReal, kText, kJson, kBlob } rep = Rep::kNull;
  switch (v.kind()) {
    case Value::Kind::kNull:
      st.bind(index);
      break;
    case Value::Kind::kBoolean:
      st.bind(index, v.asBoolean() ? 1 : 0);
      rep = Rep::kInt;
      break;
    case Value::Kind::kInt:
      rep = Rep::kText;
      switch (c.logical) {
        case Schema::Logical::kDate:
          scratch = Value::dateToString(v.asInt());
          break;
        case Schema::Logical::kTime:
          scratch = Value::timeToString(v.asInt());
          break;
        case Schema::Logical::kTimestamp:
          scratch = Value::timestampToString(v.asInt());
          break;
        case Schema::Logical::kMicroTime:
        case Schema::Logical::kNanoTime:
          // SQLite keeps text as it is: nanoseconds too.
          scratch = Value::timeToString(v.asInt(), Schema::unitsPerSecond(c.logical));
          break;
        case Schema::Logical::kLocalTimestamp:
        case Schema::Logical::kMicroTimestamp:
        case Schema::Logical::kNanoTimestamp:
          scratch = Value::timestampToString(v.asInt(), Schema::unitsPerSecond(c.logical));
          break;
        default:
          st.bind(index, static_cast<int64_t>(v.asInt()));
          rep = Rep::kInt;
      }
      if (rep == Rep::kText) st.bindNoCopy(index, scratch);
      break;
    case Value::Kind::kDouble:
      if (c.affinity == Affinity::kInteger &&
          v.asDouble() != static_cast<double>(static_cast<int64_t>(v.asDouble())))
        return fmt::format("{} does not fit INTEGER column {}", v.asDouble(),
                           quoteIdentifier(c.name));
      st.bind(index, v.asDouble());
      rep = Rep::kReal;
      break;
    case Value::Kind::kString:
      st.bindNoCopy(index, v.asString());
      rep = Rep::kText;
      break;
    case Value::Kind::kBytes:
      if (c.logical == Schema::Logical::kDecimal) {
        scratch = Value::decimalToString(v.asBytes(), c.scale);
        st.bindNoCopy(index, scratch);
        rep = Rep::kReal;  // numeric text: fits number columns
      } else if (c.logical == Schema::Logical::kBits) {
        scratch = Value::bitsToString(v.asBytes(), c.bits_length);
        st.bindNoCopy(index, scratch);
        rep = Rep::kText;
      } else {
        st.bindNoCopy(index, v.asBytes().data(), static_cast<int>(v.asBytes().size()));
        rep = Rep::kBlob;
      }
      break;
    case Value::Kind::kArray:
    case Value::Kind::kObject:
      if (c.logical == Schema::Logical::kVariableScaleDecimal) {
        const Value* scale = v.find("scale");
        const Value* unscaled = v.find("value");
        if (scale && unscaled && scale->kind() == Value::Kind::kInt &&
            unscaled->kind() == Value::Kind::kBytes && !unscaled->asBytes().empty() &&
            scale->asInt() >= std::numeric_limits<int32_t>::min() &&
            scale->asInt() <= std::numeric_limits<int32_t>::max()) {
          scratch =
              Value::decimalToString(unscaled->asBytes(), static_cast<int32_t>(scale->asInt()));
          st.bindNoCopy(index, scratch);
          rep = Rep::kReal;  // numeric text, as a Decimal's
          break;
        }
      }
      scratch = v.toJson();
      st.bindNoCopy(index, scratch);
      rep = Rep::kJson;
      break;
  }
  bool fits = true;
  switch (c.affinity) {
    case Affinity::kInteger:
      fits = rep == Rep::kNull || rep == Rep::kInt || rep == Rep::kReal;
      break;
    case Affinity::kReal:
      fits = rep == Rep::kNull || rep == Rep::kInt || rep == Rep::kReal;
      break;
    case Affinity::kNumeric:
      fits = rep != Rep::kBlob && rep != Rep::kJson;
      break;
    case Affinity::kText:
      fits = rep != Rep::kBlob;
      break;
    case Affinity::kBlob:
      break;
  }
  if (fits) return std::nullopt;
  static constexpr const char* kRepNames[] = {"null", "an integer", "a number",
                                              "text", "JSON",       "bytes"};
  return fmt::format("{} does not fit column {} {}", kRepNames[static_cast<int>(rep)],
                     quoteIdentifier(c.name), c.declared_type);
}

}  // namespace ksink::sqlite
