// The OpenAPI document, generated from the contract's schemas so it cannot drift from them.
import { CONTRACT_SCHEMAS, ERROR_CODES, STATUS_HINTS, type ErrorCode } from '../contract/index.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** TypeBox refs name a schema by its $id; OpenAPI wants a JSON pointer into components. */
function toOpenApi(node: unknown): Json {
  if (Array.isArray(node)) return node.map(toOpenApi);
  if (node && typeof node === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      out[k] = k === '$ref' && typeof v === 'string' ? `#/components/schemas/${v}` : toOpenApi(v);
    }
    return out;
  }
  return node as Json;
}

const codesWithStatus = (status: number): ErrorCode[] =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c].status === status);

const errorResponses = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      {
        description: `Error: ${codesWithStatus(s).join(', ')}`,
        headers: { ...commonHeaders, 'retry-after': { description: 'Seconds to wait (503, and upstream_busy)', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      },
    ]),
  );

const commonHeaders = {
  'x-api-version': { description: 'Always v1', schema: { type: 'string', const: 'v1' } },
  'cache-control': { description: 'Always no-store', schema: { type: 'string', const: 'no-store' } },
};

const locatorParam = (name: string, description: string, schema: Json) => ({ name, in: 'query', required: false, description, schema });

export function buildOpenApi(): Record<string, Json> {
  const schemas = Object.fromEntries(CONTRACT_SCHEMAS.map((s) => [s.$id!, toOpenApi(s)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property lookup API',
      version: '1.0.0-preview',
      description: 'One clean record per home from a listing-site link, a zpid or a one-line US address. Every request carries x-api-key.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    components: { schemas, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths: {
      '/v1/portal/property': {
        get: {
          summary: 'Look up one home',
          description: 'Send exactly one of url, zpid, address. A live lookup costs 1 credit; a cache hit (24 h) costs 0.',
          parameters: [
            locatorParam('url', 'A home-details link ending in <zpid>_zpid/, or an apartment-building link (/apartments/…). Max 500 characters.', { type: 'string', maxLength: 500 }),
            locatorParam('zpid', 'The property ID, 1 to 12 digits.', { type: 'string', pattern: '^\\d{1,12}$' }),
            locatorParam('address', 'One-line US address with house number and either city + state or ZIP; 5 to 200 characters.', { type: 'string', minLength: 5, maxLength: 200 }),
            locatorParam('status', 'Hint for which listing to read.', { type: 'string', enum: [...STATUS_HINTS] }),
            locatorParam('raw', 'Add data.raw, the unmapped source record.', { type: 'boolean', default: false }),
          ],
          responses: {
            '200': {
              description: 'The home',
              headers: { ...commonHeaders, 'x-cache': { description: 'HIT or MISS', schema: { type: 'string', enum: ['HIT', 'MISS'] } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/PropertyResponse' } } },
            },
            ...errorResponses([400, 401, 402, 404, 409, 422, 500, 502, 503, 504]),
          },
        },
      },
      '/v1/portal/batch': {
        post: {
          summary: 'Look up to 50 homes',
          description: 'Items are strings (link or address) or objects with one of url, address, zpid. Each item has its own ok flag.',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchRequest' } } } },
          responses: {
            '200': { description: 'One result per item, in order', headers: commonHeaders, content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchResponse' } } } },
            ...errorResponses([400, 401, 500, 503]),
          },
        },
      },
      '/v1/account': {
        get: {
          summary: "The caller's plan and usage",
          responses: {
            '200': {
              description: 'Plan and usage',
              headers: commonHeaders,
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { data: { $ref: '#/components/schemas/AccountUsage' }, meta: { type: 'object', properties: { took_ms: { type: 'integer' } } } } },
                },
              },
            },
            ...errorResponses([401, 503]),
          },
        },
      },
    },
  };
}
