// The /status page: the service's own public figures (GET /v1/status's, from the same read) as a table for
// people, in the brand of the other pages, from the server alone (no script, no CDN). Refreshes itself
// every minute.
import type { ServiceStatus, StatusWindow } from '../contract/index.js';
import { brandBar, SERVICE_NAME } from '../site/brand.js';
import { escapeHtml, siteAssets } from '../site/site-assets.js';

const percent = (share: number | null): string => (share === null ? '—' : `${(share * 100).toFixed(1)} %`);
const count = (n: number): string => n.toLocaleString('en-US');
const millis = (ms: number | null): string => (ms === null ? '—' : `${count(ms)} ms`);

/** The table's rows: a label and what each window shows. */
const ROWS: readonly [string, (w: StatusWindow) => string][] = [
  ['Lookups answered', (w) => count(w.lookups)],
  ['Found', (w) => count(w.found)],
  ['Read live by the own collector', (w) => percent(w.served.own_collector)],
  ['Read live by the fallback provider', (w) => percent(w.served.fallback)],
  ['Served from the cache', (w) => percent(w.served.cache)],
  ['Stale (last good record, the live read failed)', (w) => percent(w.served.stale)],
  ['Live reads', (w) => count(w.live_reads.count)],
  ['Live read, median', (w) => millis(w.live_reads.p50_ms)],
  ['Live read, 95th percentile', (w) => millis(w.live_reads.p95_ms)],
  ['Site requests walled (bot wall)', (w) => percent(w.site_attempts.walled_share)],
  ['Records with every section read', (w) => percent(w.records.complete_share)],
  ['Errors', (w) => count(w.errors.total)],
];

function page(body: string): string {
  const { site } = siteAssets();
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="refresh" content="60" />
    <title>Status · ${escapeHtml(SERVICE_NAME)}</title>
    <link rel="icon" type="image/svg+xml" href="${site.icon.url}" />
    <link rel="stylesheet" href="${site.css.url}" />
  </head>
  <body>
    ${brandBar('status')}
    <main class="landing">
      <h1>Service status</h1>
${body}
    </main>
  </body>
</html>
`;
}

export function statusPage(status: ServiceStatus): string {
  const { last_hour: hour, last_24_hours: day, breaker } = status;
  const rows = ROWS.map(
    ([label, value]) =>
      `<tr><th scope="row">${escapeHtml(label)}</th><td data-window="hour">${escapeHtml(value(hour))}</td><td data-window="day">${escapeHtml(value(day))}</td></tr>`,
  );
  const codes = [...new Set([...Object.keys(day.errors.by_code), ...Object.keys(hour.errors.by_code)])].sort();
  for (const code of codes) {
    rows.push(
      `<tr class="error-code"><th scope="row"><code>${escapeHtml(code)}</code></th><td data-window="hour">${count(hour.errors.by_code[code] ?? 0)}</td><td data-window="day">${count(day.errors.by_code[code] ?? 0)}</td></tr>`,
    );
  }
  const breakerClass = breaker.state === 'open' ? 'bad' : breaker.state === 'closed' ? 'ok' : '';
  const instances = `${breaker.instances} instance${breaker.instances === 1 ? '' : 's'}`;
  const breakerText =
    breaker.state === 'open'
      ? `open on ${breaker.open} of ${instances}: their lookups go straight to the fallback provider`
      : breaker.state === 'closed'
        ? `closed (${instances} reporting)`
        : 'no instance runs an own collector';
  return page(`      <p class="lead">The service's own figures for the last hour and the last 24 hours, summed over every
        instance. Counts and shares only: nothing about any customer, key or home. The same figures as JSON:
        <a href="/v1/status"><code>GET /v1/status</code></a>.</p>
      <p>Circuit breaker of the own collector: <span id="breaker" class="status ${breakerClass}" data-state="${breaker.state}">${escapeHtml(breakerText)}</span></p>
      <table id="figures">
        <thead><tr><th></th><th scope="col">Last hour</th><th scope="col">Last 24 hours</th></tr></thead>
        <tbody>
          ${rows.join('\n          ')}
        </tbody>
      </table>
      <p><small>Read at <time id="generated-at" datetime="${escapeHtml(status.generated_at)}">${escapeHtml(status.generated_at)}</time>
        (kept a few seconds; each instance adds its counts every few seconds). Shares of found homes: own collector,
        fallback, cache and stale add up to 100 %. Latency from fixed buckets: an estimate. — means nothing to count yet.</small></p>`);
}

/** The page when the figures cannot be read now (the store is down). */
export function statusUnavailablePage(message: string): string {
  return page(`      <p class="lead">The figures cannot be read right now: ${escapeHtml(message)}</p>`);
}
