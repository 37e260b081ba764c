// A home's property object (from a page's cache, or a provider item with the site's own field
// names) → the contract record. Every field's source and fallbacks are in docs/mapping.md; the
// order of the `??` chains below is that table's order.
import type { PortalProperty } from '../../contract/index.js';
// Value imports name their modules: page workers load only these, not the whole contract or address parser.
import { splitUnit, unitLabel } from '../../address/units.js';
import { homePathForZpid, publicLink } from '../../contract/listing-url.js';
import type { PageExtras } from '../page/extras.js';
import { isListingEvent, isSaleEvent, priceEvents, schools, taxEvents } from './history.js';
import { isMapImage, mapImagesOnly, photoUrls } from './photos.js';
import { statusOf } from './status.js';
import {
  areaSqft,
  areaSqftFromText,
  count,
  first,
  isObject,
  isoDate,
  list,
  monthlyFee,
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

export type MappedProperty = Omit<PortalProperty, 'raw'>;

const PROPERTY_PHOTO_ARRAYS = ['originalPhotos', 'responsivePhotos', 'photos'] as const;

/** A value computed on first use: the extras are only read when a field falls back to them. */
function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** What the page says besides the property object: JSON-LD, meta tags, title, canonical link. */
function secondarySources(extras: PageExtras | null) {
  const typed = (t: string): Json => (extras?.jsonLd ?? []).find((o) => [o['@type']].flat().includes(t)) ?? {};
  const listing = once(() => typed('RealEstateListing'));
  const offer = once((): Json => {
    const offers = listing().offers;
    return (Array.isArray(offers) ? offers.find(isObject) : isObject(offers) ? offers : undefined) ?? {};
  });
  const item = once(() => obj(offer(), 'itemOffered'));
  const meta = (key: string) => text(extras?.meta[key]);
  return {
    listing,
    offer,
    item,
    address: once(() => obj(item(), 'address')),
    geo: once(() => obj(item(), 'geo')),
    meta,
    /** The county the breadcrumb trail names ("Fulton County"). */
    county: once(() => {
      const breadcrumbs = list(typed('BreadcrumbList'), 'itemListElement').map(
        (e) => text(obj(e, 'item').name) ?? text(e.name),
      );
      return breadcrumbs.find((n) => n !== null && /\s(?:County|Parish|Borough)$/.test(n)) ?? null;
    }),
    canonical: () => text(extras?.canonical) ?? meta('og:url'),
    /** A pattern's first group in the meta description, else in the title ("MLS #7477717", "built in 1964"). */
    find(pattern: RegExp): string | null {
      for (const source of [meta('description'), extras?.title ?? null]) {
        const m = source === null ? null : pattern.exec(source);
        if (m) return m[1]!;
      }
      return null;
    },
  };
}

// JSON-LD residence types the site uses, in the site's homeType enum.
const LD_HOME_TYPES: Record<string, string> = { SingleFamilyResidence: 'SINGLE_FAMILY', Apartment: 'APARTMENT' };

/** The text of one element of a `listedBy` block ({id: LISTING_AGENT|BROKER, elements: [{id: NAME|PHONE|LICENSE, text}]}). */
function listedBy(p: Json, who: string, what: string): string | null {
  const block = list(p, 'listedBy').find((b) => b.id === who);
  return text(list(block, 'elements').find((e) => e.id === what)?.text);
}

// Amounts under $10 are the site's "not yet assessed" placeholder.
const taxAmount = (v: unknown): number | null => {
  const n = positive(v);
  return n !== null && n >= 10 ? n : null;
};

export function mapProperty(property: Json, extras: PageExtras | null, opts: { scrapedAt: string }): MappedProperty {
  const p = property;
  const rf = obj(p, 'resoFacts');
  const ai = obj(p, 'attributionInfo');
  const addr = obj(p, 'address');
  const page = secondarySources(extras);
  const { homeStatus, statusText, listing } = statusOf(p);

  const hdpUrl = siteUrl(p.hdpUrl) ?? siteUrl(p.detailUrl) ?? page.canonical();
  const zpid = text(p.zpid) ?? (hdpUrl ? (/\/(\d+)_zpid/.exec(hdpUrl)?.[1] ?? null) : null);
  const streetAddress =
    text(addr.streetAddress) ??
    text(p.streetAddress) ??
    text(page.address().streetAddress) ??
    page.meta('og:zillow_fb:address');
  const city = text(addr.city) ?? text(p.city) ?? text(page.address().addressLocality);
  const state = text(addr.state) ?? text(p.state) ?? text(page.address().addressRegion);
  const zipcode = text(addr.zipcode) ?? text(p.zipcode) ?? text(page.address().postalCode);

  const homeType = text(p.homeType) ?? upperSnake(rf.homeType) ?? LD_HOME_TYPES[String(page.item()['@type'])] ?? null;
  // On land, 0 bedrooms / 0 sqft is "not applicable", which the page shows as "--".
  const isLot = homeType === 'LOT';
  const bedsOf = isLot ? positive : nonNegative;

  const history = priceEvents(list(p, 'priceHistory'));
  const taxes = taxEvents(list(p, 'taxHistory'));
  const lastSale = history.find(isSaleEvent) ?? null;

  const listPrice = positive(p.price) ?? positive(page.offer().price);
  const price =
    listing === 'sold' ? (positive(p.lastSoldPrice) ?? lastSale?.price ?? null) : listing === 'none' ? null : listPrice;

  const photos = photoUrls(p, PROPERTY_PHOTO_ARRAYS);
  const ownLinks = [text(p.hiResImageLink), text(p.desktopWebHdpImageLink)];
  // og:image only when neither the photos nor the record's own links give an image: reading a meta tag
  // decodes the whole page (about twice the cost of the rest of reading it).
  const ogImage = once(() => page.meta('og:image'));
  const isImage = (u: string | null) => u !== null && !isMapImage(u);
  const imgSrc = photos[0] ?? ownLinks.find(isImage) ?? (isImage(ogImage()) ? ogImage() : null);
  // A home without photos shows a map or street view instead, which the site may count as a photo: it is none.
  const noPhoto =
    imgSrc === null &&
    ([...ownLinks, ogImage()].some((u) => u !== null && isMapImage(u)) || mapImagesOnly(p, PROPERTY_PHOTO_ARRAYS));
  const listed = listing !== 'none';
  const listingAgent = list(ai, 'listingAgents').find((a) => a.associatedAgentType === 'listAgent');

  return {
    zpid,
    detailUrl: hdpUrl ?? (zpid ? publicLink(homePathForZpid(zpid)) : null),
    address: oneLineAddress(streetAddress, city, state, zipcode),
    streetAddress,
    unit: unitLabel(p.unitNumber) ?? unitLabel(p.unit) ?? (streetAddress ? splitUnit(streetAddress).unit : null),
    city,
    state,
    zipcode,
    county: text(p.county) ?? page.county(),
    neighborhood:
      neighborhoodName(obj(p, 'neighborhoodRegion').name) ??
      neighborhoodName(addr.neighborhood) ??
      neighborhoodName(obj(p, 'parentRegion').name),
    latitude: num(p.latitude) ?? num(page.geo().latitude),
    longitude: num(p.longitude) ?? num(page.geo().longitude),
    price,
    currency: price === null ? null : (text(p.currency) ?? text(page.offer().priceCurrency)),
    homeStatus,
    statusText,
    homeType,
    // The page's own extras come last, after `??`: they are read only when the data lacks the field.
    beds:
      first(bedsOf(p.bedrooms), bedsOf(rf.bedrooms)) ??
      bedsOf(page.item().numberOfBedrooms) ??
      bedsOf(page.meta('zillow_fb:beds')),
    baths: first(positive(p.bathrooms), positive(rf.bathrooms)) ?? positive(page.meta('zillow_fb:baths')),
    livingArea:
      first(
        positive(p.livingArea),
        areaSqft(p.livingAreaValue, p.livingAreaUnits ?? p.livingAreaUnitsShort),
        areaSqftFromText(rf.livingArea),
      ) ?? positive(obj(page.item(), 'floorSize').value),
    lotSize: first(positive(p.lotSize), areaSqft(p.lotAreaValue, p.lotAreaUnits), areaSqftFromText(rf.lotSize)),
    yearBuilt: first(year(p.yearBuilt), year(rf.yearBuilt)) ?? year(page.find(/\bbuilt in (\d{4})\b/i)),
    pricePerSquareFoot: price === null ? null : first(positive(p.pricePerSquareFoot), positive(rf.pricePerSquareFoot)),
    estimate: positive(p.zestimate),
    rentEstimate: positive(p.rentZestimate),
    daysOnPortal: listing === 'active' || listing === 'unknown' ? count(p.daysOnZillow) : null,
    datePosted: listed
      ? first(isoDate(p.datePostedString), isoDate(rf.onMarketDate), history.find(isListingEvent)?.date ?? null)
      : null,
    dateSold: first(isoDate(p.dateSoldString), isoDate(p.dateSold), lastSale?.date ?? null),
    lastSoldPrice: positive(p.lastSoldPrice) ?? lastSale?.price ?? null,
    monthlyHoaFee: positive(p.monthlyHoaFee) ?? monthlyFee(rf.associationFee ?? rf.hoaFee, rf.associationFeeFrequency),
    taxAnnualAmount: first(
      taxAmount(rf.taxAnnualAmount),
      taxAmount(p.taxAnnualAmount),
      taxes.find((t) => t.taxPaid !== null)?.taxPaid ?? null,
    ),
    taxAssessedValue: first(
      positive(p.taxAssessedValue),
      positive(rf.taxAssessedValue),
      taxes.find((t) => t.value !== null)?.value ?? null,
    ),
    propertyTaxRate: positive(p.propertyTaxRate),
    pageViewCount: count(p.pageViewCount),
    favoriteCount: count(p.favoriteCount),
    parcelId: text(p.parcelId) ?? text(rf.parcelNumber),
    description: text(p.description) ?? text(page.listing().description),
    imgSrc,
    photos,
    photoCount: noPhoto
      ? 0
      : (count(p.photoCount) ??
        count(page.find(/\bhas (\d+) photos\b/i)) ??
        (photos.length > 0 ? photos.length : null)),
    // A home that is not listed keeps a stale attribution block; the page does not show it.
    brokerName: listed ? (text(ai.brokerName) ?? listedBy(p, 'BROKER', 'NAME') ?? text(p.brokerageName)) : null,
    brokerPhone: listed ? (text(ai.brokerPhoneNumber) ?? listedBy(p, 'BROKER', 'PHONE')) : null,
    agentName: listed
      ? (text(ai.agentName) ??
        listedBy(p, 'LISTING_AGENT', 'NAME') ??
        text(obj(p, 'listingProvider').agentName) ??
        text(obj(p, 'postingContact').name))
      : null,
    agentPhone: listed ? (text(ai.agentPhoneNumber) ?? listedBy(p, 'LISTING_AGENT', 'PHONE')) : null,
    agentLicenseNumber: listed
      ? (text(ai.agentLicenseNumber) ??
        listedBy(p, 'LISTING_AGENT', 'LICENSE') ??
        text(listingAgent?.memberStateLicense) ??
        text(obj(p, 'listingProvider').agentLicenseNumber))
      : null,
    mlsId: listed ? (text(ai.mlsId) ?? text(p.mlsid) ?? page.find(/\bMLS #\s*([A-Za-z0-9-]+)/)) : null,
    mlsName: listed ? text(ai.mlsName) : null,
    priceHistory: history,
    taxHistory: taxes,
    schools: schools(list(p, 'schools').length > 0 ? list(p, 'schools') : list(p, 'assignedSchools')),
    virtualTourUrl: text(p.virtualTourUrl) ?? text(obj(p, 'thirdPartyVirtualTour').externalUrl) ?? text(rf.virtualTour),
    scrapedAt: opts.scrapedAt,
  };
}
