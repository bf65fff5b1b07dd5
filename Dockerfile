# One image for every aide service; docker-compose.yml picks the entry point per container.
# Not built in CI (those machines have no Docker engine and reach no image registry); the compose
# file is checked by a test. openssl makes the gateway's and the bus's certificates inside the image too.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ripgrep git ca-certificates openssl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/aide
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY contracts contracts
COPY runtime runtime
COPY services services
COPY cli cli
COPY bench bench
RUN npm ci --no-audit --no-fund && npx tsc -b && npm prune --omit=dev
ENV AIDE_HOME=/var/lib/aide NODE_ENV=production
USER node
