// BUILT BY US, NOT CAPTURED. These wrappers put a property object or a building node back into a
// page the way the site embeds it (research §2), so tests and the local replay can run the page
// reader end to end on data we only have as JSON (property objects, excerpts). Nothing else of a
// real page (layout, scripts, styles) is imitated.

type Json = Record<string, unknown>;

export interface WrapPropertyOptions {
  /** The query signature the home is cached under; by default one the site uses for its status. */
  cacheKey?: string;
  /** Where gdpClientCache sits: props.pageProps.componentProps (usual) or props.pageProps (some 2023 builds). */
  placement?: 'componentProps' | 'pageProps';
  /** `full`: __NEXT_DATA__ + gdpClientCache; `legacy`: hdpApolloPreloadedData + apiCache (before ~2022). */
  generation?: 'full' | 'legacy';
  /** More cache entries beside the home's, as real caches hold (e.g. a `VoyagerQuery{…}` entry). */
  otherCacheEntries?: Json;
  /** Markup added to <head> (title, canonical link, meta tags, JSON-LD). */
  head?: string;
}

/** JSON safe inside a <script>: `<` escaped as Next.js does, so `</script>` cannot end the block. */
const scriptJson = (v: unknown): string =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const MARK = '<!-- Built by src/replay/wrap.ts (portal-lookup), not captured from the listing site. -->';

const page = (head: string, body: string): string =>
  `<!DOCTYPE html>\n${MARK}\n<html lang="en"><head><meta charset="utf-8"/>${head}</head><body><div id="__next"></div>\n${body}\n</body></html>\n`;

function defaultCacheKey(property: Json, generation: 'full' | 'legacy'): string {
  const zpid = Number.isFinite(Number(property.zpid)) ? Number(property.zpid) : null;
  if (generation === 'legacy') return `VariantQuery{"zpid":${zpid},"altId":null}`;
  switch (property.homeStatus) {
    case 'FOR_SALE':
      return `ForSaleShopperPlatformFullRenderQuery{"zpid":${zpid},"platform":"DESKTOP_WEB","formType":"OPAQUE","contactFormRenderParameter":{"zpid":${zpid},"platform":"desktop","isDoubleScroll":true},"skipCFRD":false,"ompPlatform":"web"}`;
    case 'FOR_RENT':
      return `ForRentShopperPlatformFullRenderQuery{"zpid":${zpid},"altId":null,"deviceType":"WEB_DESKTOP","shouldFetchVoyagerOmnibarUserPreferences":false}`;
    default:
      return `NotForSaleShopperPlatformFullRenderQuery{"zpid":${zpid}}`;
  }
}

/** A home page embedding `property`; the cache is a JSON string inside the page's JSON, as on the site. */
export function wrapPropertyPage(property: Json, opts: WrapPropertyOptions = {}): string {
  const generation = opts.generation ?? 'full';
  const cache = {
    ...opts.otherCacheEntries,
    [opts.cacheKey ?? defaultCacheKey(property, generation)]: { property, viewer: null },
  };
  const zpid = property.zpid === undefined ? null : String(property.zpid);
  const head = opts.head ?? '';
  if (generation === 'legacy') {
    const apollo = { zpid: zpid === null ? null : Number(zpid), apiCache: JSON.stringify(cache) };
    return page(head, `<script id="hdpApolloPreloadedData" type="application/json">${scriptJson(apollo)}</script>`);
  }
  const gdpClientCache = JSON.stringify(cache);
  const componentProps = { zpid, isMobile: false, ...(opts.placement === 'pageProps' ? {} : { gdpClientCache }) };
  const pageProps = { componentProps, ...(opts.placement === 'pageProps' ? { gdpClientCache } : {}) };
  const nextData = {
    props: { pageProps },
    page: '/render/[...urlPath]',
    query: { zpid, fullPage: 'true', originalReqUrlPath: property.hdpUrl ?? null },
    buildId: 'replay-wrapper',
  };
  return page(head, `<script id="__NEXT_DATA__" type="application/json">${scriptJson(nextData)}</script>`);
}

/**
 * A building page embedding `building` at componentProps.initialReduxState.gdp.building (plain JSON
 * there, not a string). `pageContext` is an excerpt's: its title, canonical link and query are kept.
 */
export function wrapBuildingPage(building: Json, pageContext: Json = {}): string {
  const title = typeof pageContext.title === 'string' ? `<title>${escapeHtml(pageContext.title)}</title>` : '';
  const canonical =
    typeof pageContext.canonical === 'string'
      ? `<link rel="canonical" href="${escapeHtml(pageContext.canonical)}"/>`
      : '';
  const query = pageContext['componentProps.query'] ?? {};
  const nextData = {
    props: { pageProps: { componentProps: { query, initialReduxState: { gdp: { building } } } } },
    page: '/render/[...urlPath]',
    query,
    buildId: 'replay-wrapper',
  };
  return page(title + canonical, `<script id="__NEXT_DATA__" type="application/json">${scriptJson(nextData)}</script>`);
}
