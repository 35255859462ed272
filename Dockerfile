# One image for the deployable apps; docker-compose picks the command (api or worker).
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
RUN npm install -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile && pnpm turbo run build --filter=@svc/api... --filter=@svc/worker... --filter=@svc/web

FROM node:20.19-bookworm-slim
# bubblewrap, slirp4netns, iproute2: the worker's command sandbox and its network (the api image is the same; it does not use them).
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bubblewrap slirp4netns iproute2 curl && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production DATA_DIR=/data WEB_DIST_DIR=/app/apps/web/dist HOST=0.0.0.0 PORT=8080
EXPOSE 8080
CMD ["node", "apps/api/dist/index.js"]
