#!/usr/bin/env bash
# A Python environment with Confluent's Avro serializer (requirements.txt) for the Avro tests,
# made once in the cache (KSINK_CACHE, default ~/.cache/ksink) and reused; prints its python.
#
#   integration/avro/python/env.sh   -> /root/.cache/ksink/avro-python/bin/python
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${KSINK_CACHE:-$HOME/.cache/ksink}/avro-python"
stamp="$venv/requirements.txt"
if ! cmp -s "$here/requirements.txt" "$stamp" 2>/dev/null; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 keeps venv in a package of its own.
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$stamp"
fi
echo "$venv/bin/python"
