# syntax=docker/dockerfile:1
# Image of the session service (gRPC). From the repository root:
#   docker build -f deploy/docker/session.Dockerfile -t edge-controller-session:0.1.0 .
# The build stage is the same in every Dockerfile of this folder, so BuildKit builds the
# workspace once for all six images.
ARG NODE_IMAGE=node:22-bookworm-slim
# Major version of the PostgreSQL client tools (pg_dump, for POST /database/snapshot). pg_dump
# refuses servers newer than itself and dumps every older one, so use the server's major version
# or newer; 17 covers the Postgres 15 of compose.yaml and the 17 of helm/edge-controller-stack.
ARG PG_CLIENT_MAJOR=17

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --ignore-scripts && npm run build

# Production dependencies of this one workspace (and the @edge libs it links), nothing else.
FROM build AS prod
RUN find . -name node_modules -type d -prune -exec rm -rf {} + && npm ci --omit=dev --ignore-scripts --workspace=services/session && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ARG PG_CLIENT_MAJOR
# pg_dump from the PostgreSQL project's own Debian repository (its signing key ships in Debian's
# postgresql-common), since Debian bookworm carries only version 15.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates postgresql-common \
 && /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y \
 && apt-get install -y --no-install-recommends postgresql-client-${PG_CLIENT_MAJOR} \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production EDGE_DATA_DIR=/data PATH=/usr/lib/postgresql/${PG_CLIENT_MAJOR}/bin:$PATH
WORKDIR /app
# Owned by root and not writable by the process: only /data (and /tmp) are.
COPY --from=prod /src/package.json ./
COPY --from=prod /src/node_modules node_modules
COPY --from=prod /src/libs libs
# .proto files are loaded at run time (libs/proto finds <root>/proto).
COPY --from=prod /src/proto proto
COPY --from=prod /src/services/session services/session
COPY --from=prod /src/deploy/docker/healthcheck.mjs deploy/docker/healthcheck.mjs
RUN mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
# 9464: /metrics when EDGE_METRICS_ADDR is 0.0.0.0:9464 (as in the Helm chart and compose.yaml).
EXPOSE 50055 9464
# grpc.health.v1 Check on EDGE_GRPC_LISTEN_ADDR (docker and compose; Kubernetes uses its own probes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["node", "deploy/docker/healthcheck.mjs", "session"]
# Exec form: node is PID 1 and receives SIGTERM for the graceful stop.
ENTRYPOINT ["node", "services/session/dist/main.js"]
