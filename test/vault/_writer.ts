/**
 * A separate writer process for the concurrency tests: appends `count` lines to one card, either
 * under the vault lock (`lock`) or with the optimistic mtime+size precondition (`optimistic`).
 * Usage: bun test/vault/_writer.ts <vault> <id> <count> <lock|optimistic>
 */
import fs from "node:fs";
import { isLoreError } from "../../src/errors.ts";
import { atomicWrite, cardPath, openVault, readCard, updateCard, withLock } from "../../src/vault/index.ts";

const [root, id, countText, mode] = process.argv.slice(2);
const vault = openVault(root!);
const count = Number(countText);
const file = cardPath(vault, "thing", "counter");
for (let i = 0; i < count; i++) {
  const line = `${id}-${i}\n`;
  if (mode === "lock") {
    await withLock(vault, () => atomicWrite(file, fs.readFileSync(file, "utf8") + line), {
      timeoutMs: 20_000,
    });
    continue;
  }
  for (;;) {
    const card = readCard(vault, "thing", "counter");
    try {
      await updateCard(
        vault,
        "thing",
        "counter",
        { body: card.body + line },
        { mtime: card.mtime, size: card.size, timeoutMs: 20_000 },
      );
      break;
    } catch (err) {
      if (!isLoreError(err) || err.code !== "conflict") throw err;
    }
  }
}
