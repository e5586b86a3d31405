# ksink's container image: the `ksink` Debian package (scripts/package) on Debian 12 slim, run as
# the unprivileged user ksink (uid 10001). From the repository's root:
#   docker build -t ksink .
#   docker run -v /srv/ksink/etc:/etc/ksink -v ksink-state:/var/lib/ksink -p 8083:8083 \
#     -e KSINK_WORKER_BOOTSTRAP_SERVERS=kafka:9092 ksink
# docs/packaging.md says more (volumes, environment, health check).

# --- build: the tree built without its tests, then packaged ---------------------------------------
FROM debian:12 AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config git ca-certificates \
      librdkafka-dev libpq-dev libsqlite3-dev libsqlitecpp-dev libfmt-dev libspdlog-dev \
      libsimdjson-dev libjemalloc-dev libcli11-dev libcpp-httplib-dev libgtest-dev \
      libsystemd-dev libssl-dev dpkg-dev chrpath binutils \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN flags="-O2 -g1 -DNDEBUG" \
    && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKSINK_BUILD_TESTS=OFF \
         -DKSINK_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" \
         "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" \
    && ninja -C build \
    && KSINK_PACKAGE_LINTIAN=0 scripts/package

# --- runtime: the package and what it depends on ---------------------------------------------------
FROM debian:12-slim
# The user first, with a fixed uid (Kubernetes' runAsNonRoot checks a number); the package's
# postinst finds it and keeps it.
RUN groupadd --system --gid 10001 ksink \
    && useradd --system --uid 10001 --gid ksink --home-dir /var/lib/ksink --no-create-home \
         --shell /usr/sbin/nologin ksink
COPY --from=build /src/dist/ksink_*.deb /tmp/
RUN apt-get update && apt-get install -y --no-install-recommends /tmp/ksink_*.deb curl \
    && rm -rf /var/lib/apt/lists/* /tmp/ksink_*.deb \
    && sed -i 's|^listeners=.*|listeners=http://0.0.0.0:8083|' /etc/ksink/worker.properties
COPY packaging/docker/entrypoint.sh /usr/local/bin/ksink-entrypoint
USER 10001:10001
WORKDIR /var/lib/ksink
VOLUME ["/etc/ksink", "/var/lib/ksink"]
# Kafka Connect's REST API, /health, /status, /metrics.
EXPOSE 8083
# KIP-1017's /health: 200 once the worker finished starting; a FAILED connector is not unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS -o /dev/null http://127.0.0.1:8083/health || exit 1
ENTRYPOINT ["/usr/local/bin/ksink-entrypoint"]
CMD ["run"]
