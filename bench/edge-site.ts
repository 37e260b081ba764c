// The listing site over TLS for the transport rows: the fake edge of the tests (test/fakes/edge/) with
// every rule off, in front of the bench's fake site (the real 1.06 MB page per zpid), on the bench's CA
// (BENCH_TLS_CERT/KEY). HTTP/2 for clients that offer it, HTTP/1.1 for the others; answers compressed as
// the client accepts, as the real site does.
import { readFileSync } from 'node:fs';
import { startFakeEdge } from '../test/fakes/edge/edge.js';

const upstream = process.argv[2]!;
const edge = await startFakeEdge({
  upstream: { origin: upstream, suggestUrl: `${upstream}/suggest` } as Parameters<typeof startFakeEdge>[0]['upstream'],
  cert: readFileSync(process.env.BENCH_TLS_CERT!),
  key: readFileSync(process.env.BENCH_TLS_KEY!),
  rules: {
    ja4: false,
    h2: false,
    clientHints: false,
    fetchMetadata: false,
    cookies: false,
    pageBudget: null,
    tarpit: false,
    settings: false,
  },
});
// The bench reads thousands of pages: the edge's request log is not kept.
setInterval(() => void (edge.requests.length = 0), 1_000).unref();
process.send?.({ url: edge.origin });
