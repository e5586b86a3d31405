#!/usr/bin/env bash
# Start a throw-away PostgreSQL cluster on 127.0.0.1 for integration tests and
# print a libpq URI to its ksink_test database (also written to <workdir>/url):
#
#   integration/postgres/start.sh <workdir>   -> postgresql://postgres@127.0.0.1:PORT/ksink_test
#
# Trust auth, UTF8, C locale; fsync etc. left at server defaults so commit
# behaviour is the real one. wal_level=logical, so the server can also be the
# source of a Debezium connector (integration/debezium); the role is a superuser,
# so it may create replication slots and publications. Idempotent: prints the
# URL if already running; a workdir holding a cluster is restarted with its
# data, port and security mode.
# Env: KSINK_PG_BIN (dir of initdb/pg_ctl; default /usr/lib/postgresql/15/bin,
# else the newest /usr/lib/postgresql/*/bin), KSINK_PG_START_TIMEOUT (s, 60).
#
# Security mode, for testing clients' TLS and passwords (fixed when the cluster
# is created; the unix socket in <workdir>/run stays trust-auth for admin):
#   KSINK_PG_AUTH=scram  TCP clients must log in with scram-sha-256; the role's
#                        password is KSINK_PG_PASSWORD, else the one kept in
#                        <workdir>/password, else a new random one written there.
#   KSINK_PG_SSL=1       SSL on, with a self-signed certificate for 127.0.0.1
#                        made by openssl at creation (copied to <workdir>/root.crt
#                        for sslrootcert); TCP clients without SSL are rejected
#                        (hostssl only). The printed URL ends in ?sslmode=require.
# The URL never holds the password.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <workdir>" >&2; exit 2; }
case "${KSINK_PG_AUTH:-trust}" in trust|scram) ;; *)
  echo "postgres: KSINK_PG_AUTH must be trust or scram, not '$KSINK_PG_AUTH'" >&2; exit 2 ;;
esac
mkdir -p "$1"
wd="$(cd "$1" && pwd)"
if [[ -n ${KSINK_PG_BIN:-} ]]; then bin="$KSINK_PG_BIN"
elif [[ -x /usr/lib/postgresql/15/bin/postgres ]]; then bin=/usr/lib/postgresql/15/bin
else bin="$(printf "%s\n" /usr/lib/postgresql/*/bin | sort -V | tail -n1)"; fi

# initdb/postgres/pg_ctl refuse to run as root: as root, run them as the
# `postgres` system user (Debian's postgresql package creates it) and connect as
# its superuser role "postgres"; otherwise run as ourselves (role = our name).
if [[ $(id -u) -eq 0 ]]; then
  root=1 as_owner=(runuser -u postgres --) role=postgres
else
  root=0 as_owner=() role="$(id -un)"
fi

# Cluster files live in <workdir>/{data,run} -- unless `postgres` cannot reach
# <workdir> (e.g. it is under /root, mode 700): then they live in a /tmp dir
# that <workdir>/data and <workdir>/run point to (deleted by stop.sh --purge).
if [[ -L $wd/data ]]; then
  pgroot="$(dirname "$(readlink "$wd/data")")"
elif ((root)) && [[ ! -d $wd/data ]] && ! runuser -u postgres -- test -x "$wd"; then
  pgroot="$(mktemp -d /tmp/ksink-pg.XXXXXX)"
  chmod 755 "$pgroot"
  ln -s "$pgroot/data" "$wd/data"
  ln -s "$pgroot/run" "$wd/run"
else
  pgroot="$wd"
fi
data="$pgroot/data" sock="$pgroot/run" log="$pgroot/postgres.log"
cd "$pgroot"   # the owner must be able to stat its cwd (it may be /root)

if [[ -f $wd/url ]] && "${as_owner[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  cat "$wd/url"
  exit 0
fi

