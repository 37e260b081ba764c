// The PerimeterX "Press & Hold" wall. It can arrive as 403 or as 200, so the body decides.
// Every normal page also inlines PerimeterX (`_pxAppId = 'PXHYx10rg3'`, `scripts.perimeterX`),
// and a browser-rendered page can carry an injected `px-captcha-modal` while holding full data,
// so only the wall's own markers count, and a page with listing data is never a wall.
import { hasListingDataBytes } from './bytes.js';

const WALL_TITLE = /<title\b[^>]*>\s*Access to this page has been denied\s*<\/title>/i;
const CAPTCHA_DIV = /\bid\s*=\s*["']?px-captcha["'\s>]/i;
const CAPTCHA_META =
  /<meta\b(?=[^>]*\bname\s*=\s*["']?description\b)(?=[^>]*\bcontent\s*=\s*["']?px-captcha["'\s/>])[^>]*>/i;

/** True when the page carries listing data the reader can use (home cache or building node). */
function hasListingData(html: string): boolean {
  return (
    /<script\b[^>]*\bid\s*=\s*["']?(?:__NEXT_DATA__|hdpApolloPreloadedData)\b/i.test(html) &&
    (html.includes('gdpClientCache') || html.includes('apiCache') || html.includes('initialReduxState'))
  );
}

export function isBotWall(html: string): boolean {
  if (hasListingData(html)) return false;
  return WALL_TITLE.test(html) || CAPTCHA_DIV.test(html) || CAPTCHA_META.test(html);
}

/** isBotWall of a page's bytes; a page with listing data (every normal page) is told without decoding it. */
export function isBotWallBytes(page: Buffer): boolean {
  return !hasListingDataBytes(page) && isBotWall(page.toString('utf8'));
}
