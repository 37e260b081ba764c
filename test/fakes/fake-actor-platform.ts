// A loopback stand-in for the scraping-actor platform (Apify's API) and its Zillow detail actor, built
// from what the platform documents and what the actor was recorded sending (research:
// fallback-platform.md; fixtures/fallback/). Nothing more: no invented headers or error types.
//
// Endpoints: GET /v2/acts/{actor} (pricing), POST /v2/acts/{actor}/runs (async start, `Location`
// header, `{ data: Run }`), GET /v2/actor-runs/{id}?waitForFinish (≤ 60 s), GET
// /v2/actor-runs/{id}/dataset/items, POST /v2/actor-runs/{id}/abort, and the synchronous POST
// /v2/acts/{actor}/run-sync-get-dataset-items (201 + items, or 400 run-failed naming the run).
// Errors are `{ error: { type, message } }`. Runs carry status, statusMessage, usageTotalUsd, options and
// pricingInfo; each dataset item is charged as a pay-per-event `result`, and a run whose next charge
// would pass its `maxTotalChargeUsd` stops pushing, then ends as the platform ends it (SUCCEEDED with
// what it has, or ABORTED). A run longer than its own `timeout` ends TIMED-OUT.
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

export type Item = Record<string, unknown>;

export interface PlatformError {
  status: number;
  type: string;
  message: string;
  /** Extra fields of the error object (e.g. `data.approvalUrl`). */
  data?: Record<string, unknown>;
}

/** The platform's documented refusals (research §2), with their documented messages. */
export const PLATFORM_ERRORS = {
  invalidToken: { status: 401, type: 'user-or-token-not-found', message: 'User was not found or authentication token is not valid' },
  insufficientPermissions: { status: 403, type: 'insufficient-permissions', message: 'You do not have permission to run this Actor.' },
  actorNotFound: { status: 404, type: 'record-not-found', message: 'Actor with this name was not found' },
  pageNotFound: { status: 404, type: 'page-not-found', message: 'We have bad news: there is no API endpoint at this URL.' },
  notEnoughUsage: {
    status: 402,
    type: 'not-enough-usage-to-run-paid-actor',
    message: 'By launching this job you will exceed your remaining usage. Please upgrade your plan.',
  },
  memoryLimit: {
    status: 402,
    type: 'memory-limit-exceeded',
    message: 'By launching this job you will exceed the memory limit of 8192MB for all your Actor runs and builds.',
  },
  concurrentRuns: {
    status: 402,
    type: 'cannot-start-actor-runs',
    message: 'Cannot start new Actor runs. Underlying error: By launching this job you will exceed your limit of 25 concurrent Actor runs.',
  },
  monthlyLimit: { status: 403, type: 'platform-feature-disabled', message: 'Monthly usage hard limit exceeded' },
  notApproved: {
    status: 403,
    type: 'full-permission-actor-not-approved',
    message: 'This Actor requires full access to your account and it was not approved yet.',
    data: { approvalUrl: 'https://console.apify.com/actors/ENK9p4RZHg0iVso52?approve=true' },
  },
  rateLimited: { status: 429, type: 'rate-limit-exceeded', message: 'You have exceeded the rate limit of 400 requests per second' },
  internal: { status: 500, type: 'internal-server-error', message: 'Internal server error' },
} satisfies Record<string, PlatformError>;

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  input: unknown;
}

export type RunStatus = 'READY' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMING-OUT' | 'TIMED-OUT' | 'ABORTING' | 'ABORTED';
const TERMINAL: ReadonlySet<RunStatus> = new Set(['SUCCEEDED', 'FAILED', 'TIMED-OUT', 'ABORTED']);

export interface FakeRun {
  id: string;
  input: Item;
  status: RunStatus;
  statusMessage: string | null;
  options: { build: string; timeoutSecs: number; memoryMbytes: number; maxItems: null; maxTotalChargeUsd: number };
  usageTotalUsd: number;
  chargedEventCounts: Record<string, number>;
  items: Item[];
  startedAt: string;
  finishedAt: string | null;
  /** True once POST …/abort reached it while it was running. */
  abortedByClient: boolean;
}

