// A loopback stand-in for the scraping-actor platform (Apify's API) and its Zillow detail actor, built
// from what the platform documents and what the actor was recorded sending (research:
// fallback-platform.md; fixtures/fallback/). Nothing more: no invented headers or error types.
//
// Endpoints: GET /v2/acts/{actor} (pricing), POST /v2/acts/{actor}/runs (async start, `Location:
// …/runs/{id}` (research §1.3), `{ data: Run }`), GET /v2/acts/{actor}/runs/{id} and GET
// /v2/actor-runs/{id}?waitForFinish (≤ 60 s), GET /v2/actor-runs/{id}/dataset/items, POST
// /v2/actor-runs/{id}/abort, and the synchronous POST /v2/acts/{actor}/run-sync-get-dataset-items
// (201 + items, or 400 run-failed naming the run). Errors are `{ error: { type, message } }`.
// Runs carry status, statusMessage, usageTotalUsd, options and pricingInfo. Pricing is pay per event:
// the platform's synthetic `apify-actor-start` (charged once when the run starts, one event per GB
// of memory) and a `result` per dataset item; a run whose next result would pass its
// `maxTotalChargeUsd` stops pushing, then ends as the platform ends it (SUCCEEDED with what it has,
// or ABORTED). No `maxTotalChargeUsd` means no cap. A run longer than its own `timeout` ends TIMED-OUT.
//
// Tests steer it with refusals per route (`refuse`) and gates that hold one route's next answer
// (`hold`), so nothing depends on timing.
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
  invalidToken: {
    status: 401,
    type: 'user-or-token-not-found',
    message: 'User was not found or authentication token is not valid',
  },
  insufficientPermissions: {
    status: 403,
    type: 'insufficient-permissions',
    message: 'You do not have permission to run this Actor.',
  },
  actorNotFound: { status: 404, type: 'record-not-found', message: 'Actor with this name was not found' },
  pageNotFound: {
    status: 404,
    type: 'page-not-found',
    message: 'We have bad news: there is no API endpoint at this URL.',
  },
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
    message:
      'Cannot start new Actor runs. Underlying error: By launching this job you will exceed your limit of 25 concurrent Actor runs.',
  },
  monthlyLimit: { status: 403, type: 'platform-feature-disabled', message: 'Monthly usage hard limit exceeded' },
  notApproved: {
    status: 403,
    type: 'full-permission-actor-not-approved',
    message: 'This Actor requires full access to your account and it was not approved yet.',
    data: { approvalUrl: 'https://console.apify.com/actors/ENK9p4RZHg0iVso52?approve=true' },
  },
  rateLimited: {
    status: 429,
    type: 'rate-limit-exceeded',
    message: 'You have exceeded the rate limit of 400 requests per second',
  },
  internal: { status: 500, type: 'internal-server-error', message: 'Internal server error' },
} satisfies Record<string, PlatformError>;

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  input: unknown;
}

/** The requests a test can refuse or hold: the actor's record, a run start, a poll, the items, an abort. */
export type Route = 'actor' | 'start' | 'wait' | 'items' | 'abort';
const ROUTES: readonly Route[] = ['actor', 'start', 'wait', 'items', 'abort'];

/** A held answer: `reached` resolves once the request has arrived (and, for a start, its run exists); `open` sends it. */
export interface Gate {
  reached: Promise<void>;
  open(): void;
}

export type RunStatus =
  | 'READY'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'TIMING-OUT'
  | 'TIMED-OUT'
  | 'ABORTING'
  | 'ABORTED';
const TERMINAL: ReadonlySet<RunStatus> = new Set(['SUCCEEDED', 'FAILED', 'TIMED-OUT', 'ABORTED']);

export interface FakeRun {
  id: string;
  input: Item;
  status: RunStatus;
  statusMessage: string | null;
  /** `maxTotalChargeUsd` null: none was sent, so the run has no cap. */
  options: {
    build: string;
    timeoutSecs: number;
    memoryMbytes: number;
    maxItems: null;
    maxTotalChargeUsd: number | null;
  };
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
  /**
   * A tripwire, not platform behaviour: refuse input fields the actor does not list, as the platform
   * would only if the actor's input schema forbade them (research §1.1: accepted otherwise).
   */
  rejectUnknownInputFields: boolean;
  /** How a run stopped at its cost cap ends: the actor exits (SUCCEEDED) or the platform aborts it. */
  capEnding: 'graceful' | 'aborted';
  /**
   * Forces how the next runs end: the actor failed, ran out of time, was aborted, or (a platform
   * limit seen on free plans) the run "succeeded" with the limit in its status message.
   */
  failRunsAs: keyof typeof FORCED_ENDINGS | null;
  /** With `failRunsAs`: the run pushed (and was charged for) its items before it ended so; else it pushed nothing. */
  pushBeforeEnding: boolean;
  /** Runs end TIMED-OUT after their own `timeout` (the platform's clock); off to test our own limit first. */
  enforceRunTimeouts: boolean;
  /** Refusals still to be sent, per route, one per request, in order. */
  refusals: Record<Route, PlatformError[]>;
  /** Refuses the next requests on `route` with these errors, one per request. */
  refuse(route: Route, ...errors: PlatformError[]): void;
  /** Holds the next answer on `route` until the gate is opened. */
  hold(route: Route): Gate;
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
  /** Puts state back to how it started (open gates, no refusals) and forgets calls and runs. */
  reset(): void;
  close(): Promise<void>;
}

