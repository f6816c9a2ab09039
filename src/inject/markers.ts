/**
 * Markers are HTML comments (`<!-- lorecards:TAG -->` … `<!-- /lorecards:TAG -->`), invisible in
 * rendered Markdown. TAG is derived from the vault's secret rather than being the secret itself, and is
 * the same on every start, so the blocks in an old history are still recognised.
 */

export interface Markers {
  /** The derived tag, 12 hex characters. */
  tag: string;
  open: string;
  close: string;
}

export function markersFromSecret(secret: string): Markers {
  const tag = new Bun.CryptoHasher("sha256").update(`lorecards-marker:${secret}`).digest("hex").slice(0, 12);
  return { tag, open: `<!-- lorecards:${tag} -->`, close: `<!-- /lorecards:${tag} -->` };
}
