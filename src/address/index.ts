// The one address module: parsing an asked address (validation), its normalized key, units,
// and matching it against the site's addresses (collector, fallback provider, mapping).
export {
  MISMATCH_PARTS,
  type AddressParts,
  type AddressPieces,
  type MismatchPart,
  type StreetLineParts,
} from './parts.js';
export { ADDRESS_MAX, ADDRESS_MIN, checkAddress, parseStreetLine, type AddressCheck } from './parse.js';
export {
  dropLeadingZeros,
  dropUnitLeadingZeros,
  houseNumberKey,
  isZipCode,
  normalizeParts,
  placeName,
  zip5,
} from './normalize.js';
export { stateCode } from './states.js';
export { UNIT_DESIGNATORS, normalizeUnit, splitUnit, unitLabel } from './units.js';
export {
  bestCandidate,
  compareAddress,
  DIFFERENCE_FIELDS,
  DIFFERENCE_KINDS,
  DIFFERENCE_WEIGHTS,
  partsFromPieces,
  partsFromStreetLine,
  partsWithUnit,
  scoreMatch,
  type AddressDifference,
  type DifferenceField,
  type DifferenceKind,
  type MatchScore,
  type Ranked,
  type WrittenAddress,
} from './match.js';
