// Small normalizations every address comparison and key uses: one rule each.
import type { AddressParts } from './parts.js';

/** A house number's leading zeros: `0012` → `12`, `04B` → `4B`; a lone `0` and `0A` stay (`0A` is not house `A`). */
export const dropLeadingZeros = (s: string): string => s.replace(/^0+(?=\d)/, '');

/** A unit's leading zeros: `04B` → `4B`, and `0A` → `A` too (unit ids are compared without zeros); a lone `0` stays. */
export const dropUnitLeadingZeros = (s: string): string => s.replace(/^0+(?=\w)/, '');

/** Upper case, `.` and `,` as spaces, one space; null when nothing is left. */
export const upperWords = (s: string | undefined | null): string | null => {
  const t = s?.replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim().toUpperCase();
  return t ? t : null;
};

// Saint/St, Fort/Ft, Mount/Mt are written both ways in names and cities.
const NAME_WORDS: Record<string, string> = { SAINT: 'ST', FORT: 'FT', MOUNT: 'MT' };

/** A street or city name as compared: upper case, no punctuation, Saint = St. */
export const placeName = (s: string | null | undefined): string | null => {
  const t = (s ?? '')
    .toUpperCase()
    .replace(/[.,']/g, '')
    .replace(/[\s-]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => NAME_WORDS[w] ?? w)
    .join(' ');
  return t || null;
};

/** The five-digit ZIP at the start of a ZIP or ZIP+4; null when there is none. */
export const zip5 = (z: string | null | undefined): string | null => /^\d{5}/.exec((z ?? '').trim())?.[0] ?? null;

/** Whether a text is a ZIP code and nothing else (`85390`, `85390-1234`). */
export const isZipCode = (s: string | null | undefined): boolean => /^\d{5}(?:-?\d{4})?$/.test((s ?? '').trim());

/** A house number as compared: `0012-B` and `12B` are the same; `123 1/2` keeps its fraction. */
export const houseNumberKey = (n: string): string =>
  dropLeadingZeros(n.toUpperCase().replace(/\s+/g, '')).replace(/(\d)-(?=[A-Z]$)/, '$1');

/** `123 n main st #4b, springfield, il 62701`: lower case, one space, fixed order (the `addr:` cache key). */
export function normalizeParts(a: AddressParts): string {
  const street = [a.number, a.prefix, a.street, a.type, a.suffix].filter(Boolean).join(' ');
  const line1 = a.unit ? `${street} #${a.unit}` : street;
  const stateZip = [a.state, a.zip].filter(Boolean).join(' ');
  return [line1, a.city, stateZip].filter(Boolean).join(', ').toLowerCase();
}
