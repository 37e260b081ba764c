// The served OpenAPI document: valid for a standard validator, every operation named and tagged, the
// error codes the table's, every example valid against its schema, and openapi-typescript makes
// usable types from it with no flags (the types a client is generated from).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  humanMs,
  LOCATOR_FIELDS,
  LOCATOR_KEYS,
  lookupDescription,
  REST_ERROR_CODES,
  type ErrorCode,
} from '../../src/contract/index.js';
import { buildOpenApi, exampleProperty } from '../../src/rest/openapi.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService();
  const r = await svc.get('/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(() => svc.close());

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  );

/** A response, or the shared one (components.responses) it refers to. */
const resolved = (response: any): any =>
  response.$ref ? doc.components.responses[response.$ref.replace('#/components/responses/', '')] : response;

describe('/openapi.json', () => {
  it('is the document the contract generates', () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApi(svc.config))));
  });

  it('validates with @readme/openapi-parser (OpenAPI 3.1)', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('names and tags every operation, each name once, each tag declared', () => {
    const declared = doc.tags.map((t: any) => t.name);
    const ids = operations().map(({ where, op }) => {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(declared, where).toContain(tag);
      return op.operationId;
    });
    expect(ids).toEqual([
      'lookupProperty',
      'getPropertyHistory',
      'lookupProperties',
      'createLookupJob',
      'listLookupJobs',
      'getLookupJob',
      'cancelLookupJob',
      'getLookupJobResults',
      'streamLookupJobEvents',
      'createWatch',
      'listWatches',
      'getWatch',
      'deleteWatch',
      'listWebhookDeliveries',
      'redeliverWebhook',
      'getAccount',
      'getAccountUsage',
      'getAccountCharges',
      'getServiceStatus',
    ]);
  });

  it("error code is an enum of REST's codes from the table, GraphQL's own left out", () => {
    const codes = doc.components.schemas.ErrorBody.properties.code.enum;
    expect(codes).toEqual(REST_ERROR_CODES);
    const graphqlOnly = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
      (c) => !(REST_ERROR_CODES as string[]).includes(c),
    );
    expect(graphqlOnly.sort()).toEqual([
      'missing_query',
      'operation_not_supported',
      'persisted_query_not_found',
      'query_too_complex',
    ]);
    for (const c of graphqlOnly) expect(codes).not.toContain(c);
  });

  it('every error response has one example per code, each with the status and message of the table', () => {
    const documented = new Set<string>();
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (status.startsWith('2')) continue;
        const examples = resolved(response).content['application/json'].examples;
        expect(Object.keys(examples).length, `${where} ${status}`).toBeGreaterThan(0);
        for (const [code, example] of Object.entries(examples as Record<string, any>)) {
          expect(ERROR_CODES[code as ErrorCode].status, `${where}: ${code}`).toBe(Number(status));
          expect(example.value.error).toEqual({ code, message: ERROR_CODES[code as ErrorCode].message });
          documented.add(code);
        }
      }
    }
    expect(documented.has('not_found') && documented.has('too_many_items') && documented.has('store_unavailable')).toBe(
      true,
    );
    // The request-level codes on every operation, 415 on the one with a body.
    for (const { where, op } of operations()) {
      for (const code of ['not_acceptable', 'request_timeout', 'expectation_failed', 'headers_too_large'] as const) {
        expect(op.responses[String(ERROR_CODES[code].status)], `${where} ${code}`).toEqual({
          $ref: `#/components/responses/${code}`,
        });
      }
    }
    expect(doc.paths['/v1/portal/batch'].post.responses['415']).toEqual({
      $ref: '#/components/responses/unsupported_media_type',
    });
    expect(doc.paths['/v1/account'].get.responses['415']).toBeUndefined();
  });

  it("every code of the REST error table is in some response example (an operation's or a shared response)", () => {
    const inExamples = new Set<string>();
    const responses = [
      ...operations().flatMap(({ op }) => Object.values(op.responses as Record<string, any>)),
      ...Object.values(doc.components.responses as Record<string, any>),
    ];
    for (const response of responses) {
      const media = resolved(response).content?.['application/json'];
      if (!media) continue; // a stream of a job's results or events, or a 204: no error in it
      for (const example of Object.values((media.examples ?? {}) as Record<string, any>))
        inExamples.add(example.value.error?.code);
      if (media.example?.error) inExamples.add(media.example.error.code);
    }
    expect(REST_ERROR_CODES.filter((c) => !inExamples.has(c))).toEqual([]);
    for (const [code, response] of Object.entries(doc.components.responses as Record<string, any>)) {
      expect(response.content['application/json'].examples[code].value.error).toEqual({
        code,
        message: ERROR_CODES[code as ErrorCode].message,
      });
    }
  });

  it('a batch result is one of two shapes: success (data, meta) or failure (error)', () => {
    const s = doc.components.schemas;
    expect(s.BatchResponse.properties.data.items).toEqual({
      oneOf: [{ $ref: '#/components/schemas/BatchItemSuccess' }, { $ref: '#/components/schemas/BatchItemFailure' }],
    });
    expect(s.BatchItemSuccess).toMatchObject({
      required: ['index', 'ok', 'data', 'meta'],
      properties: { ok: { const: true } },
    });
    expect(s.BatchItemFailure).toMatchObject({
      required: ['index', 'ok', 'error'],
      properties: { ok: { const: false } },
    });
  });

  it('every example (parameters, request bodies, responses) is valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    // The document's refs point into it: '#/components/…' read from the document's root.
    const check = (schema: unknown, value: unknown, where: string) => {
      const validateFn = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')),
      );
      expect(validateFn(value), `${where}: ${JSON.stringify(validateFn.errors)}`).toBe(true);
    };
    let checked = 0;
    for (const { where, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.example === undefined) continue;
        check(p.schema, p.example, `${where} ?${p.name}`);
        checked++;
      }
      const body = op.requestBody?.content['application/json'];
      if (body) {
        expect(body.example, `${where} request example`).toBeTypeOf('object');
        check(body.schema, body.example, `${where} body`);
        checked++;
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        // A 204 (a watch deleted) has no body.
        if (status === '204') {
          expect(resolved(response).content, `${where} 204`).toBeUndefined();
          continue;
        }
        const content = resolved(response).content;
        const media = content['application/json'];
        // A job's results and events are streams of lines (NDJSON, CSV, server-sent events): their schema is text.
        if (!media && status === '200') {
          for (const [type, stream] of Object.entries(content as Record<string, any>))
            expect(stream.schema, `${where} ${type}`).toMatchObject({ type: 'string' });
          continue;
        }
        const examples =
          media.example === undefined ? Object.values(media.examples ?? {}).map((e: any) => e.value) : [media.example];
        expect(examples.length, `${where} ${status} has an example`).toBeGreaterThan(0);
        for (const [i, value] of examples.entries()) {
          check(media.schema, value, `${where} ${status} #${i}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('the single lookup: its rule from the contract, with the configured cache lifetime', () => {
    const lookup = doc.paths['/v1/portal/property'].get;
    expect(lookup.description).toBe(lookupDescription(humanMs(svc.config.cacheTtlMs)));
    for (const key of LOCATOR_KEYS) expect(lookup.description).toContain(key);
    expect(buildOpenApi({ cacheTtlMs: 30 * 60_000 }).paths).toMatchObject({
      '/v1/portal/property': { get: { description: expect.stringContaining('a cache hit (30 min) costs 0') } },
    });
  });

  it("only zpid's example is one Swagger UI's try-it fills in (one locator sent); the others' are in their description", () => {
    const params = doc.paths['/v1/portal/property'].get.parameters as any[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(params.filter((p) => p.example !== undefined || p.examples !== undefined).map((p) => p.name)).toEqual([
      'zpid',
    ]);
    expect(byName.zpid.example).toBe(LOCATOR_FIELDS.zpid.examples[0]);
    for (const key of ['url', 'address'] as const)
      expect(byName[key].description).toContain(`Example: \`${LOCATOR_FIELDS[key].examples[0]}\``);
  });

  it("the example home is the hand-checked record's (fixtures/portal/expected), trimmed", () => {
    const expected = JSON.parse(
      readFileSync(
        new URL('../../fixtures/portal/expected/hdp-2146993218-condo-for-sale-2024.json', import.meta.url),
        'utf8',
      ),
    ).expected;
    let compared = 0;
    for (const [field, value] of Object.entries(exampleProperty)) {
      if (value === null || (Array.isArray(value) && value.length === 0)) continue;
      expect(value, field).toEqual(expected[field]);
      compared++;
    }
    expect(compared).toBeGreaterThan(15);
    expect(exampleProperty.unit).toBe('O31');
    const example = doc.paths['/v1/portal/property'].get.responses['200'].content['application/json'].example;
    expect(example.data).toEqual(exampleProperty);
  });
});

