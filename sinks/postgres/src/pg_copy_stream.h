// PgCopyStream: one binary COPY of mapped rows of a single layout, fed a row at a time and sent
// to the server as it grows, so the server stores early rows while the task still converts later
// records (on a two-core machine this overlap is most of the insert path's speed).
//
// add() refuses a row with a value that has no binary form (ColumnEncoder), keeping nothing of it;
// the caller then writes the batch another way. Used either streaming (begin / flush / finish on a
// connection) or as an encoder whose bytes the caller sends (data()). Single-threaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "column_encoder.h"
#include "copy_binary_writer.h"
#include "ksink/pg/pg_connection.h"
#include "ksink/record_mapper.h"
#include "pg_table.h"

namespace ksink::postgres {

class PgCopyStream {
 public:
  // Rows of `layout` go to its first `columns` columns, which `table` must have.
  // `timestamps_via_zone`: see PgRowWriter.
  PgCopyStream(const PgTable& table, const RecordMapper::Layout& layout, size_t columns,
               bool timestamps_via_zone);

  // One encoder per column, for the table's type of it (instants for `timestamp` columns as
  // timestamptz when `timestamps_via_zone`).
  static std::vector<ColumnEncoder> encoders(const PgTable& table,
                                             const RecordMapper::Layout& layout, size_t columns,
                                             bool timestamps_via_zone);

  const RecordMapper::Layout* layout() const { return layout_; }
  const std::vector<std::string>& columns() const { return columns_; }
  // The table begin() streams into (quoted), empty before.
  const std::string& target() const { return target_; }

  [[nodiscard]] bool add(const RecordMapper::Row& row);

  // Whether rows of `other` encode exactly as rows of this stream's layout and so may join it:
  // the same table and key columns, the same columns in the same order, each with the same schema
  // or with plain ones on both sides (no logical type, parameters or nested schemas: encoded by
  // the column's type and the value alone). Schemaless records get a layout per shape of their
  // values (a JSON number 5 among 5.25s is an int64), which must not cut the COPY.
  bool accepts(const RecordMapper::Layout& other) const;

  // Streaming: COPY <target> (columns) FROM STDIN (FORMAT binary), then the rows as they come;
  // `then`: statements the server runs once the data ends (e.g. "COMMIT").
  void begin(PgConnection& connection, std::string_view target, std::string_view then = {});
  // Sends the buffered rows once there are enough of them to be worth a write.
  void flush(PgConnection& connection);
  // Sends the rest and the trailer and ends the COPY; returns the rows the server stored.
  int64_t finish(PgConnection& connection);
  // The same without waiting for the server (PgConnection::endCopyLater).
  void finishLater(PgConnection& connection);

  // Not streaming: the whole stream's bytes, trailer included.
  std::string data();

 private:
  const RecordMapper::Layout* layout_;
  std::vector<std::string> columns_;
  std::string target_;
  std::vector<ColumnEncoder> encoders_;
  CopyBinaryWriter out_;
};

}  // namespace ksink::postgres
