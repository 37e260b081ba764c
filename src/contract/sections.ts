// The sections of a record whose completeness an answer reports (meta.sections) and the four states
// one can be in. No imports: the page workers load this file, not the whole contract.

export const SECTION_NAMES = [
  'photos',
  'priceHistory',
  'taxHistory',
  'schools',
  'agent',
  'broker',
  'estimate',
  'rentEstimate',
  'description',
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const SECTION_STATES = ['present', 'not_published', 'not_found', 'extraction_failed'] as const;
export type SectionState = (typeof SECTION_STATES)[number];

/** What each state means (docs/sections.md). */
export const SECTION_STATE_DESCRIPTIONS: Record<SectionState, string> = {
  present: 'The page holds the section and it was read',
  not_published: 'The page says there is none (an empty list, a null value), or does not show it for this home',
  not_found: "The page has no such section at all (this page generation, or this kind of property, doesn't carry it)",
  extraction_failed:
    'The page holds the section but it could not be read (an unexpected shape, a value that did not parse)',
};

/** Which record fields each section stands for. */
export const SECTION_DESCRIPTIONS: Record<SectionName, string> = {
  photos: 'photos',
  priceHistory: 'priceHistory',
  taxHistory: 'taxHistory',
  schools: 'schools',
  agent: 'agentName, agentPhone, agentLicenseNumber',
  broker: 'brokerName, brokerPhone',
  estimate: 'estimate',
  rentEstimate: 'rentEstimate',
  description: 'description',
};

export type Sections = Record<SectionName, SectionState>;

/** True when some section could not be read: the record is incomplete (cached briefly, billed only with its core fields). */
export const hasFailedSection = (s: Sections): boolean => SECTION_NAMES.some((n) => s[n] === 'extraction_failed');