const PORTAL_FIXTURES = new URL('../../fixtures/portal/', import.meta.url);
const loadFixture = (name: string): Item => JSON.parse(readFileSync(new URL(name, PORTAL_FIXTURES), 'utf8')) as Item;

/**
 * The old raw shape: the listing site's own property object, which the actor passed through until
 * August 2026 (661 Lakeview Ave, San Francisco, CA 94112; zpid 15192198).
 */
export const forSaleItem = (): Item => loadFixture('property-15192198-for-sale-2023.json');

const FORCED_ENDINGS = {
  FAILED: { status: 'FAILED', message: 'The Actor process exited with code 1' },
  'TIMED-OUT': { status: 'TIMED-OUT', message: 'Actor timed out' },
  ABORTED: { status: 'ABORTED', message: null },
  'RUN-LIMIT': { status: 'SUCCEEDED', message: 'free user run limit reached' },
} as const;

const ACTOR_ID = 'ENK9p4RZHg0iVso52';
/** The platform's synthetic start event: charged when a run starts, one per GB of memory, at least one (apify-docs, pay per event). */
const START_EVENT = 'apify-actor-start';
const START_PRICE_USD = 0.00001;
const INPUT_FIELDS = new Set([
  'startUrls',
  'addresses',
  'propertyStatus',
  'extractBuildingUnits',
  'searchResultsDatasetId',
]);
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
const pathOf = (url: unknown): string | null => {
  if (typeof url !== 'string' || !url) return null;
  try {
    return new URL(url, 'https://www.zillow.com').pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
};
/** The page a home or building item was read from. */
const pageOf = (home: Item): string | null => pathOf(home.propertyUrl) ?? pathOf(home.hdpUrl) ?? pathOf(home.bdpUrl);
const roundUsd = (n: number) => Math.round(n * 1e8) / 1e8;

export async function startFakeActorPlatform(
  opts: { token?: string; actor?: string; homes?: Item[]; items?: Item[] } = {},
): Promise<FakeActorPlatform> {
  const events = new EventEmitter();
  let runCounter = 0;
  const noRefusals = (): Record<Route, PlatformError[]> => ({ actor: [], start: [], wait: [], items: [], abort: [] });
  const defaults = () => ({
    extraItems: [] as Item[],
    minimalMaxTotalChargeUsd: null as number | null,
    resultPriceUsd: 0.003,
    rejectUnknownInputFields: false,
    capEnding: 'graceful' as const,
    failRunsAs: null,
    pushBeforeEnding: false,
    enforceRunTimeouts: true,
    refusals: noRefusals(),
    holding: false,
  });
  const state = {
    token: opts.token ?? 'test-token',
    actor: opts.actor ?? 'maxcopell/zillow-detail-scraper',
    homes: opts.homes ?? opts.items ?? [forSaleItem()],
    ...defaults(),
    calls: [] as FakeCall[],
    runs: [] as FakeRun[],
  } as Omit<
    FakeActorPlatform,
    'url' | 'refuse' | 'hold' | 'nextRun' | 'nextWait' | 'nextAbort' | 'release' | 'reset' | 'close'
  >;

  // Held answers, per route: the next request on the route waits for its gate.
  const gates: Record<Route, Array<{ arrived: () => void; opened: Promise<void> }>> = {
    actor: [],
    start: [],
    wait: [],
    items: [],
    abort: [],
  };
  const openers = new Set<() => void>();
  const passGate = async (route: Route) => {
    const gate = gates[route].shift();
    if (!gate) return;
    gate.arrived();
    await gate.opened;
  };

  const pricingInfo = () => ({
    pricingModel: 'PAY_PER_EVENT',
    startedAt: '2025-01-01T00:00:00.000Z',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...(state.minimalMaxTotalChargeUsd === null ? {} : { minimalMaxTotalChargeUsd: state.minimalMaxTotalChargeUsd }),
    pricingPerEvent: {
      actorChargeEvents: {
        [START_EVENT]: {
          eventTitle: 'Actor start',
          eventPriceUsd: START_PRICE_USD,
          eventDescription: 'Charged by the platform when the run starts',
        },
        result: {
          eventTitle: 'Property result',
          eventPriceUsd: state.resultPriceUsd,
          eventDescription: 'One property in the dataset',
        },
      },
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

  const charge = (r: FakeRun, event: string, count: number, priceUsd: number) => {
    r.usageTotalUsd = roundUsd(r.usageTotalUsd + count * priceUsd);
    r.chargedEventCounts[event] = (r.chargedEventCounts[event] ?? 0) + count;
  };

  /** What the actor pushes for one input: the home (or building) it finds, or its miss item. */
  const answer = (input: string, kind: 'url' | 'address'): Item => {
    const wanted = kind === 'url' ? zpidInUrl(input) : null;
    const home = state.homes.find((h) =>
      kind === 'url'
        ? (wanted !== null && String(h.zpid) === wanted) || (wanted === null && pageOf(h) === pathOf(input))
        : looseKey(streetOf(h)) === looseKey(input),
    );
    if (!home)
      return {
        addressOrUrlFromInput: input,
        invalidReason: MISS_REASON,
        isValid: false,
        scrapedAt: new Date().toISOString(),
      };
    // Items of the actor's own shape echo the input; the old raw shape did not.
    return 'addressOrUrlFromInput' in home
      ? { ...home, addressOrUrlFromInput: input, scrapedAt: new Date().toISOString() }
      : { ...home };
  };

  /** The actor's work: push items while the cap allows, then end as the platform ends such a run. */
  const work = async (r: FakeRun) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (TERMINAL.has(r.status)) return;
    r.status = 'RUNNING';
    if (state.holding) await once(events, 'release');
    if (TERMINAL.has(r.status)) return;
    const forced = state.failRunsAs ? FORCED_ENDINGS[state.failRunsAs] : null;
    if (forced && !state.pushBeforeEnding) return finish(r, forced.status, forced.message);
    const inputs = [
      ...((r.input.startUrls as Array<{ url: string }> | undefined) ?? []).map((s) => answer(s.url, 'url')),
      ...((r.input.addresses as string[] | undefined) ?? []).map((a) => answer(a, 'address')),
    ];
    const cap = r.options.maxTotalChargeUsd;
    for (const item of [...state.extraItems, ...inputs]) {
      if (cap !== null && r.usageTotalUsd + state.resultPriceUsd > cap + 1e-9) {
        return state.capEnding === 'aborted' ? finish(r, 'ABORTED', null) : finish(r, 'SUCCEEDED', null);
      }
      r.items.push(item);
      charge(r, 'result', 1, state.resultPriceUsd);
    }
    if (forced) return finish(r, forced.status, forced.message);
    finish(r, 'SUCCEEDED', null);
  };

  const startRun = (input: Item, query: URLSearchParams): FakeRun => {
    runCounter += 1;
    const cap = query.get('maxTotalChargeUsd');
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
        maxTotalChargeUsd: cap === null ? null : Number(cap),
      },
      usageTotalUsd: 0,
      chargedEventCounts: {},
      items: [],
      startedAt: new Date().toISOString(),
      finishedAt: null,
      abortedByClient: false,
    };
    charge(run, START_EVENT, Math.max(1, Math.floor(run.options.memoryMbytes / 1024)), START_PRICE_USD);
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
    state.calls.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization,
      input,
    });

    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': '60',
        ...headers,
      });
      res.end(JSON.stringify(body));
    };
    const refuse = (e: PlatformError) =>
      send(e.status, { error: { type: e.type, message: e.message, ...(e.data ? { data: e.data } : {}) } });
    /** The test's refusal for this route, if one is due: sent, and true. */
    const refused = (route: Route): boolean => {
      const e = state.refusals[route].shift();
      if (e) refuse(e);
      return e !== undefined;
    };

    const token = authorization?.replace(/^Bearer\s+/i, '') ?? url.searchParams.get('token');
    if (token !== state.token) return refuse(PLATFORM_ERRORS.invalidToken);

    const actorRoute = /^\/v2\/acts\/([^/]+)(\/runs|\/run-sync-get-dataset-items)?(?:\/([^/]+))?$/.exec(url.pathname);
    const runRoute = /^\/v2\/actor-runs\/([^/]+)(\/dataset\/items|\/abort)?$/.exec(url.pathname);
    const findRun = (id: string) => state.runs.find((r) => r.id === decodeURIComponent(id));
    const notFound = () => refuse({ status: 404, type: 'record-not-found', message: 'Actor run was not found' });
    /** A poll of a run: its state once it finished or the wait is over. */
    const poll = async (run: FakeRun) => {
      if (refused('wait')) return;
      await waitFor(run, Math.min(60, Number(url.searchParams.get('waitForFinish') ?? 0)), req);
      await passGate('wait');
      send(200, { data: runObject(run) });
    };
    if (actorRoute) {
      const named = decodeURIComponent(actorRoute[1]!);
      if (named !== state.actor.replace('/', '~') && named !== ACTOR_ID) return refuse(PLATFORM_ERRORS.actorNotFound);
      const [owner, name] = state.actor.split('/');
      if (!actorRoute[2] && req.method === 'GET') {
        if (refused('actor')) return;
        await passGate('actor');
        return send(200, {
          data: {
            id: ACTOR_ID,
            userId: 'ownerUser0001',
            name,
            username: owner,
            title: 'Zillow Detail Scraper',
            pricingInfos: [pricingInfo()],
          },
        });
      }
      if (actorRoute[2] === '/runs' && actorRoute[3] && req.method === 'GET') {
        const run = findRun(actorRoute[3]);
        return run ? poll(run) : notFound();
      }
      if (!actorRoute[2] || actorRoute[3] || req.method !== 'POST') return refuse(PLATFORM_ERRORS.pageNotFound);
      if (refused('start')) return;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return refuse({
          status: 400,
          type: 'invalid-input',
          message: 'Input is not valid: the input must be a JSON object',
        });
      }
      const unknown = Object.keys(input).filter((k) => !INPUT_FIELDS.has(k));
      if (state.rejectUnknownInputFields && unknown.length > 0) {
        return refuse({
          status: 400,
          type: 'invalid-input',
          message: `Input is not valid: Property input.${unknown[0]} is not allowed.`,
        });
      }
      const capParam = url.searchParams.get('maxTotalChargeUsd');
      if (
        state.minimalMaxTotalChargeUsd !== null &&
        !(capParam !== null && Number(capParam) >= state.minimalMaxTotalChargeUsd)
      ) {
        return refuse({
          status: 400,
          type: 'max-total-charge-usd-below-minimum',
          message: `Maximum cost per run is less than the allowed minimum of $${state.minimalMaxTotalChargeUsd.toFixed(2)}`,
        });
      }
      const run = startRun(input as Item, url.searchParams);
      if (actorRoute[2] === '/runs') {
        await waitFor(run, Math.min(60, Number(url.searchParams.get('waitForFinish') ?? 0)), req);
        await passGate('start');
        return send(201, { data: runObject(run) }, { location: `${baseUrl}/v2/acts/${actorRoute[1]!}/runs/${run.id}` });
      }
      await waitFor(run, 300, req);
      if (!TERMINAL.has(run.status)) {
        return refuse({
          status: 408,
          type: 'run-timeout-exceeded',
          message: 'Actor run exceeded the timeout of 300 seconds for this API endpoint',
        });
      }
      if (run.status !== 'SUCCEEDED') {
        return refuse({
          status: 400,
          type: 'run-failed',
          message: `Actor run did not succeed (run ID: ${run.id}, status: ${run.status})`,
        });
      }
      return send(201, run.items, paginationHeaders(run.items.length));
    }
    if (runRoute) {
      const run = findRun(runRoute[1]!);
      if (!run) return notFound();
      if (!runRoute[2] && req.method === 'GET') return poll(run);
      if (runRoute[2] === '/dataset/items' && req.method === 'GET') {
        if (refused('items')) return;
        await passGate('items');
        return send(200, run.items, paginationHeaders(run.items.length));
      }
      if (runRoute[2] === '/abort' && req.method === 'POST') {
        if (refused('abort')) return;
        await passGate('abort');
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
  platform.refuse = (route, ...errors) => {
    platform.refusals[route].push(...errors);
  };
  platform.hold = (route) => {
    let arrived!: () => void;
    let open!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    openers.add(open);
    gates[route].push({ arrived, opened });
    return { reached, open };
  };
  platform.nextRun = () => once(events, 'run').then(([r]) => r as FakeRun);
  platform.nextWait = () => once(events, 'waiting').then(([r]) => r as FakeRun);
  platform.nextAbort = () => once(events, 'abort').then(([r]) => r as FakeRun);
  platform.release = () => {
    platform.holding = false;
    events.emit('release');
  };
  const openAll = () => {
    for (const route of ROUTES) gates[route].length = 0;
    for (const open of openers) open();
    openers.clear();
  };
  const initialHomes = [...platform.homes];
  platform.reset = () => {
    platform.release();
    openAll();
    Object.assign(platform, { ...defaults(), homes: [...initialHomes] });
    platform.calls.length = 0;
    platform.runs.length = 0;
  };
  platform.close = async () => {
    platform.release();
    openAll();
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

/** The aborts among the calls. */
export const abortCalls = (p: FakeActorPlatform): FakeCall[] =>
  p.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/abort'));
