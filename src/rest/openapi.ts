// The OpenAPI document, generated from the contract so it cannot drift from it: the schemas
// (schema.ts, inputs.ts, jobs.ts, watches.ts, history.ts, account-record.ts, webhook-deliveries.ts), the query
// parameters (the input fields), and the error
// codes, statuses and example error bodies (the table in errors.ts). Each route describes its own
// operations beside its handler (routes/*.ts, or a sibling routes/*.openapi.ts); this file assembles
// them with what is no one route's (openapi/shared.ts): info, tags, security, the component schemas,
// the HTTP layer's shared responses, and the webhooks (webhooks/openapi.ts).
import { CONTRACT_SCHEMAS, ERROR_CODES, HISTORY_SCHEMAS } from '../contract/index.js';
import { JOB_RETENTION_DAYS, JOB_SCHEMAS, MAX_JOB_ITEMS } from '../contract/jobs.js';
import { STATUS_SCHEMAS } from '../contract/status.js';
import { WATCH_SCHEMAS } from '../contract/watches.js';
import { WEBHOOK_DELIVERIES_KEEP_DAYS, WEBHOOK_DELIVERY_SCHEMAS } from '../contract/webhook-deliveries.js';
import { VERSION, LICENSE } from '../version.js';
import { ACCOUNT_RECORD_SCHEMAS } from '../contract/account-record.js';
import { webhooksOpenApi } from '../webhooks/openapi.js';
import {
  HTTP_LAYER_CODES,
  httpLayerResponses,
  SECURITY,
  SECURITY_SCHEMES,
  TAGS,
  toOpenApi,
  type Json,
  type OpenApiConfig,
  type OpenApiPaths,
} from './openapi/shared.js';
import { accountPaths } from './routes/account.js';
import { batchPaths } from './routes/batch.js';
import { historyPaths } from './routes/history.js';
import { jobsPaths } from './routes/jobs.openapi.js';
import { propertyPaths } from './routes/property.js';
import { statusPaths } from './routes/status.js';
import { watchesPaths } from './routes/watches.js';
import { webhooksPaths } from './routes/webhooks.js';

export { exampleProperty } from './openapi/examples.js';

/** Every route file's part of `paths`, in the document's order (the order of its operations in clients). */
const ROUTE_PATHS: readonly ((config: OpenApiConfig) => OpenApiPaths)[] = [
  propertyPaths,
  historyPaths,
  batchPaths,
  jobsPaths,
  watchesPaths,
  webhooksPaths,
  accountPaths,
  statusPaths,
];

/** The routes' parts as one `paths`: a path is one route file's, never described twice. */
function routePaths(config: OpenApiConfig): OpenApiPaths {
  const paths: OpenApiPaths = {};
  for (const part of ROUTE_PATHS) {
    for (const [path, operations] of Object.entries(part(config))) {
      if (path in paths) throw new Error(`OpenAPI: ${path} is described by two route files`);
      paths[path] = operations;
    }
  }
  return paths;
}

/** The document of a service: its descriptions say the configured cache lifetime. */
export function buildOpenApi(config: OpenApiConfig): Record<string, Json> {
  const schemas = Object.fromEntries(
    [
      ...CONTRACT_SCHEMAS,
      ...HISTORY_SCHEMAS,
      ...JOB_SCHEMAS,
      ...WATCH_SCHEMAS,
      ...ACCOUNT_RECORD_SCHEMAS,
      ...WEBHOOK_DELIVERY_SCHEMAS,
      ...STATUS_SCHEMAS,
    ].map((s) => [s.$id!, toOpenApi(s)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property lookup API',
      // The release (package.json); the API's version is the path's v1.
      version: VERSION,
      license: { name: LICENSE },
      contact: { name: 'Property lookup API maintainers' },
      description:
        'One clean record per home from a listing-site link, a zpid or a one-line US address. Every request carries the API key: x-api-key, or Authorization: Bearer (but GET /v1/status, the public figures). ' +
        `Any route may also answer ${[...HTTP_LAYER_CODES].map((c) => `${ERROR_CODES[c].status} ${c}`).join(', ')} in the same error envelope.`,
    },
    servers: [{ url: '/' }],
    tags: [
      { name: TAGS.lookups, description: 'Homes by link, zpid or address: one, or up to 50 in a batch' },
      {
        name: TAGS.jobs,
        description: `Bulk lookups of up to ${MAX_JOB_ITEMS.toLocaleString('en-US')} homes that run in the background, billed as lookups; results kept ${JOB_RETENTION_DAYS} days`,
      },
      {
        name: TAGS.watches,
        description:
          'Homes read live on a schedule, billed per check, with a property.changed webhook when price, status, estimates or HOA change',
      },
      {
        name: TAGS.webhooks,
        description: `The account's webhook delivery attempts (kept ${WEBHOOK_DELIVERIES_KEEP_DAYS} days) and redelivery of an event`,
      },
      { name: TAGS.account, description: "The caller's plan and usage" },
      {
        name: TAGS.status,
        description: "The service's own public figures across its instances, without an API key",
      },
    ],
    security: SECURITY,
    components: {
      schemas,
      responses: httpLayerResponses(),
      securitySchemes: SECURITY_SCHEMES,
    },
    // The events a webhook_url receives (job.completed, job.failed, property.changed).
    webhooks: webhooksOpenApi(),
    paths: routePaths(config),
  };
}