describe('openapi-typescript on the served document', () => {
  it('generates types, without flags, that name the operations and the error code union, and that type-check in use', async () => {
    // The library in process, on the served document, with the options its CLI passes when given no
    // flags (every boolean false; only defaultNonNullable differs from the library's own defaults).
    const types = astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0], { defaultNonNullable: false }));
    for (const op of ['lookupProperty', 'lookupProperties', 'getAccount']) expect(types).toContain(`    ${op}: {`);
    expect(types).toContain(REST_ERROR_CODES.map((c) => `"${c}"`).join(' | '));

    const dir = mkdtempSync(join(tmpdir(), 'openapi-types-'));
    writeFileSync(join(dir, 'api.ts'), types);
    writeFileSync(
      join(dir, 'use.ts'),
      `import type { components, operations } from './api';
type Code = components['schemas']['ErrorBody']['code'];
export const spec: Code = 'too_many_items';
// @ts-expect-error GraphQL's own codes are not REST's
export const graphqlOnly: Code = 'query_too_complex';
type Result = components['schemas']['BatchResponse']['data'][number];
export const zpidOrCode = (r: Result): string => (r.ok ? (r.data.zpid ?? '') : r.error.code);
type Query = NonNullable<operations['lookupProperty']['parameters']['query']>;
export const query: Query = { zpid: '1', status: 'sold', raw: true };
// @ts-expect-error status is one of the hints
export const badStatus: Query = { zpid: '1', status: 'rented' };
export const body: operations['lookupProperties']['requestBody']['content']['application/json'] = { items: [{ zpid: '1' }, 'a link or address'] };
// @ts-expect-error an item names one home by url, zpid or address
export const badItem: operations['lookupProperties']['requestBody']['content']['application/json'] = { items: [{ id: '1' }] };
export type Account = operations['getAccount']['responses'][200]['content']['application/json']['data']['remaining'];
`,
    );
    const program = ts.createProgram([join(dir, 'use.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
