// PgRowWriter: writes a run of mapped rows of one layout into its table, inside the caller's
// transaction: COPY straight into the table for inserts, or COPY into a session-local staging
// table followed by one set-based statement (upsert, update, delete, or an insert that needs a
// server-side conversion). See PgSql for the statements.
//
// Upserts of keys the table does not have yet are first tried as a plain COPY into the table
// (under a savepoint), the cost of an insert; a batch with an existing key is undone and staged.
//
// Each run is encoded in PostgreSQL's binary COPY format when every value has a binary form for
// its column, else in the text format (ColumnEncoder). Staging tables are created once per
// connection and layout, by prepareStaging() before the transaction that uses them (a rollback
// would drop one created inside it, while its name stayed here), and emptied by the commit (ON
// COMMIT DELETE ROWS).
//
// Errors are PgErrors from the connection, unclassified here. Single-threaded, like the
// connection it is used with.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ksink/pg/pg_connection.h"
#include "ksink/record_mapper.h"
#include "pg_table.h"

namespace ksink::postgres {

class PgRowWriter {
 public:
  // kTruncate empties the table (one row in the segment: the truncate).
  enum class Op { kInsert, kUpsert, kUpdate, kDelete, kTruncate };

  // Rows of one layout (one table), all written with the same operation.
  struct Segment {
    const RecordMapper::Layout* layout = nullptr;
    Op op = Op::kInsert;
    std::vector<const RecordMapper::Row*> rows;
  };

  // `timestamps_via_zone`: db.timezone is not UTC, so instants bound for `timestamp` columns
  // are staged as timestamptz and converted by the server in the session's TimeZone.
  explicit PgRowWriter(bool timestamps_via_zone) : timestamps_via_zone_(timestamps_via_zone) {}

  // A new connection: the old one's staging tables are gone.
  void reset();
  // A new transaction on the same connection.
  void beginTransaction() { used_in_transaction_.clear(); }

  // Whether rows of `layout` must go through a staging table even in insert mode (a column
  // converted by the server).
  bool needsStaging(const PgTable& table, const RecordMapper::Layout& layout) const;

  // Creates the staging table `segment` will need, if it needs one that does not exist yet.
  // Called outside any transaction, for every segment a transaction will write.
  void prepareStaging(PgConnection& connection, const PgTable& table, const Segment& segment);
  // Drops every staging table when more than kMaxStagingTables exist (schemaless data whose key
  // order varies makes one per shape), so a session's temporary tables stay bounded. Called
  // outside any transaction, before the prepareStaging() calls of one.
  static constexpr size_t kMaxStagingTables = 64;
  void boundStaging(PgConnection& connection);

  // Writes `segment` into `table`, which has every column of the segment's layout.
  void write(PgConnection& connection, const PgTable& table, const Segment& segment);

  // Upserts into a table whose recent batches held only new keys are first tried as a plain
  // COPY into it (here, or streamed by the caller); after a batch with existing keys that is
  // skipped for the next 1, 3, 7 … 63 batches. `table` is quoted.
  bool upsertsLikelyNew(const std::string& table) const;
  void straightUpsertDone(const std::string& table, bool keys_were_new);

  // Encodes the rows' first `columns` values as COPY data, binary when possible. Exposed for
  // tests and the benchmark.
  struct Encoded {
    std::string data;
    bool binary = false;
  };
  // The columns a segment writes, and how.
  struct Target {
    std::vector<std::string> columns;
    std::vector<bool> as_timestamptz;  // staged as timestamptz, converted by the server
    bool convert = false;              // any of as_timestamptz
    bool staged = false;               // through a staging table
  };
  // What identifies a staging table: the table and the target's columns. Exposed for tests.
  static std::string stagingSignature(const PgTable& table, const Target& target);

  static Encoded encode(const PgTable& table, const RecordMapper::Layout& layout,
                        std::span<const RecordMapper::Row* const> rows, size_t columns,
                        bool timestamps_via_zone);

 private:
  Target targetOf(const PgTable& table, const Segment& segment) const;
  // The prepared staging table for `target`, emptied if this transaction used it already.
  std::string stagingFor(PgConnection& connection, const PgTable& table, const Target& target);

  // Whether to try an upsert batch as a plain COPY into the table (counting down the batches
  // to skip).
  bool tryCopyingUpsertsStraight(const std::string& table);

  struct StraightUpserts {
    int failures = 0;  // consecutive batches that had existing keys
    int skip = 0;      // batches to stage before trying again
  };

  bool timestamps_via_zone_;
  std::unordered_map<std::string, StraightUpserts> straight_upserts_;  // by quoted table name
  std::unordered_map<std::string, std::string> staging_;  // table + columns → staging table
  std::set<std::string> used_in_transaction_;
  int next_staging_ = 0;
};

}  // namespace ksink::postgres