export interface FakeActorPlatform {
  url: string;
  token: string;
  /** `owner/name`. */
  actor: string;
  /** The homes the actor can find; it answers a link by zpid and an address loosely, as the real one does. */
  homes: Item[];
  /** Items pushed before the answers (another input's homes), so the answer is not the first item. */
  extraItems: Item[];
  /** Pricing: the minimum cap the actor accepts (null: none) and the price of one dataset item. */
  minimalMaxTotalChargeUsd: number | null;
  resultPriceUsd: number;
  /** How a run stopped at its cost cap ends: the actor exits (SUCCEEDED) or the platform aborts it. */
  capEnding: 'graceful' | 'aborted';
  /**
   * Forces how the next runs end, after pushing nothing: the actor failed, ran out of time, or (a
   * platform limit seen on free plans) the run "succeeded" empty with the limit in its status message.
   */
  failRunsAs: keyof typeof FORCED_ENDINGS | null;
  /** Runs end TIMED-OUT after their own `timeout` (the platform's clock); off to test our own limit first. */
  enforceRunTimeouts: boolean;
  /** Refusals for the next run starts, one per start, in order. */
  refusals: PlatformError[];
  /** While set, runs stay RUNNING until `release()`. */
  holding: boolean;
  calls: FakeCall[];
  runs: FakeRun[];
  /** Resolves with the next run started. */
  nextRun(): Promise<FakeRun>;
  /** Resolves with the next run a client waits for (`waitForFinish`) while it is running. */
  nextWait(): Promise<FakeRun>;
  /** Resolves with the next run aborted by a client. */
  nextAbort(): Promise<FakeRun>;
  /** Lets held runs finish. */
  release(): void;
  /** Puts state back to how it started and forgets calls and runs. */
  reset(): void;
  close(): Promise<void>;
}

export const FIXTURES = new URL('../../fixtures/portal/', import.meta.url);
export const loadFixture = (name: string): Item => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Item;

/**
 * The old raw shape: the listing site's own property object, which the actor passed through until
 * August 2026 (661 Lakeview Ave, San Francisco, CA 94112; zpid 15192198).
 */
export const forSaleItem = (): Item => loadFixture('property-15192198-for-sale-2023.json');

const FORCED_ENDINGS = {
  FAILED: { status: 'FAILED', message: 'The Actor process exited with code 1' },
  'TIMED-OUT': { status: 'TIMED-OUT', message: 'Actor timed out' },
  'RUN-LIMIT': { status: 'SUCCEEDED', message: 'free user run limit reached' },
} as const;

const ACTOR_ID = 'ENK9p4RZHg0iVso52';
const INPUT_FIELDS = new Set(['startUrls', 'addresses', 'propertyStatus', 'extractBuildingUnits', 'searchResultsDatasetId']);
const MISS_REASON = 'Invalid address or Zillow has no data for this address';
const DIRECTIONALS = new Set(['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW', 'NORTH', 'SOUTH', 'EAST', 'WEST']);

/** The actor's loose address key: house number and the first word of the street name ("12222 PARADISE"). */
function looseKey(line: string): string {
  const [number = '', ...rest] = line.split(',')[0]!.trim().toUpperCase().split(/\s+/);
  return `${number} ${rest.find((w) => !DIRECTIONALS.has(w)) ?? ''}`;
}

const streetOf = (home: Item): string => {
  const mapped = home.listingAddress as Item | undefined;
  const raw = home.address as Item | undefined;
  return String(mapped?.street ?? raw?.streetAddress ?? home.streetAddress ?? '');
};

const zpidInUrl = (url: string) => /\/(\d+)_zpid/.exec(url)?.[1] ?? null;

