// SqliteColumn against a real (in-memory) SQLite database: what the table source makes of what
// SQLite stores, including what SQLite does not check.
#include "sqlite_column.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

namespace ksink::jdbc {
namespace {

// SQLite keeps TEXT as the bytes it was given; the JDBC driver decodes them as Java does, with one
// U+FFFD per malformed sequence, so every string the source writes is valid UTF-8 (and valid JSON).
TEST(SqliteColumnTest, TextThatIsNotValidUtf8ReadsAsJavaDecodesIt) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  db.exec("CREATE TABLE t (s TEXT, b TEXT)");
  SQLite::Statement insert(db, "INSERT INTO t VALUES (?, ?)");
  const std::string malformed = "bad\xff\xfeutf";
  insert.bind(1, malformed);                                             // stored as TEXT
  insert.bind(2, malformed.data(), static_cast<int>(malformed.size()));  // stored as a BLOB
  insert.exec();
  SQLite::Statement select(db, "SELECT s, b FROM t");
  ASSERT_TRUE(select.executeStep());
  const SqliteColumn text("s", "TEXT", true), blob_in_text("b", "TEXT", true);
  EXPECT_EQ(text.read(select.getColumn(0)).asString(), "bad\xef\xbf\xbd\xef\xbf\xbdutf");
  EXPECT_EQ(blob_in_text.read(select.getColumn(1)).asString(), "bad\xef\xbf\xbd\xef\xbf\xbdutf");
}

}  // namespace
}  // namespace ksink::jdbc
