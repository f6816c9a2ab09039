/**
 * Pure text around injected cards: the markers that frame a block, wrapping a recall context in them,
 * and stripping our own blocks back out before the next scan (so a card never keeps itself alive by
 * quoting its own keywords). Markers derive from a per-vault secret, so blocks written before a restart
 * are still recognised as ours. This module never reads the secret from disk (see `state/`), never
 * decides which cards go in, and never touches anything that is not a well-formed block of ours.
 */

export { findBlocks, hasBlock, stripBlocks, wrapBlock } from "./block.ts";
export { type Markers, markersFromSecret } from "./markers.ts";
