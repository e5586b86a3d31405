// The PostgreSQL limits of physical_limits.h: a minimal binary COPY client, one thread per
// connection.
#include <endian.h>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>

#include "physical_limits.h"
#include "process_usage.h"

namespace ksink::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

Connection connect(const std::string& url) {
  Connection conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw std::runtime_error(fmt::format("connect: {}", PQerrorMessage(conn.get())));
  return conn;
}

void exec(PGconn* conn, const std::string& sql, ExecStatusType expected = PGRES_COMMAND_OK) {
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn, sql.c_str()), &PQclear);
  if (PQresultStatus(r.get()) != expected)
    throw std::runtime_error(fmt::format("{}: {}", sql, PQerrorMessage(conn)));
}

// PostgreSQL's binary COPY format: a header, per row a field count and length-prefixed
// big-endian values, a -1 trailer.
class CopyBinaryBuffer {
 public:
  CopyBinaryBuffer() {
    out_.append("PGCOPY\n\377\r\n\0", 11);
    put32(0);  // flags
    put32(0);  // header extension length
  }
  void add(const OrderRow& row) {
    put16(5);
    put32(8);
    put64(static_cast<uint64_t>(row.id));
    putText(row.sku);
    put32(4);
    put32(static_cast<uint32_t>(row.qty));
    put32(8);
    put64(std::bit_cast<uint64_t>(row.price));
    putText(row.comment);
  }
  std::string finish() && {
    put16(0xffff);
    return std::move(out_);
  }

 private:
  void put16(uint16_t v) { append(htobe16(v)); }
  void put32(uint32_t v) { append(htobe32(v)); }
  void put64(uint64_t v) { append(htobe64(v)); }
  void putText(const std::string& s) {
    put32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  template <typename T>
  void append(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  std::string out_;
};

// Rows split into `parts` contiguous slices, each encoded as one COPY stream.
std::vector<std::string> encodeSlices(const std::vector<OrderRow>& rows, int parts) {
  std::vector<std::string> slices;
  const size_t per = (rows.size() + static_cast<size_t>(parts) - 1) / static_cast<size_t>(parts);
  for (size_t begin = 0; begin < rows.size(); begin += per) {
    CopyBinaryBuffer buffer;
    for (size_t i = begin; i < std::min(rows.size(), begin + per); ++i) buffer.add(rows[i]);
    slices.push_back(std::move(buffer).finish());
  }
  return slices;
}

void copyIn(PGconn* conn, const std::string& table, const std::string& data) {
  exec(conn, fmt::format("COPY {} FROM STDIN (FORMAT binary)", table), PGRES_COPY_IN);
  constexpr size_t kChunk = 1 << 20;
  for (size_t at = 0; at < data.size(); at += kChunk)
    if (PQputCopyData(conn, data.data() + at,
                      static_cast<int>(std::min(kChunk, data.size() - at))) != 1)
      throw std::runtime_error(fmt::format("COPY data: {}", PQerrorMessage(conn)));
  if (PQputCopyEnd(conn, nullptr) != 1)
    throw std::runtime_error(fmt::format("COPY end: {}", PQerrorMessage(conn)));
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQgetResult(conn), &PQclear);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
    throw std::runtime_error(fmt::format("COPY {}: {}", table, PQerrorMessage(conn)));
  while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
}

// Encodes, connects, then runs `load` on every connection at once, on its own thread; the clock
// covers the loads only.
template <typename Load>
Measurement parallelLoad(const std::string& name, const std::string& url,
                         const std::vector<OrderRow>& rows, int connections, Load load) {
  const auto slices = encodeSlices(rows, connections);
  std::vector<Connection> conns;
  for (size_t i = 0; i < slices.size(); ++i) conns.push_back(connect(url));
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto start = Clock::now();
  std::vector<std::exception_ptr> errors(slices.size());
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < slices.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          load(conns[i].get(), slices[i]);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const auto after = usageOf(::getpid());
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  double bytes = 0;
  for (const auto& s : slices) bytes += static_cast<double>(s.size());
  const auto n = static_cast<int64_t>(rows.size());
  return {name, n, bytes, -1, secs, secs, n, after.cpu_s - before.cpu_s, after.peak_rss_kb, ""};
}

}  // namespace

Measurement pgBinaryCopy(const std::string& url, const std::string& table,
                         const std::vector<OrderRow>& rows, int connections) {
  return parallelLoad("pg-binary-copy", url, rows, connections,
                      [&](PGconn* conn, const std::string& data) { copyIn(conn, table, data); });
}

Measurement pgStagingUpsert(const std::string& url, const std::string& table,
                            const std::vector<OrderRow>& rows, int connections) {
  return parallelLoad("pg-staging-upsert", url, rows, connections,
                      [&](PGconn* conn, const std::string& data) {
                        exec(conn, fmt::format("BEGIN; CREATE TEMP TABLE staging (LIKE {}) "
                                               "ON COMMIT DROP",
                                               table));
                        copyIn(conn, "staging", data);
                        exec(conn, fmt::format("INSERT INTO {} SELECT * FROM staging "
                                               "ON CONFLICT (id) DO UPDATE SET sku = EXCLUDED.sku, "
                                               "qty = EXCLUDED.qty, price = EXCLUDED.price, "
                                               "comment = EXCLUDED.comment; COMMIT",
                                               table));
                      });
}

}  // namespace ksink::bench
