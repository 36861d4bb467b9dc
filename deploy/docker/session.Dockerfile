# syntax=docker/dockerfile:1
# Image of the session service (gRPC). From the repository root:
#   docker build -f deploy/docker/session.Dockerfile -t edge-controller-session:0.1.0 .
# The build stage is the same in every Dockerfile of this folder, so BuildKit builds the
# workspace once for all six images.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --ignore-scripts && npm run build

# Production dependencies of this one workspace (and the @edge libs it links), nothing else.
FROM build AS prod
RUN find . -name node_modules -type d -prune -exec rm -rf {} + && npm ci --omit=dev --ignore-scripts --workspace=services/session && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production EDGE_DATA_DIR=/data
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
