// A real Debezium PostgreSQL source (Kafka Connect standalone, integration/debezium/start.sh) for
// the integration tests that need change events in Kafka: the initial snapshot of some tables
// (op "r"), then their inserts, updates and deletes (op "c", "u", "d" + tombstone) as Debezium's
// JSON envelope with schemas, in topics <topic_prefix>.<schema>.<table>.
//
//   DebeziumSource source(freshDir("dbz"), RealKafka::shared().bootstrap(),
//                         PgSourceSettings::fromUrl(TestPostgres::shared().url()), prefix,
//                         {"my_schema.items"}, DebeziumSource::uniqueSlotName());
//   source.start();  // returns once the connector and its task are RUNNING
//
// Each source needs a replication slot and a publication of its own: name them with
// uniqueSlotName() (the publication is "<slot>_pub"). The destructor stops the worker and drops
// both, and start() first drops those that a killed test run left behind (inactive slots named
// by uniqueSlotName() for a process that no longer exists), so repeated runs against one server
// neither fail on nor pile up leftovers.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ksink::it {

// Where the source connects: Debezium's database.* properties.
struct PgSourceSettings {
  std::string host;
  int port = 5432;
  std::string user;
  std::string password;
  std::string dbname;
  std::string sslmode;      // libpq's name (e.g. "require"); empty = Debezium's default
  std::string sslrootcert;  // empty = none

  // The parameters a libpq URL or conninfo string (KSINK_TEST_PG_URL's form) resolves to, as
  // libpq resolves them: connects once, so defaults (user, port, PGPASSWORD) are the ones the
  // tests' own connections get. `host` must be a TCP address: the JVM can't use a unix socket.
  static PgSourceSettings fromUrl(const std::string& url);
};

class DebeziumSource {
 public:
  // `tables`: schema-qualified ("public.items"), Debezium's table.include.list. `extra`: any
  // connector property, set last (e.g. {"snapshot.mode", "no_data"},
  // {"decimal.handling.mode", "string"}, {"slot.drop.on.stop", "false"} to resume a stopped
  // source from its slot).
  DebeziumSource(std::filesystem::path workdir, std::string bootstrap, PgSourceSettings pg,
                 std::string topic_prefix, std::vector<std::string> tables, std::string slot,
                 std::map<std::string, std::string> extra = {});
  ~DebeziumSource();  // stop(), then drops the slot and the publication
  DebeziumSource(const DebeziumSource&) = delete;
  DebeziumSource& operator=(const DebeziumSource&) = delete;

  // Starts (or restarts, with its offsets) the worker; returns once the connector and its task
  // are RUNNING (the snapshot may still be under way), with the worker's REST URL. Throws with
  // the script's output (the log tail) on failure.
  std::string start();
  // Stops the worker (SIGTERM, bounded). With the default slot.drop.on.stop=true Debezium drops
  // the slot as it stops.
  void stop();

  const std::string& restUrl() const { return rest_url_; }
  const std::string& slot() const { return slot_; }
  const std::string& publication() const { return publication_; }
  // The topic of one of `tables` ("public.items" -> "<topic_prefix>.public.items").
  std::string topic(const std::string& table) const { return topic_prefix_ + "." + table; }
  // Writes the connector's properties to <workdir>/source.properties (owner-only: the password)
  // and returns the path: start() runs them; a benchmark hands them to its own worker.
  std::filesystem::path writeConnectorProperties() const;
  // The last lines of the worker's log (connect.log), for a failing assertion's message.
  std::string logTail(int lines = 40) const;

  // A slot name no other process uses: [a-z0-9_], names this process, fits PostgreSQL's 63 bytes.
  static std::string uniqueSlotName();

 private:
  void script(const std::string& name, const std::vector<std::string>& args,
              const std::vector<std::string>& env = {});
  void dropSlotAndPublication() const;

  std::filesystem::path workdir_;
  std::string bootstrap_;
  PgSourceSettings pg_;
  std::string topic_prefix_;
  std::vector<std::string> tables_;
  std::string slot_;
  std::string publication_;
  std::map<std::string, std::string> extra_;
  std::string rest_url_;
  bool running_ = false;
};

}  // namespace ksink::it
