// The brand every page shares (the landing page, /docs, /status, GraphiQL's header, /llms.txt): the service's name,
// the links of its header, and the header itself.
import { escapeHtml } from './site-assets.js';

export const SERVICE_NAME = 'Property lookup API';

/** The pages a visitor can go to, in the header of each page and on the landing page. */
export const LINKS = [
  {
    href: '/docs',
    label: 'REST docs',
    what: 'every operation with request and response examples; try it with your key',
  },
  { href: '/openapi.json', label: 'OpenAPI document', what: 'OpenAPI 3.1, for code generators and agents' },
  { href: '/graphql', label: 'GraphQL', what: 'the same lookups over GraphQL; GraphiQL in a browser' },
  { href: '/llms.txt', label: 'llms.txt', what: 'this guide as plain text, for language-model agents' },
  {
    href: '/status',
    label: 'Status',
    what: "the service's own figures for the last hour and 24 hours, across its instances",
  },
] as const;

export function brandBar(current: 'home' | 'docs' | 'status'): string {
  const nav = LINKS.map(
    (l) => `<a href="${l.href}"${l.href === `/${current}` ? ' aria-current="page"' : ''}>${escapeHtml(l.label)}</a>`,
  ).join('');
  return `<header class="brand-bar">
      <a class="logo" href="/"${current === 'home' ? ' aria-current="page"' : ''}><span class="logo-mark" aria-hidden="true">⌂</span>${escapeHtml(SERVICE_NAME)}</a>
      <nav>${nav}</nav>
    </header>`;
}
