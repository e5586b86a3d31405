// TablePolicy against an in-memory catalog: what a table sink does when a layout's table is
// missing or lacks columns, under auto.create / auto.evolve.
#include "ksink/table_policy.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ksink/schema.h"

namespace ksink {
namespace {

struct FakeCatalog : TablePolicy::Catalog {
  std::map<std::string, std::set<std::string>> tables;  // what the destination holds
  std::map<std::string, std::set<std::string>> seen;    // what the sink last read
  std::vector<std::string> ddl;

  bool exists(const std::string& table, bool refresh) override {
    if (refresh || !seen.contains(table)) {
      if (auto it = tables.find(table); it != tables.end())
        seen[table] = it->second;
      else
        seen.erase(table);
    }
    return seen.contains(table);
  }
  bool hasColumn(const std::string& table, const std::string& column) override {
    return seen[table].contains(column);
  }
  void create(const RecordMapper::Layout& layout) override {
    ddl.push_back("create " + layout.table);
    for (const auto& c : layout.columns) tables[layout.table].insert(c.name);
  }
  void addColumn(const std::string& table, const RecordMapper::Column& column) override {
    ddl.push_back("add " + column.name);
    tables[table].insert(column.name);
  }
  std::string display(const std::string& table) override { return "\"" + table + "\""; }
};

RecordMapper::Layout layout(std::vector<std::string> columns) {
  RecordMapper::Layout l;
  l.table = "t";
  for (auto& name : columns) l.columns.push_back({std::move(name), nullptr, false});
  l.key_count = 1;
  return l;
}

TableSinkConfig config(bool auto_create, bool auto_evolve) {
  TableSinkConfig c;
  c.auto_create = auto_create;
  c.auto_evolve = auto_evolve;
  return c;
}

TEST(TablePolicyTest, AMissingTableIsCreatedUnderAutoCreate) {
  FakeCatalog catalog;
  auto r = TablePolicy(config(true, false)).resolve(catalog, layout({"id", "a"}), 2, false);
  EXPECT_TRUE(r.exists);
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(catalog.ddl, (std::vector<std::string>{"create t"}));
}

TEST(TablePolicyTest, AMissingTableWithoutAutoCreateIsAConfigExceptionNamingIt) {
  FakeCatalog catalog;
  try {
    TablePolicy(config(false, true)).resolve(catalog, layout({"id"}), 1, false);
    FAIL();
  } catch (const ConfigException& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].key, "auto.create");
    EXPECT_NE(e.problems()[0].reason.find("table \"t\" does not exist"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(catalog.ddl.empty());
}

TEST(TablePolicyTest, ADeleteFromAMissingTableHasNothingToDo) {
  FakeCatalog catalog;
  auto r = TablePolicy(config(true, true)).resolve(catalog, layout({"id", "a"}), 1, true);
  EXPECT_FALSE(r.exists);
  EXPECT_TRUE(catalog.ddl.empty());
}

TEST(TablePolicyTest, MissingColumnsAreAddedUnderAutoEvolve) {
  FakeCatalog catalog;
  catalog.tables["t"] = {"id"};
  auto r = TablePolicy(config(false, true)).resolve(catalog, layout({"id", "a", "b"}), 3, false);
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(catalog.ddl, (std::vector<std::string>{"add a", "add b"}));
}

TEST(TablePolicyTest, MissingColumnsWithoutAutoEvolveAreReturnedAndNothingChanges) {
  FakeCatalog catalog;
  catalog.tables["t"] = {"id"};
  auto r = TablePolicy(config(true, false)).resolve(catalog, layout({"id", "a"}), 2, false);
  EXPECT_EQ(r.missing, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(catalog.ddl.empty());
  const auto e = TablePolicy::missingColumns("\"t\"", r.missing);
  EXPECT_EQ(e.problems()[0].key, "auto.evolve");
  EXPECT_NE(e.problems()[0].reason.find("table \"t\" has no column(s) a"), std::string::npos);
}

TEST(TablePolicyTest, AColumnAnotherTaskAddedMeanwhileIsFoundByReReadingTheCatalog) {
  FakeCatalog catalog;
  catalog.tables["t"] = {"id"};
  catalog.exists("t", false);       // the sink's view: only id
  catalog.tables["t"].insert("a");  // another task evolves the table
  auto r = TablePolicy(config(false, false)).resolve(catalog, layout({"id", "a"}), 2, false);
  EXPECT_TRUE(r.missing.empty());
  EXPECT_TRUE(catalog.ddl.empty());
}

TEST(TablePolicyTest, AtStartEveryMissingTableIsNamedWithItsTopic) {
  FakeCatalog catalog;
  catalog.tables["b"] = {"id"};
  TableSinkConfig c = config(false, false);
  try {
    TablePolicy(c).checkTablesAtStart(catalog, c, {"a", "b", "z"}, "/x.db");
    FAIL();
  } catch (const ConfigException& e) {
    ASSERT_EQ(e.problems().size(), 2u) << e.what();
    EXPECT_NE(e.problems()[0].reason.find("table \"a\" for topic a does not exist in /x.db"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.problems()[1].reason.find("\"z\""), std::string::npos) << e.what();
  }
  c.auto_create = true;
  EXPECT_NO_THROW(TablePolicy(c).checkTablesAtStart(catalog, c, {"a"}));
}

}  // namespace
}  // namespace ksink
