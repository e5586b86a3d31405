#include "pg_offset_store.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "ksink/pg/pg_error.h"
#include "ksink/transactional_sink_task.h"
#include "pg_sql.h"

namespace ksink::postgres {
namespace {

constexpr auto kLoadRetryFor = std::chrono::seconds(30);
constexpr auto kLoadRetryDelay = std::chrono::seconds(1);
constexpr auto kOffsetsTable = TransactionalSinkTask::kOffsetsTable;

}  // namespace

void PgOffsetStore::create(PgConnection& connection) {
  try {
    connection.exec(PgSql::createOffsetsTable());
  } catch (const PgError& e) {
    if (!e.createdByAnother())  // else a task starting beside this one created it first
      throw std::runtime_error(fmt::format("cannot create {}: {}", kOffsetsTable, e.what()));
  }
}

OffsetMap PgOffsetStore::load(const std::vector<TopicPartition>& partitions) {
  const auto deadline = std::chrono::steady_clock::now() + kLoadRetryFor;
  for (;;) {
    try {
      auto r = session_.connection().execParams(PgSql::selectOffsets(), {connector_});
      std::set<TopicPartition> wanted(partitions.begin(), partitions.end());
      OffsetMap out;
      for (int i = 0; i < PQntuples(r.get()); ++i) {
        TopicPartition tp{PQgetvalue(r.get(), i, 0), std::stoi(PQgetvalue(r.get(), i, 1))};
        if (wanted.contains(tp)) out[tp] = std::stoll(PQgetvalue(r.get(), i, 2));
      }
      return out;
    } catch (const std::exception& e) {
      const auto* pg = dynamic_cast<const PgError*>(&e);
      const auto* write = dynamic_cast<const WriteError*>(&e);
      // The session throws WriteError when it cannot connect, a statement PgError.
      const bool retriable = (pg && pg->kind() == WriteFailure::kRetriable) ||
                             (write && write->kind() == WriteFailure::kRetriable);
      if (!retriable || std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error(
            fmt::format("cannot load offsets from {}: {}", kOffsetsTable, e.what()));
      if (pg) session_.drop();
      spdlog::warn("cannot load offsets from {} yet, retrying: {}", kOffsetsTable, e.what());
      std::this_thread::sleep_for(kLoadRetryDelay);
    }
  }
}

bool PgOffsetStore::compareAndSet(const Update& u) {
  std::vector<std::optional<std::string>> params{connector_, u.partition.topic,
                                                 std::to_string(u.partition.partition),
                                                 std::to_string(u.next_offset)};
  const bool insert = !u.expected.has_value();
  if (!insert) params.push_back(std::to_string(*u.expected));
  // The open transaction's connection, never a new one.
  auto r = session_.current().execParams(
      insert ? PgSql::insertOffsetIfAbsent() : PgSql::compareAndSetOffset(), params);
  return PgConnection::affectedRows(r.get()) == 1;
}

}  // namespace ksink::postgres
