// One-line US addresses: validation (spec 4.1) and the normalized form used in `addr:` cache keys.
// Parsing (USPS suffixes, directionals, unit designators, ZIP+4) is done by parse-address.
import parseAddress from 'parse-address';

export interface AddressParts {
  number: string;
  /** Directional before the street name, upper case (N, SE, ...), or null. */
  prefix: string | null;
  /** Street name, upper case, without type or directionals. */
  street: string;
  /** USPS street type abbreviation, upper case (ST, AVE, ...), or null. */
  type: string | null;
  /** Directional after the street name, or null. */
  suffix: string | null;
  /** Unit number without its designator (APT, UNIT, #, STE all mean the same here), or null. */
  unit: string | null;
  city: string | null;
  /** Two-letter state code, or null. */
  state: string | null;
  /** Five-digit ZIP (ZIP+4 dropped), or null. */
  zip: string | null;
}

export type AddressCheck =
  | { ok: true; parts: AddressParts; normalized: string }
  | { ok: false; reason: string };

export const ADDRESS_MIN = 5;
export const ADDRESS_MAX = 200;

const up = (s: string | undefined): string | null => {
  const t = s?.replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim().toUpperCase();
  return t ? t : null;
};

/** Parses and checks a one-line US address; never throws. */
export function checkAddress(input: string): AddressCheck {
  const text = input.trim();
  if (text.length < ADDRESS_MIN || text.length > ADDRESS_MAX) {
    return { ok: false, reason: `address must be ${ADDRESS_MIN} to ${ADDRESS_MAX} characters` };
  }
  const p = parseAddress.parseLocation(text);
  const number = up(p?.number);
  const street = up(p?.street);
  if (!p || !number || !/\d/.test(number) || !street) {
    return { ok: false, reason: 'address needs a house number and a street' };
  }
  const city = up(p.city);
  const state = up(p.state);
  const zip = p.zip && /^\d{5}$/.test(p.zip) ? p.zip : null;
  if (!zip && !(city && state)) {
    return { ok: false, reason: 'address needs either a city and state or a ZIP code' };
  }
  const unitRaw = up(p.sec_unit_num);
  const parts: AddressParts = {
    number,
    prefix: up(p.prefix),
    street,
    type: up(p.type),
    suffix: up(p.suffix),
    unit: unitRaw ? unitRaw.replace(/^#\s*/, '') : null,
    city,
    state: state && /^[A-Z]{2}$/.test(state) ? state : state,
    zip,
  };
  return { ok: true, parts, normalized: normalizeParts(parts) };
}

/** `123 n main st #4b, springfield, il 62701`: lower case, one space, fixed order. */
export function normalizeParts(a: AddressParts): string {
  const street = [a.number, a.prefix, a.street, a.type, a.suffix].filter(Boolean).join(' ');
  const line1 = a.unit ? `${street} #${a.unit}` : street;
  const stateZip = [a.state, a.zip].filter(Boolean).join(' ');
  return [line1, a.city, stateZip].filter(Boolean).join(', ').toLowerCase();
}
