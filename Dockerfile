# syntax=docker/dockerfile:1
# One Dockerfile, one image per app (docs/build.md):
#   docker build --target registry     -t agent-reach/registry:latest .
#   docker build --target orchestrator -t agent-reach/orchestrator:latest .
#   docker build --target console      -t agent-reach/console:latest .
# The images run the bundles of `pnpm build` with plain node (no tsx) as the unprivileged `node` user,
# and carry no HEALTHCHECK: Kubernetes probes /healthz and /readyz (deploy/k8s).
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN corepack enable && corepack prepare pnpm@9.15.9 --activate
WORKDIR /src
# Dependencies first, so a source change does not re-download them.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/agent-sdk/package.json apps/agent-sdk/
COPY apps/config/package.json apps/config/
COPY apps/registry/package.json apps/registry/
COPY apps/orchestrator/package.json apps/orchestrator/
COPY apps/console/package.json apps/console/
COPY test/package.json test/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm build
# Each app with only its production dependencies, in a node_modules of real files.
RUN pnpm --filter @agent-reach/registry deploy --prod /out/registry \
 && pnpm --filter @agent-reach/orchestrator deploy --prod /out/orchestrator \
 && pnpm --filter @agent-reach/console deploy --prod /out/console

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# ./data is where the embedded store and PGlite write when no etcd or Postgres is configured.
RUN mkdir /app/data && chown node:node /app/data
USER node

FROM runtime AS registry
# glibc malloc: two arenas; one V8 background thread (scripts/registry-env.ts says why).
ENV MALLOC_ARENA_MAX=2 NODE_OPTIONS=--v8-pool-size=1
COPY --from=build /out/registry/package.json apps/registry/package.json
COPY --from=build /out/registry/node_modules apps/registry/node_modules
COPY --from=build /out/registry/dist apps/registry/dist
EXPOSE 8701 8053/tcp 8053/udp
ENTRYPOINT ["node", "apps/registry/dist/main.js"]

FROM runtime AS orchestrator
COPY --from=build /out/orchestrator/package.json apps/orchestrator/package.json
COPY --from=build /out/orchestrator/node_modules apps/orchestrator/node_modules
COPY --from=build /out/orchestrator/dist apps/orchestrator/dist
# Found from the bundle where they lie in the source tree (scripts/build.ts keeps import.meta.url).
COPY --from=build /src/migrations migrations
EXPOSE 8702
ENTRYPOINT ["node", "apps/orchestrator/dist/main.js"]

FROM runtime AS console
COPY --from=build /out/console/package.json apps/console/package.json
COPY --from=build /out/console/node_modules apps/console/node_modules
COPY --from=build /out/console/dist apps/console/dist
# The UI's source: the console bundles it with esbuild when it starts (apps/console/README.md).
COPY --from=build /src/apps/console/src/ui apps/console/src/ui
COPY --from=build /src/apps/console/src/shared apps/console/src/shared
EXPOSE 18089
ENTRYPOINT ["node", "apps/console/dist/main.js"]
