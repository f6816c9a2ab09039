// What the backup tests share: a vault with something in every place a backup reads, and a dump of a
// SQLite file's rows, to compare databases by what a query returns rather than by their bytes.
import { Database } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { type TempVault, tempVault } from "../support/card-vault.ts";

/**
 * Cards in kind folders and in folders below them or of their own, a guide in the root, an archived
 * card, both settings files, a non-card file.
 */
export const VAULT_FILES: Record<string, string> = {
  "people/Alice.md": "---\nkeywords: [Alice]\n---\n## who\nThe user's sister; lives in Lyon.\n",
  "people/小林.md": "---\nkeywords: [小林, kobayashi]\n---\n## who\nA colleague from Osaka.\n",
  "events/the Friday deploy.md": "---\nkeywords: [friday deploy]\n---\n## when\nEvery Friday.\n",
  // Cards in folders below a kind's and in folders of a notes app's own, which the vault reads too.
  "people/family/Rin.md": "---\nkeywords: [Rin]\n---\n## who\nA cousin.\n",
  "Characters/Minor/Vell.md": "---\naliases: [Captain Vell]\n---\nA smuggler.\n",
  "guide.md": "---\nkeywords: []\npolicy: manual\n---\nRead a card when its name comes up.\n",
  "_archive/people/Bob.md": "---\nkeywords: [Bob]\n---\n## who\nAn old neighbour.\n",
  "kinds.yaml": "private_sections: [diary]\n",
  "settings.yaml": "user: Ann\n",
  "notes.txt": "not a card: left out of backups\n",
};

export function backupVault(): TempVault {
  return tempVault(VAULT_FILES);
}

/**
 * A database in WAL mode whose rows are still only in its -wal file (no checkpoint), held open: what
 * a server's history.db looks like while it runs. Close it when done.
 */
export function liveWalDatabase(file: string, rows: number): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA wal_autocheckpoint = 0");
  db.run("CREATE TABLE versions (n INTEGER PRIMARY KEY, card TEXT NOT NULL, text TEXT NOT NULL)");
  const put = db.prepare("INSERT INTO versions (card, text) VALUES (?, ?)");
  for (let i = 0; i < rows; i++) put.run(`people/Alice`, `version ${i} ${"x".repeat(i % 50)}`);
  return db;
}

/** Every table's rows (sorted), and the schema version: equal exactly when a query cannot tell them apart. */
export function dumpDatabase(file: string): Record<string, unknown> {
  const db = new Database(file, { readonly: true });
  try {
    const out: Record<string, unknown> = {
      user_version: db.query("PRAGMA user_version").get(),
      schema: db.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all(),
    };
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    for (const { name } of tables) {
      out[name] = db
        .query(`SELECT * FROM "${name}"`)
        .all()
        .map((r) => JSON.stringify(r))
        .sort();
    }
    return out;
  } finally {
    db.close();
  }
}

/** A ustar header block for `name`: `type` "0" a file, "2" a symbolic link, "6" a FIFO. */
export function tarHeader(name: string, size: number, type = "0", link = ""): Uint8Array {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, "utf8");
  h.write("0000644\0", 100, "latin1");
  h.write("0000000\0", 108, "latin1");
  h.write("0000000\0", 116, "latin1");
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  h.write("00000000000\0", 136, "latin1");
  h.write("        ", 148, "latin1");
  h.write(type, 156, "latin1");
  h.write(link, 157, 100, "utf8");
  h.write("ustar\u000000", 257, "latin1");
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return h;
}

/** `bytes` padded to whole 512-byte blocks, as a tar entry's content is. */
export function tarBody(bytes: Uint8Array): Uint8Array {
  return Buffer.concat([bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]);
}
