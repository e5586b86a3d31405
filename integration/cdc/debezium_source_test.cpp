// The Debezium harness end to end (support/debezium_source.h): a real Debezium PostgreSQL source on
// a Kafka Connect worker streams a table of the test server into the real broker, and the records
// are the ones Debezium documents: the snapshot as op "r" with the primary key as the record key,
// then op "u" for an update, op "d" and a tombstone with the same key for a delete; each column
// type in Debezium's default representation.
#include "debezium_source.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "support/topic_reader.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ksink::test::ConsumedRecord;

// org.apache.kafka.connect.data.Decimal in JSON: the unscaled value as big-endian two's
// complement bytes, base64. Small enough values only (the test's fit in an int64).
int64_t decimalUnscaled(std::string_view base64) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> bytes;
  uint32_t bits = 0;
  int nbits = 0;
  for (const char c : base64) {
    if (c == '=') break;
    const auto v = kAlphabet.find(c);
    if (v == std::string_view::npos)
      throw std::invalid_argument("not base64: " + std::string(base64));
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      bytes.push_back(static_cast<uint8_t>(bits >> nbits));
    }
  }
  if (bytes.empty() || bytes.size() > 8)
    throw std::invalid_argument("bad decimal: " + std::string(base64));
  int64_t value = static_cast<int8_t>(bytes[0]);  // sign-extends
  for (size_t i = 1; i < bytes.size(); ++i) value = value * 256 + bytes[i];
  return value;
}

// One record, parsed: its key's payload.id and, unless a tombstone, its value's envelope.
struct Change {
  int64_t key_id = -1;
  bool tombstone = false;
  std::string op;
  std::string envelope_name;             // the value schema's name
  simdjson::dom::element before, after;  // null elements when absent
};

class DebeziumSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = TestPostgres::shared().freshSchema("dbz");
    slot_ = DebeziumSource::uniqueSlotName();
    table_ = schema_->name() + ".items";
    // The topic prefix need not differ from the slot: both are per-test names.
    topic_ = slot_ + "." + table_;
  }

  Change parse(const ConsumedRecord& r) {
    Change c;
    EXPECT_TRUE(r.key.has_value());
    if (r.key) {
      auto key = keys_.emplace_back().parse(*r.key);
      // Key schema: the primary-key columns only.
      EXPECT_EQ(std::string_view(key["schema"]["name"].get_string().value()), topic_ + ".Key");
      c.key_id = key["payload"]["id"].get_int64().value();
    }
    if (!r.value) {
      c.tombstone = true;
      return c;
    }
    auto value = values_.emplace_back().parse(*r.value);
    c.envelope_name = std::string(value["schema"]["name"].get_string().value());
    auto payload = value["payload"];
    c.op = std::string(payload["op"].get_string().value());
    c.before = payload["before"].value();
    c.after = payload["after"].value();
    return c;
  }

  // The row image `row` (before/after) holds these column values.
  static void expectRow(simdjson::dom::element row, int64_t id, std::string_view name,
                        int64_t price_cents, std::string_view at, bool active) {
    ASSERT_TRUE(row.is_object()) << simdjson::to_string(row);
    EXPECT_EQ(row["id"].get_int64().value(), id);
    EXPECT_EQ(std::string_view(row["name"].get_string().value()), name);
    // numeric(10,2) -> Decimal with scale 2: the unscaled value is the price in cents.
    EXPECT_EQ(decimalUnscaled(row["price"].get_string().value()), price_cents);
    // timestamptz -> io.debezium.time.ZonedTimestamp: ISO-8601 in UTC, with the column's 6
    // fractional digits even when they are zero.
    EXPECT_EQ(std::string_view(row["at"].get_string().value()), at);
    EXPECT_EQ(row["active"].get_bool().value(), active);
  }

  std::unique_ptr<PgTestSchema> schema_;
  std::string slot_, table_, topic_;
  // Each parsed document lives in its own parser (dom elements point into it).
  std::deque<simdjson::dom::parser> keys_, values_;
};

