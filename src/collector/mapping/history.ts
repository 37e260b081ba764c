// The list fields of a record: price events, tax years and schools (spec 2.2-2.4).
import type { PortalPriceEvent, PortalSchool, PortalTaxEvent } from '../../contract/index.js';
import { epochMs, isoDate, num, positive, text, year, yearOf, type Json } from './values.js';

/** Newest first; rows without a time keep their page order after the dated ones. */
const newestFirst = <T>(rows: Array<{ at: number | null; row: T }>): T[] =>
  rows
    .map((r, i) => ({ ...r, i }))
    .sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity) || a.i - b.i)
    .map((r) => r.row);

const dayMs = (date: string | null) => (date === null ? null : Date.parse(`${date}T00:00:00Z`));

export function priceEvents(rows: Json[]): PortalPriceEvent[] {
  return newestFirst(
    rows.map((e) => {
      const date = isoDate(e.date) ?? isoDate(e.time);
      return {
        at: epochMs(e.time) ?? dayMs(date),
        row: {
          date,
          event: text(e.event),
          price: positive(e.price),
          pricePerSquareFoot: positive(e.pricePerSquareFoot),
          priceChangeRate: num(e.priceChangeRate),
          source: text(e.source),
        },
      };
    }),
  );
}

export function taxEvents(rows: Json[]): PortalTaxEvent[] {
  return newestFirst(
    rows.map((e) => ({
      at: epochMs(e.time),
      row: {
        year: yearOf(e.time) ?? year(e.year),
        taxPaid: positive(e.taxPaid),
        value: positive(e.value),
        taxIncreaseRate: num(e.taxIncreaseRate),
        valueIncreaseRate: num(e.valueIncreaseRate),
      },
    })),
  );
}

export function schools(rows: Json[]): PortalSchool[] {
  return rows.map((s) => ({
    name: text(s.name),
    rating: num(s.rating),
    distance: num(s.distance),
    level: text(s.level),
    type: text(s.type),
    grades: text(s.grades),
    link: text(s.link),
  }));
}

/** "Sold", "Sold (Public Records)"; not "Foreclosed" or "Pending sale". */
export const isSaleEvent = (e: PortalPriceEvent) => /^sold\b/i.test(e.event ?? '');
/** "Listed for sale", "Listed for rent". */
export const isListingEvent = (e: PortalPriceEvent) => /^listed for\b/i.test(e.event ?? '');