export async function startFakeActorPlatform(opts: { token?: string; actor?: string; homes?: Item[]; items?: Item[] } = {}): Promise<FakeActorPlatform> {
  const events = new EventEmitter();
  let runCounter = 0;
  const defaults = {
    extraItems: [] as Item[],
    minimalMaxTotalChargeUsd: null as number | null,
    resultPriceUsd: 0.003,
    capEnding: 'graceful' as const,
    failRunsAs: null,
    enforceRunTimeouts: true,
    refusals: [] as PlatformError[],
    holding: false,
  };
  const state = {
    token: opts.token ?? 'test-token',
    actor: opts.actor ?? 'maxcopell/zillow-detail-scraper',
    homes: opts.homes ?? opts.items ?? [forSaleItem()],
    ...defaults,
    extraItems: [] as Item[],
    refusals: [] as PlatformError[],
    calls: [] as FakeCall[],
    runs: [] as FakeRun[],
  } as Omit<FakeActorPlatform, 'url' | 'nextRun' | 'nextWait' | 'nextAbort' | 'release' | 'reset' | 'close'>;

  const pricingInfo = () => ({
    pricingModel: 'PAY_PER_EVENT',
    startedAt: '2025-01-01T00:00:00.000Z',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...(state.minimalMaxTotalChargeUsd === null ? {} : { minimalMaxTotalChargeUsd: state.minimalMaxTotalChargeUsd }),
    pricingPerEvent: {
      actorChargeEvents: { result: { eventTitle: 'Property result', eventPriceUsd: state.resultPriceUsd, eventDescription: 'One property in the dataset' } },
    },
  });

  const runObject = (r: FakeRun) => ({
    id: r.id,
    actId: ACTOR_ID,
    userId: 'fakeUser00001',
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    status: r.status,
    statusMessage: r.statusMessage,
    isStatusMessageTerminal: TERMINAL.has(r.status),
    meta: { origin: 'API' },
    options: r.options,
    pricingInfo: pricingInfo(),
    chargedEventCounts: r.chargedEventCounts,
    defaultKeyValueStoreId: `kvs-${r.id}`,
    defaultDatasetId: `ds-${r.id}`,
    defaultRequestQueueId: `rq-${r.id}`,
    usageTotalUsd: r.usageTotalUsd,
  });

  const finish = (r: FakeRun, status: RunStatus, message: string | null) => {
    if (TERMINAL.has(r.status)) return;
    r.status = status;
    r.statusMessage = message;
    r.finishedAt = new Date().toISOString();
    events.emit(`finished:${r.id}`);
  };

  /** What the actor pushes for one input: the home it finds, or its miss item. */
  const answer = (input: string, kind: 'url' | 'address'): Item => {
    const wanted = kind === 'url' ? zpidInUrl(input) : null;
    const home = state.homes.find((h) =>
      kind === 'url' ? wanted !== null && String(h.zpid) === wanted : looseKey(streetOf(h)) === looseKey(input),
    );
    if (!home) return { addressOrUrlFromInput: input, invalidReason: MISS_REASON, isValid: false, scrapedAt: new Date().toISOString() };
    // Items of the actor's own shape echo the input; the old raw shape did not.
    return 'addressOrUrlFromInput' in home ? { ...home, addressOrUrlFromInput: input, scrapedAt: new Date().toISOString() } : { ...home };
  };

  /** The actor's work: push items while the cap allows, then end as the platform ends such a run. */
  const work = async (r: FakeRun) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    r.status = 'RUNNING';
    if (state.holding) await once(events, 'release');
    if (TERMINAL.has(r.status)) return;
    if (state.failRunsAs) return finish(r, FORCED_ENDINGS[state.failRunsAs].status, FORCED_ENDINGS[state.failRunsAs].message);
    const inputs = [
      ...((r.input.startUrls as Array<{ url: string }> | undefined) ?? []).map((s) => answer(s.url, 'url')),
      ...((r.input.addresses as string[] | undefined) ?? []).map((a) => answer(a, 'address')),
    ];
    for (const item of [...state.extraItems, ...inputs]) {
      if (r.usageTotalUsd + state.resultPriceUsd > r.options.maxTotalChargeUsd + 1e-9) {
        return state.capEnding === 'aborted' ? finish(r, 'ABORTED', null) : finish(r, 'SUCCEEDED', null);
      }
      r.items.push(item);
      r.usageTotalUsd = Math.round((r.usageTotalUsd + state.resultPriceUsd) * 1e6) / 1e6;
      r.chargedEventCounts.result = (r.chargedEventCounts.result ?? 0) + 1;
    }
    finish(r, 'SUCCEEDED', null);
  };

  const startRun = (input: Item, query: URLSearchParams): FakeRun => {
    runCounter += 1;
    const run: FakeRun = {
      id: `fakeRun${String(runCounter).padStart(10, '0')}`,
      input,
      status: 'READY',
      statusMessage: null,
      options: {
        build: query.get('build') ?? 'latest',
        timeoutSecs: Number(query.get('timeout') ?? 3600),
        memoryMbytes: Number(query.get('memory') ?? 1024),
        maxItems: null,
        maxTotalChargeUsd: Number(query.get('maxTotalChargeUsd') ?? 0),
      },
      usageTotalUsd: 0,
      chargedEventCounts: {},
      items: [],
      startedAt: new Date().toISOString(),
      finishedAt: null,
      abortedByClient: false,
    };
    state.runs.push(run);
    if (state.enforceRunTimeouts) {
      const t = setTimeout(() => finish(run, 'TIMED-OUT', 'Actor timed out'), run.options.timeoutSecs * 1000);
      t.unref();
      events.once(`finished:${run.id}`, () => clearTimeout(t));
    }
    events.emit('run', run);
    void work(run);
    return run;
  };

  /** Resolves once the run has finished or `seconds` have passed. */
  const waitFor = async (r: FakeRun, seconds: number, req: http.IncomingMessage) => {
    if (TERMINAL.has(r.status) || seconds <= 0) return;
    events.emit('waiting', r);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        events.off(`finished:${r.id}`, done);
        req.socket.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, seconds * 1000);
      events.on(`finished:${r.id}`, done);
      req.socket.on('close', done);
    });
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let input: unknown = null;
    try {
      input = text ? JSON.parse(text) : null;
    } catch {
      input = undefined;
    }
    const authorization = req.headers.authorization ?? null;
    state.calls.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization, input });

    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '60', ...headers });
      res.end(JSON.stringify(body));
    };
    const refuse = (e: PlatformError) => send(e.status, { error: { type: e.type, message: e.message, ...(e.data ? { data: e.data } : {}) } });

    const token = authorization?.replace(/^Bearer\s+/i, '') ?? url.searchParams.get('token');
    if (token !== state.token) return refuse(PLATFORM_ERRORS.invalidToken);

    const actorRoute = /^\/v2\/acts\/([^/]+)(\/runs|\/run-sync-get-dataset-items)?$/.exec(url.pathname);
    const runRoute = /^\/v2\/actor-runs\/([^/]+)(\/dataset\/items|\/abort)?$/.exec(url.pathname);
    if (actorRoute) {
      const named = decodeURIComponent(actorRoute[1]!);
      if (named !== state.actor.replace('/', '~') && named !== ACTOR_ID) return refuse(PLATFORM_ERRORS.actorNotFound);
      const [owner, name] = state.actor.split('/');
      if (!actorRoute[2] && req.method === 'GET') {
        return send(200, { data: { id: ACTOR_ID, userId: 'ownerUser0001', name, username: owner, title: 'Zillow Detail Scraper', pricingInfos: [pricingInfo()] } });
      }
      if (!actorRoute[2] || req.method !== 'POST') return refuse(PLATFORM_ERRORS.pageNotFound);
      const refusal = state.refusals.shift();
      if (refusal) return refuse(refusal);
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return refuse({ status: 400, type: 'invalid-input', message: 'Input is not valid: the input must be a JSON object' });
      }
      // The actor's input schema allows no other fields (additionalProperties: false).
      const unknown = Object.keys(input).filter((k) => !INPUT_FIELDS.has(k));
      if (unknown.length > 0) return refuse({ status: 400, type: 'invalid-input', message: `Input is not valid: Property input.${unknown[0]} is not allowed.` });
      const cap = Number(url.searchParams.get('maxTotalChargeUsd') ?? 0);
      if (state.minimalMaxTotalChargeUsd !== null && !(cap >= state.minimalMaxTotalChargeUsd)) {
        return refuse({
          status: 400,
          type: 'max-total-charge-usd-below-minimum',
          message: `Maximum cost per run is less than the allowed minimum of $${state.minimalMaxTotalChargeUsd.toFixed(2)}`,
        });
      }
      const run = startRun(input as Item, url.searchParams);
      if (actorRoute[2] === '/runs') {
        await waitFor(run, Math.min(60, Number(url.searchParams.get('waitForFinish') ?? 0)), req);
        return send(201, { data: runObject(run) }, { location: `${baseUrl}/v2/actor-runs/${run.id}` });
      }
      await waitFor(run, 300, req);
      if (!TERMINAL.has(run.status)) {
        return refuse({ status: 408, type: 'run-timeout-exceeded', message: 'Actor run exceeded the timeout of 300 seconds for this API endpoint' });
      }
      if (run.status !== 'SUCCEEDED') {
        return refuse({ status: 400, type: 'run-failed', message: `Actor run did not succeed (run ID: ${run.id}, status: ${run.status})` });
      }
      return send(201, run.items, paginationHeaders(run.items.length));
    }
    if (runRoute) {
      const run = state.runs.find((r) => r.id === decodeURIComponent(runRoute[1]!));
      if (!run) return refuse({ status: 404, type: 'record-not-found', message: 'Actor run was not found' });
      if (!runRoute[2] && req.method === 'GET') {
        await waitFor(run, Math.min(60, Number(url.searchParams.get('waitForFinish') ?? 0)), req);
        return send(200, { data: runObject(run) });
      }
      if (runRoute[2] === '/dataset/items' && req.method === 'GET') return send(200, run.items, paginationHeaders(run.items.length));
      if (runRoute[2] === '/abort' && req.method === 'POST') {
        if (!TERMINAL.has(run.status)) {
          run.abortedByClient = true;
          finish(run, 'ABORTED', null);
          events.emit('abort', run);
        }
        return send(200, { data: runObject(run) });
      }
    }
    return refuse(PLATFORM_ERRORS.pageNotFound);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  const platform = state as FakeActorPlatform;
  platform.url = baseUrl;
  platform.nextRun = () => once(events, 'run').then(([r]) => r as FakeRun);
  platform.nextWait = () => once(events, 'waiting').then(([r]) => r as FakeRun);
  platform.nextAbort = () => once(events, 'abort').then(([r]) => r as FakeRun);
  platform.release = () => {
    platform.holding = false;
    events.emit('release');
  };
  const initialHomes = [...platform.homes];
  platform.reset = () => {
    platform.release();
    Object.assign(platform, { ...defaults, homes: [...initialHomes], extraItems: [], refusals: [] });
    platform.calls.length = 0;
    platform.runs.length = 0;
  };
  platform.close = async () => {
    platform.release();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return platform;
}

const paginationHeaders = (n: number): Record<string, string> => ({
  'x-apify-pagination-offset': '0',
  'x-apify-pagination-limit': '250000',
  'x-apify-pagination-count': String(n),
  'x-apify-pagination-total': String(n),
});

/** Only the run starts among the calls (each one a paid run on the real platform). */
export const runStarts = (p: FakeActorPlatform): FakeCall[] =>
  p.calls.filter((c) => c.method === 'POST' && /^\/v2\/acts\/[^/]+\/(runs|run-sync-get-dataset-items)$/.test(c.path));
