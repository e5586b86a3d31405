#!/usr/bin/env bash
# The SDK as a user gets it: `cmake --install`, a plugin built outside the tree with
# find_package(ksink COMPONENTS testkit), the installed `ksink` loading it from plugin.path, and
# the plugin's sink tested with the installed test kit (one scenario: the kit's own tests run them
# all).
#   tests/sdk/install_test.sh <build dir> <source dir>
set -euo pipefail
build="$1" src="$2"
work="$(mktemp -d /tmp/ksink-install.XXXXXX)"
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/out_of_tree" -B "$work/plugin-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/plugin-build" >/dev/null
mkdir -p "$work/plugins"
cp "$work/plugin-build/my_jsonl_sink.so" "$work/plugins/"

printf 'bootstrap.servers=127.0.0.1:1\nplugin.path=%s\n' "$work/plugins" >"$work/worker.properties"
printf 'name=x\nconnector.class=jsonl-file\ntopics=a\nfile=%s/out\n' "$work" >"$work/connector.properties"
out="$("$work/prefix/bin/ksink" validate "$work/worker.properties" "$work/connector.properties" 2>&1)"
echo "$out"
grep -q "ok (jsonl-file)" <<<"$out"
# pkg-config sees the installed SDK and test kit too.
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --exists ksink ksink-testkit
"$work/plugin-build/my_jsonl_sink_test" --gtest_filter='*DeliveredIsDurable'
