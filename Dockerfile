# One image for every service instance. Runs the TypeScript sources with tsx (a runtime dependency).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
USER node
EXPOSE 4000
# node directly (not npm) so SIGTERM reaches the service and it stops gracefully.
CMD ["node", "--import", "tsx", "src/index.ts"]
