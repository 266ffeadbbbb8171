import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The pages' security headers: a strict CSP (no inline script; `ownScripts` allows our copy-button
 * script), no framing, no referrer, HSTS behind https.
 */
export function securityHeaders(https: boolean, options: { ownScripts?: boolean } = {}): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: options.ownScripts ? ["'self'"] : ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        // No form-action: Chromium applies it to the redirect that follows a consent POST, and that goes to the client.
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    strictTransportSecurity: https ? { maxAge: 31536000 } : false,
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: false, // discovery and tokens are fetched cross-origin by browser-based clients
  });
}

/** The headers for the scheme of the public base URL, known only once the server listens (both built once: helmet parses its policy when called). */
export function securityHeadersFor(baseUrl: () => string, options: { ownScripts?: boolean } = {}): RequestHandler {
  const built = { http: securityHeaders(false, options), https: securityHeaders(true, options) };
  return (req: Request, res: Response, next: NextFunction) => built[baseUrl().startsWith('https://') ? 'https' : 'http'](req, res, next);
}
