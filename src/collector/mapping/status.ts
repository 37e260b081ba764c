// The site's status fields → the contract's homeStatus and statusText, plus whether a listing is
// live (price, days on site, agent and posting date depend on it). Table and reasons: docs/mapping.md.
import type { HomeStatus, StatusText } from '../../contract/index.js';
import { obj, text, upperSnake, type Json } from './values.js';

/** active: listed now; sold: a closed sale; none: not listed; unknown: the page names no status. */
export type Listing = 'active' | 'sold' | 'none' | 'unknown';

export interface Status {
  homeStatus: HomeStatus | null;
  statusText: StatusText | null;
  listing: Listing;
}

const of = (homeStatus: HomeStatus, statusText: StatusText | null, listing: Listing): Status => ({
  homeStatus,
  statusText,
  listing,
});

const FIXED: Record<string, Status> = {
  FOR_RENT: of('FOR_RENT', 'For rent', 'active'),
  PENDING: of('PENDING', 'Pending', 'active'),
  UNDER_CONTRACT: of('PENDING', 'Pending', 'active'),
  CONTINGENT: of('PENDING', 'Pending', 'active'),
  COMING_SOON: of('COMING_SOON', 'Coming soon', 'active'),
  FORECLOSURE: of('FORECLOSURE', 'Foreclosure', 'active'),
  // A foreclosed or pre-foreclosure home is a record, not a listing.
  FORECLOSED: of('FORECLOSURE', 'Foreclosure', 'none'),
  PRE_FORECLOSURE: of('FORECLOSURE', 'Foreclosure', 'none'),
  RECENTLY_SOLD: of('RECENTLY_SOLD', 'Sold', 'sold'),
  SOLD: of('RECENTLY_SOLD', 'Sold', 'sold'),
  OFF_MARKET: of('OFF_MARKET', 'Off market', 'none'),
  OTHER: of('OTHER', 'Off market', 'none'),
};

/** A listing sub-type flag, read from both spellings the site uses (listingSubType.isX, listing_sub_type.is_x). */
function subType(p: Json): (camel: string) => boolean {
  const a = obj(p, 'listingSubType');
  const b = obj(p, 'listing_sub_type');
  return (camel) =>
    a[`is${camel}`] === true ||
    b[`is_${camel[0]!.toLowerCase()}${camel.slice(1)}`] === true ||
    b[`is_${camel}`] === true;
}

/**
 * A FOR_SALE listing refined by what the page says about it: pending or under contract
 * (contingent) → PENDING, coming soon, foreclosure; auction, new construction and FSBO stay
 * FOR_SALE with their own readable status.
 */
function forSale(p: Json): Status {
  const is = subType(p);
  if (is('Pending') || text(p.contingentListingType) !== null) return of('PENDING', 'Pending', 'active');
  if (is('ComingSoon')) return of('COMING_SOON', 'Coming soon', 'active');
  if (is('Foreclosure') || is('BankOwned')) return of('FORECLOSURE', 'Foreclosure', 'active');
  if (is('ForAuction')) return of('FOR_SALE', 'Auction', 'active');
  if (is('NewHome')) return of('FOR_SALE', 'New construction', 'active');
  if (is('FSBO')) return of('FOR_SALE', 'For sale by owner', 'active');
  return of('FOR_SALE', 'For sale', 'active');
}

export function statusOf(p: Json): Status {
  // homeStatus on current pages; homeStatusForHDP on legacy ones; keystone/hdpType ("ForSale") as a last word.
  const raw = upperSnake(p.homeStatus ?? p.homeStatusForHDP ?? p.keystoneHomeStatus ?? p.hdpTypeDimension);
  if (raw === null) return { homeStatus: null, statusText: null, listing: 'unknown' };
  if (raw === 'FOR_SALE') return forSale(p);
  return FIXED[raw] ?? of('OTHER', null, 'none');
}
