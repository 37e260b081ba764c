# One image for every service instance, on Node 26 LTS and Debian 13 (the production runtime; package.json `engines`).
# Build stage: every dependency and the TypeScript compiler, `npm run build` writes dist/.
# Runtime stage: production dependencies and the compiled JavaScript only (no sources, no tsx, no npm cache).
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the build needs none, and swagger-ui-dist's (@scarf/scarf) only reports the install.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:26-trixie-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The image's unprivileged user (uid 1000); nothing under /app is writable by it.
USER node
EXPOSE 4000
# Liveness through node itself: the slim image has no curl or wget.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly (no npm or shell in front) so SIGTERM reaches the service as PID 1 and it drains gracefully.
CMD ["node", "dist/index.js"]
