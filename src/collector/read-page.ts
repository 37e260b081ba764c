// One listing page → the record: decode, extract and map, with no I/O. This is what a page-reading
// worker runs (page-worker.ts); it takes and returns only values that cross a thread boundary. The
// raw record goes back as JSON text: the store keeps it as text, and a 300 KB object would cost the
// event loop a structured-clone read and a JSON.stringify.
import { LookupError, isLookupError, type ErrorCode } from '../contract/errors.js';
import type { Sections } from '../contract/sections.js';
import { mapBuilding, mapProperty, type MappedProperty } from './mapping/index.js';
import { buildingSections, propertySections } from './mapping/sections.js';
import { extractPage, type PageWant } from './page/index.js';

export interface PageTask {
  /** The page's bytes as they arrived (transferred to the worker, not copied). */
  page: Uint8Array;
  want: PageWant;
  /** ISO time stamped on the record. */
  scrapedAt: string;
  /** ISO lookup date; a building's unit availability depends on it. */
  now: string;
}

export type PageRead =
  | { kind: 'blocked' }
  | { kind: 'building'; property: MappedProperty; sections: Sections; rawJson: string; zpid: string | null }
  | {
      kind: 'property';
      property: MappedProperty;
      sections: Sections;
      rawJson: string;
      zpid: string | null;
      generation: string;
    };

/** A LookupError as plain data, so it survives the thread boundary with its code. */
export interface PageFailure {
  failure: { code: ErrorCode; message: string; details?: Record<string, unknown>; retryAfter?: number };
}

export function readPage(task: PageTask): PageRead {
  const bytes = Buffer.from(task.page.buffer, task.page.byteOffset, task.page.byteLength);
  const data = extractPage(bytes, task.want);
  switch (data.kind) {
    case 'blocked':
      return data;
    case 'building': {
      const property = mapBuilding(data.building, { now: new Date(task.now), scrapedAt: task.scrapedAt });
      return {
        kind: 'building',
        property,
        sections: buildingSections(data.building),
        rawJson: JSON.stringify(data.building),
        zpid: property.zpid,
      };
    }
    case 'property': {
      const property = mapProperty(data.property, data.extras, { scrapedAt: task.scrapedAt });
      const sections = propertySections(data.property, data.extras);
      return {
        kind: 'property',
        property,
        sections,
        rawJson: JSON.stringify(data.property),
        zpid: data.zpid ?? property.zpid,
        generation: data.generation,
      };
    }
  }
}

/** readPage with its LookupErrors returned as data; anything else is thrown (a bug, or a hostile page). */
export function readPageSafely(task: PageTask): PageRead | PageFailure {
  try {
    return readPage(task);
  } catch (e) {
    if (!isLookupError(e)) throw e;
    const { code, message, details, retryAfter } = e;
    return {
      failure: { code, message, ...(details ? { details } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) },
    };
  }
}

/** The LookupError a PageFailure stands for. */
export const failureError = ({ failure: f }: PageFailure): LookupError =>
  new LookupError(f.code, {
    message: f.message,
    ...(f.details ? { details: f.details } : {}),
    ...(f.retryAfter !== undefined ? { retryAfter: f.retryAfter } : {}),
  });
