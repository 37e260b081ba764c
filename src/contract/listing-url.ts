// Which links are property links on the listing site (spec 4.1 `url`).

/** Hosts of the listing site whose links are accepted. */
export const LISTING_SITE_HOSTS = ['www.zillow.com', 'zillow.com'] as const;
export const URL_MAX = 500;

export type ListingLink =
  | { ok: true; kind: 'home'; zpid: string; path: string }
  | { ok: true; kind: 'building'; buildingKey: string; path: string }
  | { ok: false; reason: string };

const HOME_PATH = /\/(\d{1,12})_zpid\/?$/;
// /apartments/<city-st>/<slug>/<key>/ and the older /b/<slug>-<key>/ building pages.
const BUILDING_PATH = /^\/(?:apartments\/[^/]+\/[^/]+\/([A-Za-z0-9]{4,8})|b\/[^/]*?-([A-Za-z0-9]{4,8}))\/?$/;

/** Checks a link and returns what it points at; `path` is what is requested from the site (path + query). */
export function checkListingUrl(input: string): ListingLink {
  if (input.length > URL_MAX) return { ok: false, reason: `url must be at most ${URL_MAX} characters` };
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    return { ok: false, reason: 'url is not an absolute link' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { ok: false, reason: 'url must be http or https' };
  if (!(LISTING_SITE_HOSTS as readonly string[]).includes(u.hostname.toLowerCase())) {
    return { ok: false, reason: 'url is not a link on the listing site' };
  }
  const pathname = u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`;
  const path = pathname + u.search;
  const home = HOME_PATH.exec(pathname);
  if (home && /^\/(homedetails|community|b)\//.test(pathname))
    return { ok: true, kind: 'home', zpid: canonicalZpid(home[1]!), path };
  const building = BUILDING_PATH.exec(pathname);
  if (building) return { ok: true, kind: 'building', buildingKey: (building[1] ?? building[2])!, path };
  return {
    ok: false,
    reason:
      'url is not a property link: expected a home-details link ending in <zpid>_zpid/ or an apartment-building link',
  };
}

/** One spelling per home: `007` and `7` name the same zpid. */
export const canonicalZpid = (digits: string): string => digits.replace(/^0+(?=\d)/, '');

/** Links handed to clients always point at the public site, whatever origin the service reads from. */
export const publicLink = (path: string): string => `https://${LISTING_SITE_HOSTS[0]}${path}`;

/** The home-details path the site serves for a zpid (it redirects to the slugged page). */
export const homePathForZpid = (zpid: string): string => `/homedetails/${zpid}_zpid/`;
