// US states, DC, territories and freely associated states: names and two-letter codes.
// The grammar (grammar.ts) reads a state as any of these names or codes.

export const STATE_NAMES: Readonly<Record<string, string>> = {
  ALABAMA: 'AL',
  ALASKA: 'AK',
  'AMERICAN SAMOA': 'AS',
  ARIZONA: 'AZ',
  ARKANSAS: 'AR',
  CALIFORNIA: 'CA',
  COLORADO: 'CO',
  CONNECTICUT: 'CT',
  DELAWARE: 'DE',
  'DISTRICT OF COLUMBIA': 'DC',
  'FEDERATED STATES OF MICRONESIA': 'FM',
  FLORIDA: 'FL',
  GEORGIA: 'GA',
  GUAM: 'GU',
  HAWAII: 'HI',
  IDAHO: 'ID',
  ILLINOIS: 'IL',
  INDIANA: 'IN',
  IOWA: 'IA',
  KANSAS: 'KS',
  KENTUCKY: 'KY',
  LOUISIANA: 'LA',
  MAINE: 'ME',
  'MARSHALL ISLANDS': 'MH',
  MARYLAND: 'MD',
  MASSACHUSETTS: 'MA',
  MICHIGAN: 'MI',
  MINNESOTA: 'MN',
  MISSISSIPPI: 'MS',
  MISSOURI: 'MO',
  MONTANA: 'MT',
  NEBRASKA: 'NE',
  NEVADA: 'NV',
  'NEW HAMPSHIRE': 'NH',
  'NEW JERSEY': 'NJ',
  'NEW MEXICO': 'NM',
  'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC',
  'NORTH DAKOTA': 'ND',
  'NORTHERN MARIANA ISLANDS': 'MP',
  OHIO: 'OH',
  OKLAHOMA: 'OK',
  OREGON: 'OR',
  PALAU: 'PW',
  PENNSYLVANIA: 'PA',
  'PUERTO RICO': 'PR',
  'RHODE ISLAND': 'RI',
  'SOUTH CAROLINA': 'SC',
  'SOUTH DAKOTA': 'SD',
  TENNESSEE: 'TN',
  TEXAS: 'TX',
  UTAH: 'UT',
  VERMONT: 'VT',
  'VIRGIN ISLANDS': 'VI',
  VIRGINIA: 'VA',
  WASHINGTON: 'WA',
  'WEST VIRGINIA': 'WV',
  WISCONSIN: 'WI',
  WYOMING: 'WY',
};
export const STATE_CODES: ReadonlySet<string> = new Set(Object.values(STATE_NAMES));

/** A state name at the end of a line; longest first, so "West Virginia" is not read as "Virginia". */
export const STATE_NAME_AT_END = new RegExp(
  `(?:^|[\\s,])(${Object.keys(STATE_NAMES)
    .sort((a, b) => b.length - a.length)
    .join('|')
    .replace(/ /g, '\\s+')})$`,
  'i',
);

/** `TX`, `tx`, `Texas`, `New  York` → the two-letter code; null for anything that is not a state. */
export function stateCode(s: string | null | undefined): string | null {
  const t = (s ?? '').replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim().toUpperCase();
  if (STATE_CODES.has(t)) return t;
  return STATE_NAMES[t] ?? null;
}
