# perpbot: the trading daemon in a container (default: config/default.yaml, the embedded local venue).
# Build: docker build -t perpbot .
# Run:   docker run --rm --stop-timeout 30 -p 9464:9464 -v perpbot-data:/app/data perpbot
# Stop:  docker stop -t 30 <container>. The daemon needs shutdown.deadlineMs (10 s by default) to cancel its
#        orders plus 5 s to close; Docker's default of 10 s would SIGKILL it with orders still open. Keep the
#        stop timeout above deadlineMs + 5 s (Compose: stop_grace_period: 30s).
# The image runs Node's Active LTS line; the project itself supports Node 20.19 and newer.
FROM node:26-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY strategies ./strategies
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --ignore-scripts

FROM node:26-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The server's port and the health check's both come from PERPBOT_METRICS_PORT (config/default.yaml: telemetry.port).
ENV NODE_ENV=production \
    PERPBOT_METRICS_HOST=0.0.0.0 \
    PERPBOT_METRICS_PORT=9464
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
# Your own compiled strategies go here (README: "Your own strategies in the image").
RUN mkdir -p /app/data /app/strategies-local && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE ${PERPBOT_METRICS_PORT}
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PERPBOT_METRICS_PORT + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# A 4 MB semi-space keeps the young generation (and so RSS) small for a months-long process (see README).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=4", "dist/src/cli.js"]
CMD ["run", "--config", "config/default.yaml"]
