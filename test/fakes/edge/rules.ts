// How the fake edge judges one request, rule by rule, as the listing site's bot manager is documented
// and reported to (research: listing-site-edge.md §2, §8): the TLS fingerprint must be the browser's the
// User-Agent claims, a Chrome must speak HTTP/2 with Chrome's headers, a visitor keeps the cookies it was
// given, and one exit address gets only a few pages. Each rule is a switch, with no randomness and no
// clock, so a test decides exactly which one a client meets. It cannot model the vendor's scoring or IP
// reputation; it keeps the client honest about what the client controls.
import { randomBytes } from 'node:crypto';
import { KNOWN_JA4 } from './ja4.js';

export interface EdgeRules {
  /** The ClientHello's JA4 must be KNOWN_JA4 of the browser and major version the User-Agent claims. */
  ja4: boolean;
  /** A Chrome User-Agent must come over HTTP/2 (ALPN h2), pseudo-headers in Chrome's order m,a,s,p. */
  h2: boolean;
  /** `sec-ch-ua` carrying the UA's major version, `sec-ch-ua-mobile` and `sec-ch-ua-platform`. */
  clientHints: boolean;
  /** Chrome's navigation headers on a document; a cross-site CORS fetch's on a suggest request. */
  fetchMetadata: boolean;
  /**
   * Documents must carry the `_pxhd` and site cookies this edge set for the exit address. `lenient`:
   * one cookieless document per exit address is let through (any path); `strict`: only if it is `/`.
   */
  cookies: 'strict' | 'lenient' | false;
  /**
   * At most this many documents served per exit address, then the wall. Every document request counts:
   * the home page `/` (a warm-up costs one) and a redirect answer (a zpid-only link costs two).
   */
  pageBudget: number | null;
  /** How a wall is answered: the recorded press-and-hold page with status 403, or with 200. */
  wall: '403' | '200';
  /** Accept the connection and the request, never answer (until the edge closes). */
  tarpit: boolean;
  /** HTTP/2 SETTINGS must be Chrome 151's exactly. Off by default: impit's differ (research §4). */
  settings: boolean;
}

export type RuleName = 'ja4' | 'h2' | 'clientHints' | 'fetchMetadata' | 'cookies' | 'pageBudget' | 'settings';
export type Verdict = 'served' | 'tarpit' | RuleName;
export type RequestKind = 'document' | 'suggest' | 'home';

export const DEFAULT_RULES: EdgeRules = {
  ja4: true,
  h2: true,
  clientHints: true,
  fetchMetadata: true,
  cookies: 'lenient',
  pageBudget: null,
  wall: '403',
  tarpit: false,
  settings: false,
};

/** Chrome 151's SETTINGS as its Akamai fingerprint writes them (MorFix/realtls and other captures). */
export const CHROME_151_SETTINGS = '1:65536;2:0;4:6291456;6:262144';

/** What the edge knows about one request when it judges it. */
export interface Seen {
  kind: RequestKind;
  exit: string;
  ja4: string | null;
  /** '2.0' or '1.1'. */
  httpVersion: string;
  /** Lower-cased names. */
  headers: Record<string, string | undefined>;
  /** The pseudo-headers' order as initials (`m,a,s,p`); null over HTTP/1.1. */
  pseudoOrder: string | null;
  /** The client's SETTINGS in Akamai notation; null over HTTP/1.1. */
  settings: string | null;
}

const CHROME_ACCEPT_PARTS = ['text/html', 'image/apng', 'application/signed-exchange'];

/** The browser key a User-Agent claims, `chrome151`; null for anything but Chrome. */
export function claimedBrowser(ua: string | undefined): { key: string; major: string } | null {
  const major = /\bChrome\/(\d+)\./.exec(ua ?? '')?.[1];
  return major && !/\b(?:Edg|OPR)\//.test(ua ?? '') ? { key: `chrome${major}`, major } : null;
}

