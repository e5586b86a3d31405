#!/usr/bin/env bash
# Resolve Kafka Connect's file connectors (org.apache.kafka:connect-file, a plain jar from Maven
# Central; FileStreamSource and FileStreamSink) into a plugin folder of a cache directory outside
# the repo, and print that plugin.path directory on stdout:
#
#   integration/debezium/fetch_connect_file.sh
#     -> /root/.cache/ksink/connect-file-4.1.1/plugins
#
# start.sh adds it to its worker's plugin.path when KSINK_CONNECT_PLUGIN_PATH names it. The
# version follows the Connect runtime (fetch.sh's, 4.1.1: connect-file is served for that one and
# does not load in another). Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_CONNECT_VERSION.
# Idempotent: the jar is published with an atomic rename; flock serialises concurrent callers.
set -euo pipefail

version="${KSINK_CONNECT_VERSION:-4.1.1}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/connect-file-$version"
jar="$dest/plugins/connect-file/connect-file-$version.jar"
if [[ ! -f $jar ]]; then
  mkdir -p "$dest"
  exec 9>"$dest/.lock"
  flock 9
  if [[ ! -f $jar ]]; then
    tmp="$dest/tmp.$$"
    rm -rf "$tmp"
    mvn -B -q -Dstyle.color=never dependency:copy \
      -Dartifact="org.apache.kafka:connect-file:$version" -DoutputDirectory="$tmp" >&2
    mkdir -p "$(dirname "$jar")"
    mv "$tmp/connect-file-$version.jar" "$jar"
    rm -rf "$tmp"
  fi
fi
echo "$dest/plugins"
