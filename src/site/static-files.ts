// Our own styles and browser scripts for the pages, kept as text here (not files beside the code) so
// they reach dist/ with the build and need no copying. The pages load them as hashed assets (assets.ts):
// no inline scripts, so the pages work under a strict content-security-policy too.

/** The brand: one stylesheet for the landing page and the header of /docs. */
export const SITE_CSS = `
:root { --brand: #0f5e59; --brand-dark: #0a3f3c; --accent: #f2a516; --ink: #1c2526; --muted: #5b6b6d; --paper: #f6f8f7; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--paper); }
a { color: var(--brand); }
.brand-bar { display: flex; align-items: center; gap: 1.5rem; padding: 0.75rem 1.5rem; background: var(--brand-dark); color: #fff; }
.brand-bar a { color: #fff; text-decoration: none; }
.brand-bar nav { display: flex; gap: 1.25rem; margin-left: auto; font-size: 0.95rem; }
.brand-bar nav a:hover { text-decoration: underline; }
.logo { display: flex; align-items: center; gap: 0.5rem; font-weight: 700; font-size: 1.15rem; letter-spacing: 0.01em; }
.logo-mark { display: inline-grid; place-items: center; width: 2rem; height: 2rem; border-radius: 0.45rem; background: var(--accent); color: var(--brand-dark); font-size: 1.1rem; }
main.landing { max-width: 60rem; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
.landing h1 { font-size: 2rem; margin: 0.5rem 0; color: var(--brand-dark); }
.landing .lead { font-size: 1.15rem; color: var(--muted); max-width: 44rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 1rem; margin: 1.5rem 0; }
.card { display: block; padding: 1rem 1.1rem; background: #fff; border: 1px solid #dbe3e1; border-radius: 0.6rem; text-decoration: none; color: var(--ink); }
.card:hover { border-color: var(--brand); }
.card strong { display: block; color: var(--brand); font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #e3e9e7; vertical-align: top; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
pre { background: #0f1c1c; color: #e6f2ef; padding: 1rem; border-radius: 0.5rem; overflow: auto; max-height: 28rem; }
form.try { display: grid; grid-template-columns: 10rem 1fr; gap: 0.5rem 1rem; align-items: center; background: #fff; padding: 1rem; border: 1px solid #dbe3e1; border-radius: 0.6rem; }
form.try input, form.try select { font: inherit; padding: 0.35rem 0.5rem; border: 1px solid #b9c6c3; border-radius: 0.35rem; }
form.try button { grid-column: 2; justify-self: start; font: inherit; padding: 0.45rem 1.2rem; border: 0; border-radius: 0.4rem; background: var(--brand); color: #fff; cursor: pointer; }
.status { display: inline-block; padding: 0.1rem 0.6rem; border-radius: 1rem; background: #dbe3e1; font-size: 0.9rem; }
.status.ok { background: #cdeede; color: #0b5132; }
.status.bad { background: #f8d7d3; color: #7a1d12; }
/* Swagger UI below our bar: its own top bar (a URL box) is not used. */
body.docs .swagger-ui .info .title { color: var(--brand-dark); }
body.docs .swagger-ui .btn.authorize { color: var(--brand); border-color: var(--brand); }
body.docs .swagger-ui .btn.authorize svg { fill: var(--brand); }
body.docs .swagger-ui .opblock.opblock-get .opblock-summary-method { background: var(--brand); }
`;

/** The logo mark as the pages' icon (a browser asks for /favicon.ico without one). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#f2a516"/><path d="M6 16 16 7l10 9h-3v9h-5v-6h-4v6H9v-9z" fill="#0a3f3c"/></svg>`;

/** The landing page: shows readiness and runs a lookup from its form. */
export const LANDING_JS = `
(function () {
  var status = document.getElementById('service-status');
  fetch('/readyz', { headers: { accept: 'application/json' } })
    .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
    .then(function (r) {
      status.textContent = r.ok ? String(r.body.status) : 'not ready: ' + ((r.body.error && r.body.error.code) || r.body.status || 'unknown');
      status.className = 'status ' + (r.ok ? 'ok' : 'bad');
    })
    .catch(function () { status.textContent = 'unreachable'; status.className = 'status bad'; });

  var form = document.getElementById('try-form');
  var out = document.getElementById('try-output');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var data = new FormData(form);
    var query = new URLSearchParams();
    query.set(String(data.get('by')), String(data.get('value')).trim());
    out.textContent = 'Looking up…';
    fetch('/v1/portal/property?' + query.toString(), { headers: { 'x-api-key': String(data.get('key')).trim() } })
      .then(function (r) {
        return r.text().then(function (text) {
          var shown = text;
          try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON: shown as sent */ }
          out.textContent = 'HTTP ' + r.status + (r.headers.get('x-cache') ? ' · x-cache: ' + r.headers.get('x-cache') : '') + '\\n' + shown;
          out.setAttribute('data-status', String(r.status));
        });
      })
      .catch(function (e) { out.textContent = 'Request failed: ' + e; });
  });
})();
`;

/**
 * /docs: Swagger UI on our document, try-it-out on. The key is kept only while the page is open:
 * persistAuthorization would write it to localStorage in plain text, readable by any script of the origin.
 * The operations' references are resolved together, once, when the page is first idle: Swagger UI
 * otherwise resolves an operation when it is first opened, each time over the whole document (OpenAPI 3.1,
 * 175 KB, growing with every operation resolved into it). In headless Chromium here, opening an operation
 * took about 0.8 s of CPU (0.5 of it resolving), now 0.3; resolving all 13 at once costs about 1.2 s.
 */
export const DOCS_JS = `
(function () {
  var config = JSON.parse(document.getElementById('docs-config').textContent);
  var ui = window.ui = SwaggerUIBundle({
    url: config.openapiUrl,
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    // Never send the document to an outside validator (offline, private).
    validatorUrl: null,
    // Once the operations are drawn and the page is idle (requestIdleCallback; Safari has none).
    onComplete: function () {
      (window.requestIdleCallback || setTimeout)(function () { ui.specActions.requestResolvedSubtree(['paths']); });
    },
  });
})();
`;

/** GraphiQL: Yoga's bundle, its Monaco workers loaded from our asset URLs instead of inline blobs. */
export const GRAPHIQL_JS = `
(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return config.workers[label]; },
  };
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.options);
})();
`;
