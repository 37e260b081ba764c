# One image for every service instance: compiled JavaScript (npm run build) on plain node, so nothing
# is transpiled at run time. The build stage has the dev dependencies (TypeScript); the image does not.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
# node directly (not npm) so SIGTERM reaches the service and it stops gracefully.
CMD ["node", "dist/index.js"]