if [[ ! -f $data/PG_VERSION ]]; then
  mkdir -p "$data" "$sock"
  touch "$log"
  if ((root)); then chown postgres: "$data" "$sock" "$log"; fi
  chmod 700 "$data"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  # A unix socket path is limited to 107 bytes; fail early with the reason.
  (( ${#sock} + 16 < 108 )) || { echo "postgres: socket dir path too long: $sock" >&2; exit 1; }
  # --no-sync only skips initdb's final flush of the template files (saves ~1 s);
  # the running server keeps fsync=on.
  "${as_owner[@]}" "$bin/initdb" -D "$data" --auth=trust --encoding=UTF8 --no-locale \
    --username="$role" --no-sync >"$pgroot/initdb.log" 2>&1 \
    || { echo "postgres: initdb failed:" >&2; cat "$pgroot/initdb.log" >&2; exit 1; }
  # Settings go into the cluster itself, so a restart needs no arguments.
  cat >>"$data/postgresql.conf" <<CONF
# ksink integration test settings
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sock'
# The suite's tests share this server; the differential test alone runs 36 connectors (Connect's
# and ksink's) at once, and a test's processes may still be closing their sessions when the next
# test starts: 100, the default, left a task unable to connect at start.
max_connections = 200
CONF
  if [[ ${KSINK_PG_SSL:-0} == 1 ]]; then
    # EC P-256 rather than RSA: key generation takes milliseconds. The SAN names the address
    # clients dial, so sslmode=verify-full with sslrootcert=<workdir>/root.crt passes.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
      -keyout "$data/server.key" -out "$data/server.crt" >"$pgroot/openssl.log" 2>&1 \
      || { echo "postgres: openssl failed:" >&2; cat "$pgroot/openssl.log" >&2; exit 1; }
    chmod 600 "$data/server.key"
    if ((root)); then chown postgres: "$data/server.key" "$data/server.crt"; fi
    echo "ssl = on" >>"$data/postgresql.conf"
  fi
  if [[ ${KSINK_PG_AUTH:-trust} == scram || ${KSINK_PG_SSL:-0} == 1 ]]; then
    host=host method=trust
    [[ ${KSINK_PG_SSL:-0} == 1 ]] && host=hostssl
    [[ ${KSINK_PG_AUTH:-trust} == scram ]] && method=scram-sha-256
    # Replaces initdb's trust-everything file: no `host` line, so TCP without SSL finds no entry.
    # `all` in the database column does not match replication connections (a logical
    # replication client such as Debezium opens one): they need their own line.
    cat >"$data/pg_hba.conf" <<HBA
# ksink integration test: admin over the unix socket, clients over TCP
local all all trust
$host all all 127.0.0.1/32 $method
$host replication all 127.0.0.1/32 $method
HBA
  fi
fi
port="$(sed -n 's/^port = \([0-9]*\)$/\1/p' "$data/postgresql.conf" | tail -n1)"
# Logical decoding, for change-data-capture sources. Checked on every start, not only at
# creation, so a cluster made by an older version of this script gets it at its next restart.
# It only adds row detail to the WAL (a few percent more of it); the sinks' tests don't see it.
# max_slot_wal_keep_size: a slot that a killed test leaves behind may hold at most this much WAL,
# so it can't fill the disk of a long-lived shared server.
if ! grep -qx "wal_level = logical" "$data/postgresql.conf"; then
  cat >>"$data/postgresql.conf" <<CONF
# ksink integration test settings: logical replication (Debezium source)
wal_level = logical
max_replication_slots = 16
max_wal_senders = 16
max_slot_wal_keep_size = '1GB'
CONF
fi
# Two-phase commit, for the table sources' commit horizon (a prepared transaction holds rows no
# reader sees yet). Checked on every start, like the above.
if ! grep -qx "max_prepared_transactions = 8" "$data/postgresql.conf"; then
  cat >>"$data/postgresql.conf" <<CONF
# ksink integration test settings: prepared transactions (table sources' commit horizon)
max_prepared_transactions = 8
CONF
fi

# -w: return only once the server accepts connections (or fail after -t).
if ! "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -w \
     -t "${KSINK_PG_START_TIMEOUT:-60}" start >/dev/null; then
  echo "postgres: did not start on 127.0.0.1:$port; tail of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi

ssl=0 scram=0
grep -qx "ssl = on" "$data/postgresql.conf" && ssl=1
grep -Eq "^host(ssl)? .* scram-sha-256$" "$data/pg_hba.conf" && scram=1
# Connect exactly as tests will (TCP, as the current OS user, trust auth) -- or, in a security
# mode, over the unix socket, which is the only way in without a password.
psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$role" -d postgres)
((ssl || scram)) && psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U "$role" -d postgres)
if [[ -z $("${psql[@]}" -Atc "SELECT 1 FROM pg_database WHERE datname = 'ksink_test'") ]]; then
  "${psql[@]}" -c "CREATE DATABASE ksink_test"
fi
if ((scram)); then
  if [[ -n ${KSINK_PG_PASSWORD:-} ]]; then password="$KSINK_PG_PASSWORD"
  elif [[ -s $wd/password ]]; then password="$(cat "$wd/password")"
  else password="$(openssl rand -hex 16)"; fi
  (umask 077 && printf "%s\n" "$password" >"$wd/password")
  # On stdin, not in argv, so `ps` never shows it; stored as a SCRAM verifier (the default).
  printf "ALTER ROLE \"%s\" PASSWORD '%s'\n" "$role" "${password//\'/\'\'}" | "${psql[@]}"
fi
if ((ssl)); then cp "$data/server.crt" "$wd/root.crt"; fi

url="postgresql://$role@127.0.0.1:$port/ksink_test"
((ssl)) && url="$url?sslmode=require"
echo "$url" >"$wd/url"
echo "$url"
