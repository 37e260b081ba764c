// The browser the own collector speaks as: a versioned impit profile, pinned. The unversioned `chrome`
// gives another fingerprint than any one Chrome; bump this with each impit release that adds a newer
// Chrome, and the committed capture of that Chrome's ClientHello with it (test/fakes/edge/ja4.ts).
export const BROWSER_PROFILE = 'chrome151' as const;
