// An apartment-building node → the contract record (spec 2.1, apartment-building links).
// zpid, address, photos and schools are the building's; price, beds, baths, livingArea and unit
// come from its lowest-priced unit available on the lookup date, else its lowest-priced unit.
import { unitLabel } from '../../address/units.js';
import { schools } from './history.js';
import { mapImagesOnly, photoUrls } from './photos.js';
import type { MappedProperty } from './property.js';
import {
  count,
  isoDate,
  list,
  neighborhoodName,
  nonNegative,
  num,
  obj,
  oneLineAddress,
  positive,
  siteUrl,
  text,
  upperSnake,
  year,
  type Json,
} from './values.js';

interface Rental {
  unit: string | null;
  price: number;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  /** Move-in date YYYY-MM-DD; null = available now ("0" or no date on the page). */
  availableFrom: string | null;
}

const BUILDING_PHOTO_ARRAYS = ['galleryPhotos', 'signaturePhotos', 'photos'] as const;

function rental(unit: Json, plan: Json): Rental | null {
  // Off-market rows keep a stale price and for-sale rows carry a sale price: neither is a rent.
  const type = text(unit.listingType);
  if (type !== null && type !== 'FOR_RENT') return null;
  // A price of 0 means "call for price" / waitlist.
  const price = positive(unit.price) ?? positive(unit.minPrice);
  if (price === null) return null;
  return {
    unit: unitLabel(unit.unitNumber),
    price,
    beds: nonNegative(unit.beds) ?? nonNegative(plan.beds),
    baths: positive(unit.baths) ?? positive(plan.baths),
    sqft: positive(unit.sqft) ?? positive(plan.sqft),
    availableFrom: isoDate(unit.availableFrom),
  };
}

/**
 * Every unit the building offers for rent, in page order: floor-plan units, then ungrouped units.
 * A floor plan that lists no units stands for one unnamed unit at its lowest price.
 */
function rentals(building: Json): Rental[] {
  const out: Array<Rental | null> = [];
  for (const plan of list(building, 'floorPlans')) {
    const units = list(plan, 'units');
    if (units.length > 0) out.push(...units.map((u) => rental(u, plan)));
    else out.push(rental({ unitNumber: null, price: plan.minPrice, availableFrom: plan.availableFrom }, plan));
  }
  out.push(...list(building, 'ungroupedUnits').map((u) => rental(u, {})));
  return out.filter((r): r is Rental => r !== null);
}

const cheapest = (rs: Rental[]): Rental | null =>
  rs.reduce<Rental | null>((best, r) => (best === null || r.price < best.price ? r : best), null);

/** The unit `price` describes: the cheapest available on `now`'s date (UTC), else the cheapest. */
function chosenRental(units: Rental[], now: Date): Rental | null {
  const today = now.toISOString().slice(0, 10);
  return cheapest(units.filter((r) => r.availableFrom === null || r.availableFrom <= today)) ?? cheapest(units);
}

export function mapBuilding(building: Json, opts: { now: Date; scrapedAt: string }): MappedProperty {
  const b = building;
  const addr = obj(b, 'address');
  const units = rentals(b);
  const unit = chosenRental(units, opts.now);
  const streetAddress = text(addr.streetAddress) ?? text(b.streetAddress);
  const city = text(addr.city) ?? text(b.city);
  const state = text(addr.state) ?? text(b.state);
  const zipcode = text(addr.zipcode) ?? text(b.zipcode);
  const homeTypes = Array.isArray(b.homeTypes) ? b.homeTypes : [];
  const photos = photoUrls(b, BUILDING_PHOTO_ARRAYS);
  const details = obj(b, 'amenitySummary').buildingDetails;
  const builtIn = Array.isArray(details)
    ? details.map((d) => /^built in (\d{4})$/i.exec(String(d))?.[1]).find(Boolean)
    : undefined;

  return {
    zpid: text(b.zpid),
    detailUrl: siteUrl(b.bdpUrl),
    address: oneLineAddress(streetAddress, city, state, zipcode),
    streetAddress,
    unit: unit?.unit ?? null,
    city,
    state,
    zipcode,
    county: text(b.county),
    neighborhood: neighborhoodName(addr.neighborhood) ?? neighborhoodName(b.neighborhood),
    latitude: num(b.latitude),
    longitude: num(b.longitude),
    price: unit?.price ?? null,
    currency: unit ? text(b.currency) : null,
    homeStatus: units.length > 0 ? 'FOR_RENT' : 'OTHER',
    statusText: units.length > 0 ? 'For rent' : null,
    // One home type is the building's; a mixed building ("condo", "apartment", ...) has none.
    homeType: homeTypes.length === 1 ? upperSnake(homeTypes[0]) : null,
    beds: unit?.beds ?? null,
    baths: unit?.baths ?? null,
    livingArea: unit?.sqft ?? null,
    lotSize: null,
    yearBuilt: year(builtIn),
    pricePerSquareFoot: null,
    estimate: null,
    rentEstimate: null,
    daysOnPortal: null,
    datePosted: null,
    dateSold: null,
    lastSoldPrice: null,
    monthlyHoaFee: null,
    taxAnnualAmount: null,
    taxAssessedValue: null,
    propertyTaxRate: null,
    pageViewCount: null,
    favoriteCount: null,
    parcelId: null,
    description: text(b.description),
    imgSrc: photos[0] ?? null,
    photos,
    photoCount: photos.length === 0 && mapImagesOnly(b, BUILDING_PHOTO_ARRAYS) ? 0 : count(b.photoCount),
    // Building pages name a leasing office, not a broker or agent.
    brokerName: null,
    brokerPhone: null,
    agentName: null,
    agentPhone: null,
    agentLicenseNumber: null,
    mlsId: null,
    mlsName: null,
    priceHistory: [],
    taxHistory: [],
    schools: schools(list(b, 'assignedSchools').length > 0 ? list(b, 'assignedSchools') : list(b, 'schools')),
    virtualTourUrl: text(list(b, 'thirdPartyVirtualTours')[0]?.externalUrl),
    scrapedAt: opts.scrapedAt,
  };
}
