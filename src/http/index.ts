/**
 * Small web helpers shared by every HTTP surface (the gateway, the web UI and its API): the
 * `{error, detail}` envelope, a timing-safe token check, loopback detection and `listen()` around
 * `Bun.serve`. Nothing here knows about cards, conversations or upstreams.
 */

export { errorEnvelope, errorResponse, loreErrorResponse } from "./envelope.ts";
export { isLoopbackHost, splitHost } from "./host.ts";
export { type Listener, type ListenOptions, listen } from "./listen.ts";
export { safeEqual, tokenMatches } from "./token.ts";
