# perpbot: the trading daemon in a container (default: config/default.yaml, the embedded local venue).
# Build: docker build -t perpbot .   Run: docker run --rm -p 9464:9464 -v perpbot-data:/app/data perpbot
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY strategies ./strategies
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    PERPBOT_METRICS_HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A 4 MB semi-space keeps the young generation (and so RSS) small for a months-long process (see README).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=4", "dist/src/cli.js"]
CMD ["run", "--config", "config/default.yaml"]
