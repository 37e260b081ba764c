// The service's own public figures: Query.serviceStatus, the GraphQL face of GET /v1/status. Needs no API
// key (an operation asking only serviceStatus and introspection runs without one: lookup-count.ts
// needsApiKey), bills nothing, and reads the same figures as REST (core.figures). Its types are the
// contract's (contract/status.ts) in camelCase; the window's inline objects get a type each, and
// errors.byCode (a map of error code to lookups) is JSON with REST's keys.
import type { ImplementableObjectRef } from '@pothos/core';
import type { TObject, TSchema } from '@sinclair/typebox';
import {
  ServiceStatus,
  StatusWindow,
  type ServiceStatus as ServiceStatusShape,
  type StatusWindow as StatusWindowShape,
} from '../../contract/index.js';
import { builder, type Types } from '../builder.js';
import type { TypeMap } from '../typebox.js';
import { contractTypes, implementFromContract, rethrowCoded } from './shared.js';

const StatusWindowType = builder.objectRef<StatusWindowShape>('StatusWindow');
const ServiceStatusType = builder.objectRef<ServiceStatusShape>('ServiceStatus');

/** The inline objects of the figures, each its own type named after its owner and field. */
const INLINE: Array<[TObject, string]> = [
  [StatusWindow.properties.served, 'StatusServed'],
  [StatusWindow.properties.live_reads, 'StatusLiveReads'],
  [StatusWindow.properties.site_attempts, 'StatusSiteAttempts'],
  [StatusWindow.properties.records, 'StatusRecords'],
  [StatusWindow.properties.errors, 'StatusErrors'],
  [ServiceStatus.properties.breaker, 'StatusBreaker'],
];

const inline = new Map<TSchema, { ref: ImplementableObjectRef<Types, object>; description?: string | undefined }>();
const statusTypes: TypeMap = {
  ...contractTypes,
  objects: {
    ...contractTypes.objects,
    StatusWindow: { ref: StatusWindowType, name: 'StatusWindow', description: StatusWindow.description },
  },
  inline,
};
for (const [schema, name] of INLINE) {
  const ref = builder.objectRef<object>(name);
  inline.set(schema, { ref, description: schema.description });
  implementFromContract(ref, schema, { types: statusTypes });
}
implementFromContract(StatusWindowType, StatusWindow, { types: statusTypes });
implementFromContract(ServiceStatusType, ServiceStatus, {
  types: statusTypes,
  description: `${ServiceStatus.description} (REST: data of GET /v1/status).`,
});

builder.queryField('serviceStatus', (t) =>
  t.field({
    type: ServiceStatusType,
    description:
      "The service's own figures for the last hour and the last 24 hours, across every instance (REST: GET /v1/status). " +
      'No API key needed: an operation asking only serviceStatus (and introspection) runs without one. Free: no lookup is made.',
    resolve: async (_root, _args, ctx) => ctx.core.figures.status().catch(rethrowCoded),
  }),
);
