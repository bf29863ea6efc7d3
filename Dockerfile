# perpbot: build and run the command line (default: the daemon against the embedded local venue).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY strategies ./strategies
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
COPY strategies ./strategies
USER node
ENTRYPOINT ["node", "dist/src/cli.js"]
