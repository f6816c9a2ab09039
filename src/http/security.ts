/**
 * The security headers of the web editor, on every response it sends (the page, its scripts, the API,
 * errors). The page's `<meta>` Content-Security-Policy cannot say `frame-ancestors` (CSP3 §6.4.2: it is
 * ignored in a meta tag), so only a header keeps other sites from framing the editor and tricking clicks
 * out of it; `X-Frame-Options` says the same to older browsers. `nosniff` stops a browser from running
 * a card's JSON or text as script, and `no-referrer` keeps the `?token=` link out of any Referer.
 */

/** The headers for a page whose own policy is `csp` (the meta tag's), with framing forbidden. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    "content-security-policy": `${csp.trim().replace(/;\s*$/, "")}; frame-ancestors 'none'`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

/** `res` with `headers` set (a copy when its headers cannot be changed). */
export function withHeaders(res: Response, headers: Record<string, string>): Response {
  let out = res;
  try {
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  } catch {
    out = new Response(res.body, res);
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  }
  return out;
}
