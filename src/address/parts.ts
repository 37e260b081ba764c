// The shapes every address module shares: an address in comparable parts, and the site's pieces.

export interface AddressParts {
  /** House number as written, upper case, without leading zeros: `123`, `12B`, `10-12`, `123 1/2`. */
  number: string;
  /** Directional before the street name, upper case (N, SE, ...), or null. */
  prefix: string | null;
  /** Street name, upper case, without type or directionals. */
  street: string;
  /** USPS street type abbreviation, upper case (ST, AVE, ...), or null. */
  type: string | null;
  /** Directional after the street name, or null. */
  suffix: string | null;
  /** Unit in the form of `normalizeUnit` (`4B`, `BLDG 3 4`, `PH`, `TOWNHOUSE 1`), or null. */
  unit: string | null;
  city: string | null;
  /** Two-letter state code, or null. */
  state: string | null;
  /** Five-digit ZIP (ZIP+4 dropped), or null. */
  zip: string | null;
}

/** The street-line half of AddressParts. */
export type StreetLineParts = Pick<AddressParts, 'number' | 'prefix' | 'street' | 'type' | 'suffix' | 'unit'>;

/** An address as the listing site gives it in pieces (suggestion metaData, a provider item). */
export interface AddressPieces {
  streetNumber: string;
  /** Street with its directional and type, e.g. `E Dean Keeton St`. */
  streetName: string;
  unitNumber?: string | null;
  city?: string | null;
  state?: string | null;
  zipCode?: string | null;
}

/** What may differ between the asked address and a candidate (spec 7, address_ambiguous), in the order reported. */
export const MISMATCH_PARTS = ['number', 'street', 'directional', 'unit', 'zip', 'city', 'state'] as const;
export type MismatchPart = (typeof MISMATCH_PARTS)[number];
