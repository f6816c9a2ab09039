/**
 * A card's version, one meaning for every surface: the hash of its rendered text, the bytes the model
 * read (an edit that changes nothing the model sees, such as a private section, changes nothing
 * here). Recall gives each chosen card its version; the gateway's replay records and the hook's
 * ledger keep it as they record what went in; `resend` (stages/select.ts) compares it with the text
 * of now to send an edited card again.
 */

const PREFIX = "sha256:";

export function cardVersion(text: string): string {
  return `${PREFIX}${Bun.CryptoHasher.hash("sha256", text, "hex").slice(0, 16)}`;
}

/**
 * What a conversation last sent of each card, from its records (oldest first, later ones win): id →
 * version. Rows written before versions were hashes (a file's `mtime:size`) say nothing about the text
 * and are left out, so an upgrade does not send every card in context again.
 */
export function sentVersions(records: Iterable<{ id: string; version: string }>): Map<string, string> {
  const sent = new Map<string, string>();
  for (const r of records) if (r.version.startsWith(PREFIX)) sent.set(r.id, r.version);
  return sent;
}
