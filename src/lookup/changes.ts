// Change hints (meta.changes): what differs between two snapshots of one home, field by field.
import type { ChangeField, FieldChange, PortalPriceEvent, PortalProperty } from '../contract/index.js';
import type { SectionName, Sections } from '../contract/sections.js';

/** Fields compared by value: any difference (null to a value too) is a change. */
const VALUE_FIELDS = [
  'price',
  'homeStatus',
  'estimate',
  'rentEstimate',
  'monthlyHoaFee',
  'photoCount',
] as const satisfies readonly ChangeField[];

/** A snapshot as compared: the fields meta.changes reports, any of them missing (read as null). */
export type Snapshot = Partial<Pick<PortalProperty, (typeof VALUE_FIELDS)[number] | 'daysOnPortal' | 'priceHistory'>>;

/** A price event's identity: the same date, event and price is the same event, whatever else was re-read. */
const eventKey = (e: PortalPriceEvent): string => JSON.stringify([e.date ?? null, e.event ?? null, e.price ?? null]);

/** The section each compared field is read from, when it has one (meta.sections). */
const SECTION_OF: Partial<Record<ChangeField, SectionName>> = {
  estimate: 'estimate',
  rentEstimate: 'rentEstimate',
  photoCount: 'photos',
  priceHistory: 'priceHistory',
};
const READ: ReadonlySet<string> = new Set(['present', 'not_published']);

/**
 * Fields not to compare: read from a section that either snapshot could not read (extraction_failed)
 * or did not have at all (not_found, another page generation): its value there says nothing.
 */
export function unreadFields(...snapshots: Sections[]): Set<ChangeField> {
  const unread = new Set<ChangeField>();
  for (const [field, section] of Object.entries(SECTION_OF) as Array<[ChangeField, SectionName]>) {
    if (snapshots.some((s) => !READ.has(s[section]))) unread.add(field);
  }
  return unread;
}

/**
 * What changed from `before` to `after`, in CHANGE_FIELDS order (but the `unread` fields):
 * - price, homeStatus, estimate, rentEstimate, monthlyHoaFee, photoCount: any other value;
 * - daysOnPortal: only a count that went down (the listing was relisted and its count restarted);
 *   its growth from day to day, or becoming null, is not a change;
 * - priceHistory: each event of `after` that `before` did not have (same date, event and price),
 *   newest first as the record lists them, as `{ field: 'priceHistory', from: null, to: event }`.
 */
export function changesBetween(
  before: Snapshot,
  after: Snapshot,
  unread: ReadonlySet<ChangeField> = new Set(),
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of VALUE_FIELDS) {
    if (unread.has(field)) continue;
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (from !== to) changes.push({ field, from, to });
  }
  const days = { from: before.daysOnPortal ?? null, to: after.daysOnPortal ?? null };
  if (days.from !== null && days.to !== null && days.to < days.from) changes.push({ field: 'daysOnPortal', ...days });
  if (unread.has('priceHistory')) return changes;
  const known = new Set((before.priceHistory ?? []).map(eventKey));
  for (const event of after.priceHistory ?? []) {
    if (!known.has(eventKey(event))) changes.push({ field: 'priceHistory', from: null, to: event });
  }
  return changes;
}

/**
 * A first snapshot's values of the fields meta.changes covers, as changes from nothing (a home's first
 * history event): each field in CHANGE_FIELDS order (null ones too, but the `unread` fields), then each
 * priceHistory event, newest first, as `{ field: 'priceHistory', from: null, to: event }`.
 */
export function startingValues(after: Snapshot, unread: ReadonlySet<ChangeField> = new Set()): FieldChange[] {
  const values: FieldChange[] = [];
  for (const field of [...VALUE_FIELDS, 'daysOnPortal'] as const) {
    if (!unread.has(field)) values.push({ field, from: null, to: after[field] ?? null });
  }
  if (unread.has('priceHistory')) return values;
  for (const event of after.priceHistory ?? []) values.push({ field: 'priceHistory', from: null, to: event });
  return values;
}
