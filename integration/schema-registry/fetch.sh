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
# Idempotent: a marker file is written only after a complete unpack, so an interrupted run is
# simply redone; flock serialises concurrent callers.
set -euo pipefail

version="${KSINK_APICURIO_VERSION:-2.6.13.Final}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/apicurio-registry-$version"
dist="$dest/dist"
marker="$dist/.ksink-complete"

if [[ -f "$marker" ]]; then
  echo "$dist"
  exit 0
fi

mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [[ ! -f "$marker" ]]; then   # another caller may have finished while we waited
  tmp="$dest/dist.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # mvn output goes to stderr so stdout stays just the path.
  mvn -B -q -Dstyle.color=never dependency:copy \
    -Dartifact="io.apicurio:apicurio-registry-app:$version:tar.gz:all" -DoutputDirectory="$tmp" >&2
  tar xzf "$tmp/apicurio-registry-app-$version-all.tar.gz" -C "$tmp"
  rm "$tmp/apicurio-registry-app-$version-all.tar.gz"
  ls "$tmp/apicurio-registry-app-$version-runner.jar" >/dev/null   # fail loudly on a bad unpack
  touch "$tmp/.ksink-complete"
  rm -rf "$dist"
  mv "$tmp" "$dist"              # atomic publish: readers never see a half-filled dir
fi
echo "$dist"