TEST_F(DebeziumSourceTest, SnapshotThenUpdateAndDeleteWithTombstone) {
  schema_->exec(
      "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2), at timestamptz, "
      "active boolean)");
  schema_->exec(
      "INSERT INTO items VALUES "
      "(1, 'one', 1.50, '2024-01-02 03:04:05.123456+00', true), "
      "(2, 'two', -2.25, '2024-06-30 23:59:59+02', false), "
      "(3, 'three', 12345678.99, '1999-12-31 00:00:00+00', true)");

  const auto& bootstrap = RealKafka::shared().bootstrap();
  DebeziumSource source(freshDir("ksink-dbz"), bootstrap,
                        PgSourceSettings::fromUrl(TestPostgres::shared().url()), slot_, {table_},
                        slot_);
  ASSERT_EQ(source.topic(table_), topic_);
  const auto t0 = Clock::now();
  source.start();
  const auto running = Clock::now();

  // The initial snapshot: one op "r" per row, keyed by the primary key, in table order.
  auto records = ksink::test::readPartition(bootstrap, topic_, 0, 1, 60s);
  const auto first = Clock::now();
  records = ksink::test::readPartition(bootstrap, topic_, 0, 3, 30s);
  ASSERT_EQ(records.size(), 3u) << source.logTail();
  std::printf("debezium: start() to RUNNING %.1f s, to the first record %.1f s\n",
              std::chrono::duration<double>(running - t0).count(),
              std::chrono::duration<double>(first - t0).count());
  std::vector<Change> snapshot;
  for (const auto& r : records) snapshot.push_back(parse(r));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(snapshot[i].key_id, static_cast<int64_t>(i + 1));
    EXPECT_EQ(snapshot[i].op, "r");
    EXPECT_EQ(snapshot[i].envelope_name, topic_ + ".Envelope");
    EXPECT_TRUE(snapshot[i].before.is_null());
  }
  expectRow(snapshot[0].after, 1, "one", 150, "2024-01-02T03:04:05.123456Z", true);
  expectRow(snapshot[1].after, 2, "two", -225, "2024-06-30T21:59:59.000000Z", false);
  expectRow(snapshot[2].after, 3, "three", 1234567899, "1999-12-31T00:00:00.000000Z", true);

  // Streaming: an update, then a delete (op "d", then a tombstone with the same key).
  schema_->exec("UPDATE items SET name = 'uno', price = 10.05 WHERE id = 1");
  schema_->exec("DELETE FROM items WHERE id = 2");
  records = ksink::test::readPartition(bootstrap, topic_, 0, 6, 30s);
  ASSERT_EQ(records.size(), 6u) << source.logTail();
  const auto update = parse(records[3]);
  EXPECT_EQ(update.key_id, 1);
  EXPECT_EQ(update.op, "u");
  // Default replica identity: no old row image for an update.
  EXPECT_TRUE(update.before.is_null());
  expectRow(update.after, 1, "uno", 1005, "2024-01-02T03:04:05.123456Z", true);

  const auto del = parse(records[4]);
  EXPECT_EQ(del.key_id, 2);
  EXPECT_EQ(del.op, "d");
  EXPECT_TRUE(del.after.is_null());
  // Default replica identity: the old row image carries the key columns only.
  ASSERT_TRUE(del.before.is_object());
  EXPECT_EQ(del.before["id"].get_int64().value(), 2);
  EXPECT_TRUE(del.before["name"].is_null());

  const auto tombstone = parse(records[5]);
  EXPECT_EQ(tombstone.key_id, 2);
  EXPECT_TRUE(tombstone.tombstone);
  EXPECT_EQ(records[5].key, records[4].key);

  // Stopping drops the slot (slot.drop.on.stop); nothing is left for the next run.
  source.stop();
  PgTestSchema admin(TestPostgres::shared().url(), "public");
  EXPECT_TRUE(
      admin.query(fmt::format("SELECT 1 FROM pg_replication_slots WHERE slot_name = '{}'", slot_))
          .empty());
}

}  // namespace
}  // namespace ksink::it
