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
# The test kit is a static library: built by a sanitizer build (CI's), its objects need the same
# compiler and sanitizer runtimes in the program that links them.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
flags=()
if [[ $(cached KSINK_SANITIZE) == ON ]]; then
  sanitize="-fsanitize=address,undefined"
  [[ $(cached KSINK_FUZZ) == ON ]] && sanitize+=" -fsanitize=fuzzer-no-link"
  flags=("-DCMAKE_CXX_COMPILER=$(cached CMAKE_CXX_COMPILER)" "-DCMAKE_CXX_FLAGS=$sanitize")
fi
cmake -S "$src/examples/out_of_tree" -B "$work/plugin-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" "${flags[@]}" >/dev/null
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
