/**
 * The Content-Security-Policy of a file the gateway serves from disk (an eval report's HTML, an
 * SVG chart): `sandbox` gives it an opaque origin with scripts off, nothing loads from elsewhere,
 * and only inline styles and same-origin images are allowed, so a report that quotes model output
 * cannot act as the panel.
 */
export const servedFileContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; sandbox; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
