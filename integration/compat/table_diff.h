// tableDifferences: how the tables of one PostgreSQL schema differ from those of another, as
// lines a person reads and a test compares: which tables and columns exist, each column's type,
// default and nullability, the column order, the primary key, and the rows (as text, over the
// columns both tables have, as multisets). Used by the differential test, which runs the same
// connector configuration through Kafka Connect with the Debezium JDBC sink and through ksink.
//
// Line formats (`<a>` is the first schema's side name, `<b>` the second's):
//   <table>: only in <a>
//   <table>.<column>: only in <a>
//   <table>.<column>: type <x> (<a>) / <y> (<b>)        also: default, null
//   <table>: column order <x, y> (<a>) / <y, x> (<b>)   (over the columns both have)
//   <table>: primary key (<x>) (<a>) / (<y>) (<b>)
//   <table>: row only in <a>: <row as text>
// Lines come sorted. ksink's own offsets table (ksink_offsets) is not compared.
#pragma once

#include <string>
#include <vector>

#include "test_postgres.h"

namespace ksink::it {

struct SchemaSide {
  std::string label;  // "Connect", "ksink"
  PgTestSchema* schema;
};

std::vector<std::string> tableDifferences(const SchemaSide& a, const SchemaSide& b);

}  // namespace ksink::it