function fetchMetadataOk(s: Seen): boolean {
  const h = s.headers;
  if (s.kind === 'suggest') {
    return (
      h['sec-fetch-mode'] === 'cors' &&
      h['sec-fetch-site'] === 'cross-site' &&
      h['sec-fetch-dest'] === 'empty' &&
      !!h.origin
    );
  }
  const accept = h.accept ?? '';
  return (
    CHROME_ACCEPT_PARTS.every((p) => accept.includes(p)) &&
    h['sec-fetch-mode'] === 'navigate' &&
    h['sec-fetch-dest'] === 'document'
  );
}

/** The first header-level rule `s` breaks (everything but cookies and budget, which need state). */
function statelessVerdict(rules: EdgeRules, s: Seen): RuleName | null {
  const browser = claimedBrowser(s.headers['user-agent']);
  // The fake knows only Chrome: any other claim has no known JA4, and the header rules expect Chrome's.
  if (rules.ja4 && (!browser || KNOWN_JA4[browser.key as keyof typeof KNOWN_JA4] !== s.ja4)) return 'ja4';
  if (rules.h2 && browser && (s.httpVersion !== '2.0' || s.pseudoOrder !== 'm,a,s,p')) return 'h2';
  if (rules.settings && s.httpVersion === '2.0' && s.settings !== CHROME_151_SETTINGS) return 'settings';
  const h = s.headers;
  if (
    rules.clientHints &&
    !(h['sec-ch-ua']?.includes(`v="${browser?.major}"`) && h['sec-ch-ua-mobile'] && h['sec-ch-ua-platform'])
  ) {
    return 'clientHints';
  }
  if (rules.fetchMetadata && !fetchMetadataOk(s)) return 'fetchMetadata';
  return null;
}

interface ExitState {
  /** Cookies this edge set for the address: _pxhd value → site cookie value. */
  issued: Map<string, string>;
  cookielessUsed: boolean;
  served: number;
  walled: number;
}

const cookieValue = (header: string | undefined, name: string): string | undefined =>
  header
    ?.split(/;\s*/)
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** The rules plus what they remember per exit address. */
export class Judge {
  private readonly exits = new Map<string, ExitState>();
  constructor(readonly rules: EdgeRules) {}

  private state(exit: string): ExitState {
    let st = this.exits.get(exit);
    if (!st) this.exits.set(exit, (st = { issued: new Map(), cookielessUsed: false, served: 0, walled: 0 }));
    return st;
  }

  /** Judges `s` and records the outcome; `setCookies` goes on the answer (every answer gets them). */
  judge(s: Seen): { verdict: Verdict; setCookies: string[] } {
    const st = this.state(s.exit);
    const px = cookieValue(s.headers.cookie, '_pxhd');
    const site = cookieValue(s.headers.cookie, 'zguid');
    const known = px !== undefined && st.issued.get(px) === site;
    const [pxhd, zguid] = known ? [px, site!] : [randomBytes(12).toString('hex'), randomBytes(8).toString('hex')];
    st.issued.set(pxhd, zguid);
    const setCookies = [`_pxhd=${pxhd}; Path=/; HttpOnly; Max-Age=31536000`, `zguid=${zguid}; Path=/`];
    if (this.rules.tarpit) return { verdict: 'tarpit', setCookies };

    let verdict: Verdict = statelessVerdict(this.rules, s) ?? 'served';
    const isDocument = s.kind !== 'suggest';
    if (verdict === 'served' && isDocument) {
      const budget = this.rules.pageBudget;
      const cookieless = this.rules.cookies && !known;
      if (budget !== null && st.served >= budget) verdict = 'pageBudget';
      else if (cookieless && (st.cookielessUsed || (this.rules.cookies === 'strict' && s.kind !== 'home')))
        verdict = 'cookies';
      else if (cookieless) st.cookielessUsed = true;
    }
    if (isDocument) verdict === 'served' ? st.served++ : st.walled++;
    return { verdict, setCookies };
  }

  /** Documents (the home page included) served and walled per exit address. */
  stats(): Record<string, { served: number; walled: number }> {
    return Object.fromEntries([...this.exits].map(([exit, st]) => [exit, { served: st.served, walled: st.walled }]));
  }
}
