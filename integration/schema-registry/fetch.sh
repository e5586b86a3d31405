#!/usr/bin/env bash
# Resolve a real schema registry that speaks Confluent's REST API — Apicurio Registry's prebuilt
# distribution, from Maven Central — into a cache directory outside the repo, and print the
# directory holding its runner jar:
#
#   integration/schema-registry/fetch.sh   -> e.g. /root/.cache/ksink/apicurio-registry-2.6.13.Final/dist
#
# io.apicurio:apicurio-registry-app:<v>:tar.gz:all (142 MB): the Quarkus runner jar and lib/; its
# Confluent-compatible API is /apis/ccompat/v7; storage in memory. 2.6.x runs on Java 17 (3.x
# needs 21).
# Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_APICURIO_VERSION (default 2.6.13.Final).
# Idempotent (integration/fetch_once.sh).
set -euo pipefail
# shellcheck source=../fetch_once.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fetch_once.sh"

version="${KSINK_APICURIO_VERSION:-2.6.13.Final}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/apicurio-registry-$version"
dist="$dest/dist"

fill() {  # <tmp>: the tarball, unpacked
  mvn -B -q -Dstyle.color=never dependency:copy \
    -Dartifact="io.apicurio:apicurio-registry-app:$version:tar.gz:all" -DoutputDirectory="$1" >&2
  tar xzf "$1/apicurio-registry-app-$version-all.tar.gz" -C "$1"
  rm "$1/apicurio-registry-app-$version-all.tar.gz"
  ls "$1/apicurio-registry-app-$version-runner.jar" >/dev/null   # fail loudly on a bad unpack
}
fetch_once "$dist" fill
echo "$dist"
