#include "debezium_source.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "child_process.h"
#include "ksink/db/sql_identifier.h"
#include "ksink/pg/pg_handles.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using postgres::PgConnPtr;
using postgres::PgResultPtr;

constexpr std::string_view kSlotPrefix = "ksink_dbz_";

PgConnPtr connectOrThrow(const char* const* keys, const char* const* values, const char* what) {
  PgConnPtr conn(PQconnectdbParams(keys, values, 0));
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw std::runtime_error(
        fmt::format("cannot connect to {}: {}", what, PQerrorMessage(conn.get())));
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

PgConnPtr connect(const PgSourceSettings& pg) {
  const std::string port = std::to_string(pg.port);
  std::vector<const char*> keys{"host", "port", "user", "dbname"};
  std::vector<const char*> values{pg.host.c_str(), port.c_str(), pg.user.c_str(),
                                  pg.dbname.c_str()};
  if (!pg.password.empty()) keys.push_back("password"), values.push_back(pg.password.c_str());
  if (!pg.sslmode.empty()) keys.push_back("sslmode"), values.push_back(pg.sslmode.c_str());
  if (!pg.sslrootcert.empty())
    keys.push_back("sslrootcert"), values.push_back(pg.sslrootcert.c_str());
  keys.push_back(nullptr), values.push_back(nullptr);
  return connectOrThrow(keys.data(), values.data(), pg.host.c_str());
}

// Runs `sql` with text parameters; throws with the server's message.
PgResultPtr run(PGconn* conn, const std::string& sql, const std::vector<std::string>& params = {}) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  PgResultPtr r(PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
  const auto status = PQresultStatus(r.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    throw std::runtime_error(fmt::format("{}: {}", sql, PQerrorMessage(conn)));
  return r;
}

// The pid that uniqueSlotName() put into `name`, or 0 if `name` is not one of its names.
pid_t slotOwner(std::string_view name) {
  if (!name.starts_with(kSlotPrefix)) return 0;
  name.remove_prefix(kSlotPrefix.size());
  pid_t pid = 0;
  size_t i = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) pid = pid * 10 + (name[i] - '0');
  return i > 0 && i < name.size() && name[i] == '_' ? pid : 0;
}

bool processExists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

// Drops the slot once no walsender holds it: right after the worker is gone, the server may not
// have noticed the closed replication connection yet.
void dropSlot(PGconn* conn, const std::string& slot) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (true) {
    auto r = run(conn, "SELECT active FROM pg_replication_slots WHERE slot_name = $1", {slot});
    if (PQntuples(r.get()) == 0) return;
    if (std::string_view(PQgetvalue(r.get(), 0, 0)) == "f") {
      run(conn,
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
          "WHERE slot_name = $1 AND NOT active",
          {slot});
      continue;  // recheck: a walsender may have taken it in between
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("replication slot " + slot + " is still active");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Java .properties syntax: backslashes and line breaks escaped everywhere; in keys also the
// separators and comment marks; a value's leading blank kept (the parser would drop it).
std::string propertiesEscape(std::string_view s, bool key) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '=':
      case ':':
      case '#':
      case '!':
        if (key) out += '\\';
        out += c;
        break;
      case ' ':
        if (key || i == 0) out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

PgSourceSettings PgSourceSettings::fromUrl(const std::string& url) {
  const char* keys[] = {"dbname", nullptr};
  const char* values[] = {url.c_str(), nullptr};
  // expand_dbname: `dbname` holds a whole URI or conninfo string; libpq fills in its defaults.
  PgConnPtr conn(PQconnectdbParams(keys, values, 1));
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw std::runtime_error(
        fmt::format("cannot connect to {}: {}", url, PQerrorMessage(conn.get())));
  PgSourceSettings s;
  s.host = PQhost(conn.get());
  s.port = std::stoi(PQport(conn.get()));
  s.user = PQuser(conn.get());
  s.password = PQpass(conn.get()) ? PQpass(conn.get()) : "";
  s.dbname = PQdb(conn.get());
  PQconninfoOption* options = PQconninfo(conn.get());
  for (auto* o = options; o && o->keyword; ++o) {
    if (!o->val) continue;
    if (std::string_view(o->keyword) == "sslmode") s.sslmode = o->val;
    if (std::string_view(o->keyword) == "sslrootcert") s.sslrootcert = o->val;
  }
  PQconninfoFree(options);
  // "prefer" is both libpq's and Debezium's default: leave it implicit.
  if (s.sslmode == "prefer") s.sslmode.clear();
  if (s.host.empty() || s.host.front() == '/')
    throw std::invalid_argument(url + ": Debezium needs a TCP host, not a unix socket");
  return s;
}

DebeziumSource::DebeziumSource(std::filesystem::path workdir, std::string bootstrap,
                               PgSourceSettings pg, std::string topic_prefix,
                               std::vector<std::string> tables, std::string slot,
                               std::map<std::string, std::string> extra)
    : workdir_(std::move(workdir)),
      bootstrap_(std::move(bootstrap)),
      pg_(std::move(pg)),
      topic_prefix_(std::move(topic_prefix)),
      tables_(std::move(tables)),
      slot_(std::move(slot)),
      publication_(slot_ + "_pub"),
      extra_(std::move(extra)) {}

DebeziumSource::~DebeziumSource() {
  try {
    stop();
  } catch (...) {
  }
  try {
    dropSlotAndPublication();
  } catch (...) {
  }
}

std::string DebeziumSource::uniqueSlotName() {
  std::string name = uniqueName(std::string(kSlotPrefix.substr(0, kSlotPrefix.size() - 1)));
  for (auto& c : name)
    if (c == '-') c = '_';
  return name;
}

void DebeziumSource::script(const std::string& name, const std::vector<std::string>& args,
                            const std::vector<std::string>& env) {
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(fmt::format("{}/integration/debezium/{}", KSINK_SOURCE_DIR, name));
  argv.push_back(workdir_.string());
  argv.insert(argv.end(), args.begin(), args.end());
  std::filesystem::create_directories(workdir_);
  const auto log = workdir_ / (name + ".log");
  std::filesystem::remove(log);  // ChildProcess appends: keep just this run's output
  ChildProcess p(argv, log);
  // start.sh bounds its own wait (KSINK_DEBEZIUM_START_TIMEOUT); the first run also fetches jars.
  const auto status = p.wait(std::chrono::minutes(name == "start.sh" ? 6 : 1));
  if (status != 0)
    throw std::runtime_error(fmt::format("{} failed ({}): {}", name,
                                         status ? std::to_string(*status) : "timed out", p.log()));
}

std::filesystem::path DebeziumSource::writeConnectorProperties() const {
  std::string tables;
  for (const auto& t : tables_) tables += (tables.empty() ? "" : ",") + t;
  std::vector<std::pair<std::string, std::string>> props{
      {"name", slot_},
      {"connector.class", "io.debezium.connector.postgresql.PostgresConnector"},
      {"tasks.max", "1"},
      {"plugin.name", "pgoutput"},  // built into PostgreSQL: no server plugin to install
      {"database.hostname", pg_.host},
      {"database.port", std::to_string(pg_.port)},
      {"database.user", pg_.user},
      {"database.password", pg_.password},
      {"database.dbname", pg_.dbname},
      {"topic.prefix", topic_prefix_},
      {"table.include.list", tables},
      {"slot.name", slot_},
      // A test's slot must not outlive it: an abandoned slot pins WAL on the shared server.
      {"slot.drop.on.stop", "true"},
      // The default name (dbz_publication) would be shared by every source on the server.
      {"publication.name", publication_},
      {"publication.autocreate.mode", "filtered"},
      // Tests wait for each change: don't let the task sleep 500 ms between empty polls.
      {"poll.interval.ms", "100"},
  };
  if (!pg_.sslmode.empty()) props.emplace_back("database.sslmode", pg_.sslmode);
  if (!pg_.sslrootcert.empty()) props.emplace_back("database.sslrootcert", pg_.sslrootcert);
  for (const auto& [k, v] : extra_) props.emplace_back(k, v);  // later lines win

  std::filesystem::create_directories(workdir_);
  const auto path = workdir_ / "source.properties";
  // Owner-only before the password goes in.
  std::ofstream(path, std::ios::trunc).close();
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ofstream out(path, std::ios::trunc);
  for (const auto& [k, v] : props)
    out << propertiesEscape(k, true) << '=' << propertiesEscape(v, false) << '\n';
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
  return path;
}

std::string DebeziumSource::start() {
  {
    // Leftovers of killed runs: inactive slots (and their publications) that uniqueSlotName()
    // made for processes that are gone. Live processes' ones are theirs to drop.
    auto conn = connect(pg_);
    auto slots = run(conn.get(),
                     "SELECT slot_name FROM pg_replication_slots WHERE NOT active "
                     "AND database = current_database() AND starts_with(slot_name, $1)",
                     {std::string(kSlotPrefix)});
    for (int i = 0; i < PQntuples(slots.get()); ++i) {
      const std::string slot = PQgetvalue(slots.get(), i, 0);
      if (const pid_t pid = slotOwner(slot); pid && !processExists(pid)) dropSlot(conn.get(), slot);
    }
    auto pubs = run(conn.get(), "SELECT pubname FROM pg_publication WHERE starts_with(pubname, $1)",
                    {std::string(kSlotPrefix)});
    for (int i = 0; i < PQntuples(pubs.get()); ++i) {
      const std::string pub = PQgetvalue(pubs.get(), i, 0);
      if (const pid_t pid = slotOwner(pub); pid && !processExists(pid))
        run(conn.get(), "DROP PUBLICATION IF EXISTS " + quoteIdentifier(pub));
    }
  }
  writeConnectorProperties();
  // The worker outlives a killed test otherwise (it runs in a session of its own).
  script("start.sh", {bootstrap_, (workdir_ / "source.properties").string()},
         {fmt::format("KSINK_DEBEZIUM_WATCH_PID={}", ::getpid())});
  std::ifstream in(workdir_ / "rest_url");
  std::getline(in, rest_url_);
  if (rest_url_.empty())
    throw std::runtime_error("start.sh wrote no URL to " + (workdir_ / "rest_url").string());
  running_ = true;
  return rest_url_;
}

void DebeziumSource::stop() {
  if (!running_) return;
  running_ = false;
  script("stop.sh", {});
}

void DebeziumSource::dropSlotAndPublication() const {
  auto conn = connect(pg_);
  dropSlot(conn.get(), slot_);
  run(conn.get(), "DROP PUBLICATION IF EXISTS " + quoteIdentifier(publication_));
}

std::string DebeziumSource::logTail(int lines) const {
  std::ifstream in(workdir_ / "connect.log");
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(std::move(line));
  std::ostringstream out;
  for (size_t i = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0; i < all.size();
       ++i)
    out << all[i] << '\n';
  return out.str();
}

}  // namespace ksink::it
