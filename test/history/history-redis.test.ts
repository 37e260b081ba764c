// A home's history on Redis, one server and a 3-master Cluster: the story of story.ts (read, hit, price
// changed, read again with max_age=0: two events, the newer naming the change), then the stream behind it:
// one per home under `hist:{<homeKey>}` (on a cluster in the home's entry's slot), its length the events,
// expiring with the retention; REST and GraphQL agree on it.
import { randomUUID } from 'node:crypto';
import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, keySlot } from '../../src/store/redis-connection.js';
import { redisKeys, RedisStore } from '../../src/store/redis.js';
import { postGql } from '../graphql/client.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { historyStory } from './story.js';

const ZPID = '15192198';
const HOME = `zpid:${ZPID}`;

let server: RedisServer;
let cluster: RedisCluster;
beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 60_000);
afterAll(async () => {
  await disposeRedisServer(server);
  await cluster?.stop();
});

const backends = [
  {
    name: 'one Redis server',
    cluster: false,
    env: () => ({ REDIS_URL: server.url }),
    target: () => server.url,
    client: () => new Redis(server.url),
  },
  {
    name: 'a Redis Cluster',
    cluster: true,
    env: () => ({ REDIS_CLUSTER_NODES: cluster.nodes }),
    target: () => ({ redisUrl: null, redisClusterNodes: cluster.nodeList }),
    client: () => createRedisClient({ redisUrl: null, redisClusterNodes: cluster.nodeList }, {}) as Cluster,
  },
];

describe.each(backends)('on $name', (backend) => {
  const prefix = `hist${randomUUID().slice(0, 8)}:`;
  let svc: TestService;
  let store: RedisStore;
  let redis: Redis | Cluster;
  beforeAll(async () => {
    store = await RedisStore.connect(backend.target(), { prefix, commandTimeoutMs: 5000 });
    svc = await startTestService({
      store,
      env: { ...backend.env(), REDIS_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '5000', LEASE_TTL_MS: '15000' },
    });
    redis = backend.client();
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await store?.close();
    redis?.disconnect();
  });

  it('two events after a read, a hit and a read of the changed price; one stream per home, in its slot, expiring', async () => {
    const story = await historyStory(svc, ZPID, recordedPage(ZPID));
    const keys = redisKeys(prefix, backend.cluster);
    expect(await redis.xlen(keys.history(HOME))).toBe(2);
    const ttl = await redis.pttl(keys.history(HOME));
    expect(ttl).toBeGreaterThan(svc.config.history.retentionMs - 3_600_000);
    if (backend.cluster) expect(keySlot(keys.history(HOME))).toBe(keySlot(keys.entry(HOME)));

    const gql = await postGql(svc, {
      query: `{ propertyHistory(zpid: "${ZPID}") { events { id initial changes { field from to } } } }`,
    });
    expect(gql.body.data.propertyHistory.events).toEqual(
      story.events.map(({ id, initial, changes }) => ({ id, initial, changes })),
    );
    const paged = await svc.get(`/v1/portal/property/history?zpid=${ZPID}&limit=1&cursor=${story.events[0].id}`);
    expect(paged.body.data).toEqual([story.events[1]]);
    expect((await svc.get(`/v1/portal/property/history?zpid=${ZPID}&cursor=x-1`)).body.error.code).toBe('bad_param');
  });
});
