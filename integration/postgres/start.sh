#!/usr/bin/env bash
# Start a throw-away PostgreSQL cluster on 127.0.0.1 for integration tests and
# print a libpq URI to its ksink_test database (also written to <workdir>/url):
#
#   integration/postgres/start.sh <workdir>   -> postgresql://postgres@127.0.0.1:PORT/ksink_test
#
# Trust auth, UTF8, C locale; fsync etc. left at server defaults so commit
# behaviour is the real one. Idempotent: prints the URL if already running; a
# workdir holding a cluster is restarted with its data and port.
# Env: KSINK_PG_BIN (dir of initdb/pg_ctl; default /usr/lib/postgresql/15/bin,
# else the newest /usr/lib/postgresql/*/bin), KSINK_PG_START_TIMEOUT (s, 60).
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <workdir>" >&2; exit 2; }
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
CONF
fi
port="$(sed -n 's/^port = \([0-9]*\)$/\1/p' "$data/postgresql.conf" | tail -n1)"

# -w: return only once the server accepts connections (or fail after -t).
if ! "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -w \
     -t "${KSINK_PG_START_TIMEOUT:-60}" start >/dev/null; then
  echo "postgres: did not start on 127.0.0.1:$port; tail of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi

# Connect exactly as tests will (TCP, as the current OS user, trust auth).
psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$role" -d postgres)
if [[ -z $("${psql[@]}" -Atc "SELECT 1 FROM pg_database WHERE datname = 'ksink_test'") ]]; then
  "${psql[@]}" -c "CREATE DATABASE ksink_test"
fi

url="postgresql://$role@127.0.0.1:$port/ksink_test"
echo "$url" >"$wd/url"
echo "$url"
