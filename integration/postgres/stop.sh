#!/usr/bin/env bash
# Stop the PostgreSQL cluster started by start.sh in <workdir>: fast shutdown
# (rolls back open transactions, disconnects clients), then immediate, then
# SIGKILL. Idempotent. Data is kept for a restart unless --purge is given,
# which also removes the cluster files (including a /tmp fallback dir).
#
#   integration/postgres/stop.sh <workdir> [--purge]
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 <workdir> [--purge]" >&2; exit 2; }
wd="$1" purge="${2:-}"
[[ -z $purge || $purge == --purge ]] || { echo "usage: $0 <workdir> [--purge]" >&2; exit 2; }
[[ -e $wd/data ]] || exit 0
data="$(readlink -f "$wd/data")"
if [[ -n ${KSINK_PG_BIN:-} ]]; then bin="$KSINK_PG_BIN"
elif [[ -x /usr/lib/postgresql/15/bin/postgres ]]; then bin=/usr/lib/postgresql/15/bin
else bin="$(printf "%s\n" /usr/lib/postgresql/*/bin | sort -V | tail -n1)"; fi
as_owner=()
[[ $(id -u) -eq 0 ]] && as_owner=(runuser -u postgres --)
cd "$(dirname "$data")"   # pg_ctl as `postgres` must be able to stat its cwd

# pg_ctl status: 0 = running, 3 = not running, 4 = no data dir.
if "${as_owner[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  if ! "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null; then
    echo "postgres: fast shutdown timed out, trying immediate" >&2
    "${as_owner[@]}" "$bin/pg_ctl" -D "$data" -m immediate -w -t 10 stop >/dev/null || {
      pid="$(head -n1 "$data/postmaster.pid")"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    }
  fi
fi
rm -f "$wd/url"
if [[ $purge == --purge ]]; then
  # With the /tmp fallback, data's parent is that /tmp dir; otherwise it is <workdir>.
  if [[ -L $wd/data ]]; then rm -rf "$(dirname "$data")" "$wd/data" "$wd/run"
  else rm -rf "$wd/data" "$wd/run" "$wd/postgres.log" "$wd/initdb.log" "$wd/openssl.log"; fi
  rm -f "$wd/password" "$wd/root.crt"   # written by start.sh's security modes
fi
