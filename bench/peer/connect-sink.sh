#!/usr/bin/env bash
# The benchmark's peer: a real Kafka Connect standalone worker running the Debezium JDBC sink (or,
# with KSINK_PEER_CONNECTOR=file, Connect's own FileStreamSource: the source benchmark's peer),
# for a benchmark program to launch, time and stop like ksink itself.
#
#   bench/peer/connect-sink.sh <workdir> <bootstrap> <connector.properties | key=value>...
#
# Writes into <workdir>: connector.properties (the arguments in order, later wins; mode 600),
# worker.properties, log4j2.properties, rest_url; then `exec`s the JVM in the foreground, so the
# caller's child pid IS the worker (read VmHWM from /proc/<pid>/status and CPU from
# /proc/<pid>/stat; stop it with SIGTERM). Its log is <workdir>/connect.log, its stdout/stderr
# <workdir>/connect.out; this script prints nothing on success.
# The worker: JsonConverter for keys and values with schemas.enable=true (a connector's own
# key.converter*/value.converter* keys override that), source offsets in <workdir>/offsets.dat
# (unused by a sink), REST on a free 127.0.0.1 port written to <workdir>/rest_url (a standalone
# worker cannot run without REST), plugin.path = the JDBC sink, log at WARN plus the
# ConnectStandalone lifecycle lines (their timestamps show the worker's start-up time).
# A sink's progress is its consumer group, connect-<name>, kept by the broker: a second run with
# the same `name` on the same topic resumes where the first stopped; give each run a new name.
#
# Fetches, once, by integration/debezium/fetch.sh jdbc (cached in
# ${KSINK_CACHE:-~/.cache/ksink}/debezium-jdbc-3.5.0.Final-connect-4.1.1/dist; ~10 s with a warm
# ~/.m2): Kafka Connect runtime 4.1.1 (connect-runtime, connect-json, slf4j 2 -> log4j2) and
# io.debezium:debezium-connector-jdbc:3.5.0.Final with the JDBC drivers it declares (PostgreSQL's
# is postgresql-42.7.7). Run that once before timing: a fetch inside a timed launch is not the
# peer's start-up. Connect 4.1.1, not 4.4.0: on 4.4.0 the sink's tasks fail at start (a jackson
# class clash between the runtime and the plugin; integration/debezium/pom.xml says why). A 4.1
# worker talks to the 4.4 broker fine.
#
# JVM: the JVM's own defaults (here: G1, heap up to 1/4 of RAM), as a user who starts a worker
# with plain `java` gets, unless KSINK_PEER_HEAP holds flags (e.g. "-Xms256M -Xmx2G", which is
# what Kafka's bin/connect-standalone.sh sets when KAFKA_HEAP_OPTS is unset).
# Env: KSINK_PEER_HEAP (JVM flags, word-split), KSINK_PEER_LOG_LEVEL (root level, default WARN),
# KSINK_PEER_CONNECTOR (jdbc, the default; file: the Connect 4.1.1 runtime with connect-file
# from integration/debezium/fetch_connect_file.sh on plugin.path; postgres: the Debezium
# PostgreSQL source, the table source benchmark's peer, its properties as
# tests/support/debezium_source.cpp writes them), plus those of integration/debezium/fetch.sh.
#
# Connector keys (verified below with a PostgreSQL 15 table; the JDBC URL comes from the libpq
# URL that integration/postgres/start.sh prints, postgresql://USER@HOST:PORT/DB ->
# connection.url=jdbc:postgresql://HOST:PORT/DB, connection.username=USER):
#   common:  name=<unique per run>  connector.class=io.debezium.connector.jdbc.JdbcSinkConnector
#            topics=<topic>  tasks.max=2  collection.name.format=<table> (default: the topic)
#            connection.url=...  connection.username=...  connection.password=...
#            schema.evolution=none (the default; the table exists, so none is needed)
#   insert:  insert.mode=insert  primary.key.mode=none
#   upsert:  insert.mode=upsert  primary.key.mode=record_value  primary.key.fields=id
#            (INSERT ... ON CONFLICT (id) DO UPDATE: the table needs a primary key or unique
#            index on id)
# Batch settings that matter (defaults read from the 3.5.0.Final connector's ConfigDef):
#   batch.size=500: records per JDBC batch per table; but every put() ends in a flush, so a batch
#     is at most what one poll gave the task: the consumer's max.poll.records (Connect's default
#     500), raised per connector with consumer.override.max.poll.records (allowed by the worker's
#     default connector.client.config.override.policy=All).
#   Each flush is one transaction. connection.pool.min_size=5, max_size=32 (c3p0; a task uses
#     one connection at a time). use.reduction.buffer=false (exists in 3.5: folds records with
#     the same key within a batch into one; not listed in the ConfigDef but read).
#   dialect.postgres.unnest.insert.enabled=false: one INSERT ... UNNEST per batch instead of a
#     JDBC batch of INSERTs. The driver's reWriteBatchedInserts (a connection.url parameter) is
#     off by default too.
#   Used for the figures: the defaults (500/500), and batch.size=5000 with
#   consumer.override.max.poll.records=5000 for comparison.
#
# Verified (2026-12-01, 2-core box shared with builds, broker and PostgreSQL 15 local; topic of
# 6 partitions, 100,000 JSON-with-schema records {id int64, sku string, qty int32, price double,
# comment optional string}, produced before launch; tasks.max=2; JVM defaults; wall = launch of
# this script to SELECT count(*) = 100000, polled every 0.2 s; VmHWM at that moment):
#   CREATE TABLE t (id bigint NOT NULL, sku text NOT NULL, qty integer NOT NULL,
#                   price double precision NOT NULL, comment text [, PRIMARY KEY (id)]);
#   insert, defaults:   14.4 s, 11.2 s (7,000-8,900 rows/s overall; 16,000-19,000 from the
#                       first row on), VmHWM 497-504 MiB, CPU 15-16 s
#   upsert, defaults:   13.8 s, 13.3 s (7,300-7,500 rows/s; 15,800-18,500), 463-505 MiB, 16-18 s
#   insert, batch 5000: 10.0 s (10,000 rows/s; 26,600), 566 MiB
#   upsert, batch 5000: 12.0 s (8,300 rows/s; 17,700), 1010 MiB
#   Start-up: the first row lands 6-8 s after launch (JVM start, ~2.8 s plugin scan, connector
#   and task start, consumer group join); about half the wall time.
set -euo pipefail

