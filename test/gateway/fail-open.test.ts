/**
 * Fail open: whatever breaks on our side, the request reaches the model exactly as the client sent it,
 * and stderr says why. One test per failure path, run for every protocol (each descriptor brings the
 * bodies of its own shape that its adapter does not read).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { statePath } from "../../src/state/index.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { PROTOCOLS, type Protocol } from "../support/protocols.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const last = () => upstream.received[upstream.received.length - 1]!;
/** A chat request of the protocol that names a card of the example vault. */
const chatOf = (p: Protocol, text = "the friday deploy?") =>
  JSON.stringify(p.build({ messages: [{ role: "user", content: text }] }));

async function throughGateway(vault: string, raw: string, route: string, engine = {}) {
  const h = harness(vault, upstream, {}, { engine });
  try {
    const res = await h.sendRaw(route, raw);
    return { res, warnings: h.warnings };
  } finally {
    h.close();
  }
}

describe.each(PROTOCOLS)("fail open, $name", (p) => {
  const chat = chatOf(p);

  test.each([
    ["a vault that does not exist", () => path.join(tempDir(), "missing")],
    [
      "a vault that is a file",
      () => {
        const file = path.join(tempDir(), "vault.txt");
        fs.writeFileSync(file, "not a folder");
        return file;
      },
    ],
  ])("%s: the request is forwarded unchanged with a line on stderr", async (_name, makePath) => {
    const vault = makePath();
    const { res, warnings } = await throughGateway(vault, chat, p.path);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-lorecards-injected")).toBeNull();
    expect(last().body).toBe(chat);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`no vault at ${vault}: chat requests pass through unchanged`);
    removeDir(path.dirname(vault));
  });

  test.each([...p.oddBodies])("an odd body (%s) is forwarded byte for byte", async (_name, raw) => {
    const vault = makeVault();
    const { res, warnings } = await throughGateway(vault, raw, p.path);
    expect(res.status).toBe(200);
    expect(last().body).toBe(raw);
    expect(warnings).toHaveLength(1);
    removeDir(vault);
  });

  test("a corrupt state database is moved aside and rebuilt, and the request still gets its cards", async () => {
    const vault = makeVault();
    fs.mkdirSync(path.join(vault, ".lorecards"), { recursive: true });
    fs.writeFileSync(statePath(vault), "garbage ".repeat(1000));
    const { res, warnings } = await throughGateway(vault, chat, p.path);
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    expect(warnings.join("\n")).toContain("rebuilt empty");
    removeDir(vault);
  });

  test("a state database that cannot be opened at all forwards the request unchanged", async () => {
    const vault = makeVault();
    fs.mkdirSync(statePath(vault), { recursive: true });
    const { res, warnings } = await throughGateway(vault, chat, p.path);
    expect(res.status).toBe(200);
    expect(last().body).toBe(chat);
    expect(warnings[0]).toContain("unchanged");
    removeDir(vault);
  });

  test("a segmentation failure forwards the request unchanged", async () => {
    const vault = makeVault([{ dir: "things", key: "cat", keywords: ["猫"], body: "## what\nThe cat.\n" }]);
    const raw = chatOf(p, "我的猫很可爱");
    const failing = () => Promise.reject(new Error("segmenter exploded"));
    const { res, warnings } = await throughGateway(vault, raw, p.path, { segmenter: failing });
    expect(res.status).toBe(200);
    expect(last().body).toBe(raw);
    expect(warnings[0]).toContain("segmenter exploded");
    removeDir(vault);
  });

  test.each([
    ["gzip-compressed", gzipSync(chat), { "content-encoding": "gzip" } as Record<string, string>],
    [
      "not UTF-8 (a Latin-1 byte)",
      Buffer.concat(
        chat
          .split("friday")
          .map(Buffer.from)
          .flatMap((b, i) => (i ? [Buffer.of(0xe9), b] : [b])),
      ),
      {} as Record<string, string>,
    ],
  ])(
    "a request body that is %s is forwarded byte for byte, headers included",
    async (_name, bytes, headers) => {
      const vault = makeVault();
      const h = harness(vault, upstream);
      try {
        const res = await h.sendRaw(p.path, bytes, headers);
        expect(res.status).toBe(200);
        expect(res.headers.get("x-lorecards-injected")).toBeNull();
        expect(last().body).toBe(new TextDecoder().decode(bytes));
        expect(last().headers["content-encoding"]).toBe(headers["content-encoding"]);
        expect(h.warnings).toHaveLength(1);
      } finally {
        h.close();
        removeDir(vault);
      }
    },
  );
});
