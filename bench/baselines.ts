// The bare baselines, one per child process (argv[2] names which), each answering on a free port and
// sending its address over IPC:
//   http   node:http answering the same JSON as a REST cache hit
//   redis  node:http doing one Redis GET of a record of the same size, JSON.parse, and answering it
//   yoga   bare graphql-yoga answering { hello }
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { Redis } from 'ioredis';

const kind = process.argv[2];
const { body, redisUrl } = JSON.parse(process.env.BENCH_BASELINE ?? '{}') as { body: string; redisUrl?: string };

let handler: http.RequestListener;
if (kind === 'http') {
  handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  };
} else if (kind === 'redis') {
  const redis = new Redis(redisUrl!);
  await redis.set('bench:record', body);
  handler = (_req, res) => {
    redis.get('bench:record').then((value) => {
      const record = JSON.parse(value!) as unknown;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(record === null ? '' : value);
    });
  };
} else if (kind === 'yoga') {
  handler = createYoga({
    schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'world' } } }),
    logging: false,
  }) as unknown as http.RequestListener;
} else {
  throw new Error(`unknown baseline ${kind}`);
}

const server = http.createServer(handler);
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
process.on('SIGTERM', () => process.exit(0));
