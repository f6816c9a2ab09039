/**
 * Small web helpers shared by every HTTP surface (the gateway, the web UI and its API, MCP over HTTP):
 * the `{error, detail}` envelope, the guards every surface puts in front of its handler (Host,
 * cross-site, token with a throttle for bad ones, the write header; guard.ts), a timing-safe token
 * check, loopback detection, the editor's security headers and `listen()` around `Bun.serve`
 * (which refuses requests without a Host). Nothing here knows about cards, conversations or upstreams.
 */

export { errorEnvelope, errorResponse, loreErrorResponse } from "./envelope.ts";
export { type GuardRules, guardRequest, isPreflight, type TokenHeader } from "./guard.ts";
export { isLoopbackHost, refuseHostless, splitHost } from "./host.ts";
export { type Handler, type Listener, type ListenOptions, listen } from "./listen.ts";
export { securityHeaders, withHeaders } from "./security.ts";
export {
  addressKey,
  clientAddress,
  createThrottle,
  type Peer,
  THROTTLE_DEFAULTS,
  type Throttle,
  type ThrottleOptions,
} from "./throttle.ts";
export { safeEqual } from "./token.ts";
