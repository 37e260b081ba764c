// The persisted Property and Batch operations take the freshness options (issue 10 §1, §2): a client
// that sends only a hash can still ask for maxAge and stale. Through the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchDocument, PropertyDocument } from '../../src/graphql/operations/generated/graphql.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { postGql } from './client.js';

const ZPID = '114303858';
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

const hashOf = (doc: unknown): string => (doc as { __meta__: { hash: string } }).__meta__.hash;
const persisted = async (doc: unknown, variables: Record<string, unknown>) => {
  const r = await postGql(svc, { variables, extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(doc) } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
};

describe('persisted operations with maxAge and stale', () => {
  it('Property: maxAge 0 reads a cached home live again', async () => {
    expect((await persisted(PropertyDocument, { zpid: ZPID })).property.meta).toMatchObject({
      credits: 1,
      cached: false,
    });
    expect((await persisted(PropertyDocument, { zpid: ZPID })).property.meta).toMatchObject({
      credits: 0,
      cached: true,
    });
    expect((await persisted(PropertyDocument, { zpid: ZPID, maxAge: 0, stale: false })).property.meta).toMatchObject({
      credits: 1,
      cached: false,
      ageSeconds: 0,
    });
  });

  it("Batch: maxAge 0 for every item, or an item's own", async () => {
    const all = await persisted(BatchDocument, { items: [{ zpid: ZPID }], maxAge: 0, stale: true });
    expect(all.properties.results[0].meta).toMatchObject({ credits: 1, cached: false });
    const own = await persisted(BatchDocument, { items: [{ zpid: ZPID, maxAge: 0 }, { zpid: ZPID }] });
    expect(own.properties.meta).toMatchObject({ credits: 1 });
  });
});
