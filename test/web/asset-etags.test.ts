// /assets/… validators: a strong ETag per encoding (the compressed bytes are other bytes), and
// If-None-Match read as RFC 9110 says: a list, `*`, weak comparison.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssetRegistry, assetRoutes, noneMatch } from '../../src/site/assets.js';

const registry = new AssetRegistry();
// Above the compression threshold, so br and gzip copies are made.
const big = registry.add('big.js', `/* ${'x'.repeat(4_000)} */`);
const small = registry.add('small.css', 'body{}');
const hash = big.url.split('.')[1]!;
const app = Fastify();
assetRoutes(app, () => registry);
beforeAll(() => app.ready());
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });

describe('asset ETags', () => {
  it('one per encoding, each naming the content hash', async () => {
    const tags = new Map<string, string>();
    for (const encoding of ['identity', 'br', 'gzip']) {
      const r = await get(big.url, { 'accept-encoding': encoding });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-encoding'] ?? 'identity').toBe(encoding);
      tags.set(encoding, String(r.headers.etag));
    }
    expect(Object.fromEntries(tags)).toEqual({ identity: `"${hash}"`, br: `"${hash}-br"`, gzip: `"${hash}-gzip"` });
    // A file too small to compress is sent as it is, under the plain tag, whatever is accepted.
    const r = await get(small.url, { 'accept-encoding': 'br' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.etag).toBe(`"${small.url.split('.')[1]}"`);
  });

  it("304 for the tag of the encoding that would be sent, also weak or in a list; 200 for another encoding's tag", async () => {
    const br = { 'accept-encoding': 'br' };
    for (const inm of [`"${hash}-br"`, `W/"${hash}-br"`, `"other", W/"${hash}-br" , "more"`, '*']) {
      const r = await get(big.url, { ...br, 'if-none-match': inm });
      expect(r.statusCode, inm).toBe(304);
      expect(r.body, inm).toBe('');
      expect(r.headers.etag, inm).toBe(`"${hash}-br"`);
    }
    for (const inm of [`"${hash}"`, `"${hash}-gzip"`, '"other"', `${hash}-br`]) {
      const r = await get(big.url, { ...br, 'if-none-match': inm });
      expect(r.statusCode, inm).toBe(200);
      expect(r.headers['content-encoding'], inm).toBe('br');
    }
    const plain = await get(big.url, { 'accept-encoding': 'identity', 'if-none-match': `W/"${hash}"` });
    expect(plain.statusCode).toBe(304);
  });
});

describe('noneMatch', () => {
  it.each([
    [undefined, false],
    ['"a"', true],
    ['W/"a"', true],
    ['"b", "a"', true],
    ['"b",W/"a"', true],
    ['*', true],
    ['"b"', false],
    ['a', false],
    ['"ab"', false],
  ])('%s against "a": %s', (header, expected) => {
    expect(noneMatch(header, '"a"')).toBe(expected);
  });
  it('a weak tag of ours matches too', () => {
    expect(noneMatch('"a"', 'W/"a"')).toBe(true);
  });
});