usage() {
  echo "usage: $0 <workdir> <bootstrap> <connector.properties | key=value>..." >&2
  exit 2
}
[[ $# -ge 3 ]] || usage
debezium="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../integration/debezium" && pwd)"
# shellcheck source=../../integration/debezium/worker_config.sh
source "$debezium/worker_config.sh"
log_tag=peer
mkdir -p "$1"
wd="$(cd "$1" && pwd)"
bootstrap="$2"
shift 2

connect_connector_properties "$wd/connector.properties" "$@" >/dev/null
case "${KSINK_PEER_CONNECTOR:-jdbc}" in
  jdbc) { read -r libs; read -r plugins; } < <("$debezium/fetch.sh" jdbc) ;;
  file) { read -r libs; read -r _; } < <("$debezium/fetch.sh")
        plugins="$("$debezium/fetch_connect_file.sh" 2>/dev/null)" ;;
  postgres) { read -r libs; read -r plugins; } < <("$debezium/fetch.sh" postgres) ;;
  *) echo "$log_tag: KSINK_PEER_CONNECTOR must be jdbc, file or postgres" >&2; exit 2 ;;
esac
[[ -d $libs && -d $plugins ]] || { echo "$log_tag: fetch.sh printed no directories" >&2; exit 1; }

port="$(connect_free_port)"
connect_worker_properties "$wd/worker.properties" "$bootstrap" "$wd" "$port" "$plugins"
echo "http://127.0.0.1:$port" >"$wd/rest_url"
log4j2_file_config "$wd/log4j2.properties" "$wd/connect.log" "${KSINK_PEER_LOG_LEVEL:-WARN}" \
  org.apache.kafka.connect.cli=INFO

# SC2086: KSINK_PEER_HEAP is a flag list.
# shellcheck disable=SC2086
exec java ${KSINK_PEER_HEAP:-} -Dlog4j2.configurationFile="$wd/log4j2.properties" \
  -cp "$libs/*" org.apache.kafka.connect.cli.ConnectStandalone \
  "$wd/worker.properties" "$wd/connector.properties" </dev/null >"$wd/connect.out" 2>&1
