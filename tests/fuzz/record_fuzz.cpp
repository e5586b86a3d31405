// Fuzz target: the whole record → row path of the table sinks — converter, transform chain,
// RecordMapper, and the PostgreSQL sink's column encoders (binary COPY, then text) — on records
// whose schemas and parameters (decimal scales, logical types, nesting, field names) come from
// the input. The only acceptable failure is ConversionError (a bad record); any other exception,
// crash, hang, sanitizer report or allocation past the RSS limit is a bug: such a record would
// stop a connector for good, where it should go to the dead-letter queue.
//
// Input: [scenario][key length][column type] then the key's bytes and the value's.
// The scenario picks one of the connector configurations below; the column type, whether the
// table's columns are those auto.create would make or all text / all jsonb (an existing table).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/conversion_error.h"
#include "ksink/record_mapper.h"
#include "ksink/table_sink_config.h"
#include "pg_row_writer.h"
#include "pg_types.h"

namespace {

using Props = std::map<std::string, std::string>;

// Connector configurations: converters, key modes and transform chains users run.
const std::vector<Props>& scenarios() {
  static const std::vector<Props> all = {
      {{"value.converter.schemas.enable", "true"}},
      {{"value.converter.schemas.enable", "false"},
       {"insert.mode", "upsert"},
       {"pk.mode", "record_value"},
       {"pk.fields", "id"}},
      {{"key.converter.schemas.enable", "false"},
       {"value.converter.schemas.enable", "false"},
       {"pk.mode", "record_key"},
       {"delete.enabled", "true"}},
      {{"pk.mode", "record_key"},
       {"delete.enabled", "true"},
       {"insert.mode", "upsert"},
       {"transforms", "unwrap"},
       {"transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"},
       {"transforms.unwrap.route.by.field", "name"},
       {"transforms.unwrap.add.fields", "op,source.table"}},
      {{"transforms", "cast,flat"},
       {"transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"},
       {"transforms.cast.spec", "id:string,price:float64,name:int32"},
       {"transforms.flat.type", "org.apache.kafka.connect.transforms.Flatten$Value"}},
      {{"transforms", "ts,mask,rename"},
       {"transforms.ts.type", "org.apache.kafka.connect.transforms.TimestampConverter$Value"},
       {"transforms.ts.field", "at"},
       {"transforms.ts.target.type", "string"},
       {"transforms.ts.format", "yyyy-MM-dd HH:mm:ss.SSS"},
       {"transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"},
       {"transforms.mask.fields", "name"},
       {"transforms.rename.type", "org.apache.kafka.connect.transforms.ReplaceField$Value"},
       {"transforms.rename.renames", "id:key_id"}},
      {{"value.converter", "string"}},
  };
  return all;
}

struct Mapper {
  ksink::RecordMapper mapper;
  explicit Mapper(Props props)
      : mapper(
            [&] {
              props.emplace("name", "fuzz");
              props.emplace("auto.create", "true");
              return ksink::TableSinkConfig::parse(ksink::Config(props));
            }(),
            ksink::Config(props)) {}
};

// The type oid (and element oid) auto.create's SQL type has.
std::pair<uint32_t, uint32_t> oidsOf(const std::string& sql) {
  using T = ksink::postgres::PgTypes;
  static const std::map<std::string, uint32_t> types = {{"smallint", T::kInt2},
                                                        {"integer", T::kInt4},
                                                        {"bigint", T::kInt8},
                                                        {"real", T::kFloat4},
                                                        {"double precision", T::kFloat8},
                                                        {"boolean", T::kBool},
                                                        {"text", T::kText},
                                                        {"bytea", T::kBytea},
                                                        {"numeric", T::kNumeric},
                                                        {"date", T::kDate},
                                                        {"time", T::kTime},
                                                        {"timestamptz", T::kTimestamptz},
                                                        {"timestamp", T::kTimestamp},
                                                        {"timetz", T::kTimetz},
                                                        {"jsonb", T::kJsonb},
                                                        {"uuid", T::kUuid},
                                                        {"xml", T::kXml},
                                                        {"bit varying", T::kVarbit}};
  if (sql.ends_with("[]")) {
    const auto element = types.find(sql.substr(0, sql.size() - 2));
    return {0, element == types.end() ? T::kText : element->second};
  }
  const auto it = types.find(sql);
  return {it == types.end() ? T::kText : it->second, 0};
}

ksink::postgres::PgTable tableFor(const ksink::RecordMapper::Layout& layout, uint8_t column_type) {
  ksink::postgres::PgTable table;
  table.id = ksink::postgres::TableId::parse(layout.table, "${topic}");
  for (const auto& c : layout.columns) {
    ksink::postgres::PgTable::Column column{c.name};
    switch (column_type % 3) {
      case 0: {
        const auto [type, element] = oidsOf(ksink::postgres::PgTypes::columnType(*c.schema));
        column.type_oid = type;
        column.element_oid = element;
        break;
      }
      case 1:
        column.type_oid = ksink::postgres::PgTypes::kText;
        break;
      default:
        column.type_oid = ksink::postgres::PgTypes::kJsonb;
        break;
    }
    table.columns.push_back(std::move(column));
  }
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<std::unique_ptr<Mapper>> mappers = [] {
    std::vector<std::unique_ptr<Mapper>> out;
    for (const auto& props : scenarios()) out.push_back(std::make_unique<Mapper>(props));
    return out;
  }();
  if (size < 3) return 0;
  auto& mapper = mappers[data[0] % mappers.size()]->mapper;
  const size_t key_size = std::min<size_t>(data[1], size - 3);
  const uint8_t column_type = data[2];
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  const auto key = rest.substr(0, key_size);
  const auto value = rest.substr(key_size);
  const ksink::SinkRecord record("fuzz.topic", 0, 7, 1700000000000,
                                 key.empty() ? std::nullopt : std::optional(key),
                                 value.empty() ? std::nullopt : std::optional(value));
  try {
    auto row = mapper.map(record);
    if (!row || row->is_truncate) return 0;
    const auto table = tableFor(*row->layout, column_type);
    const ksink::RecordMapper::Row* rows[] = {&*row};
    for (const bool via_zone : {false, true}) {
      const auto encoded = ksink::postgres::PgRowWriter::encode(
          table, *row->layout, rows, row->layout->columns.size(), via_zone);
      (void)encoded;
    }
  } catch (const ksink::ConversionError&) {
  }
  return 0;
}
