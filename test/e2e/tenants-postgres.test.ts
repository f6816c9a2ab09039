/**
 * Tenants whose state is one Postgres database (docs/DEPLOYMENT.md: `gateway --tenants FILE --store
 * postgres://…`): each tenant's conversations live in a space of its own named after it, so a
 * conversation id two tenants both use is two conversations; and the process holds one pool of
 * connections for all of them, so 200 tenants cost the server no more connections than one does
 * (Postgres refuses clients past its `max_connections`, 100 by default).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { tokenHash } from "../../src/tenants/index.ts";
import { ensureBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type Postgres, startPostgres } from "../support/postgres.ts";
import { firstJsonLine } from "./_writers.ts";

const pg = await startPostgres("tenants on Postgres");
const TENANTS = 200;
const token = (i: number) => `tenant-${i}-token-0123456789`;

let home: string;
let upstream: FakeUpstream;
let gateway: ReturnType<typeof Bun.spawn>;
let url = "";

beforeAll(async () => {
  if (!pg) return;
  home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tenants-pg-"));
  const lines = ["tenants:"];
  for (let i = 0; i < TENANTS; i++) {
    const people = path.join(home, `t${i}`, "people");
    fs.mkdirSync(people, { recursive: true });
    fs.writeFileSync(path.join(people, "Mother.md"), `---\nkeywords: [mother]\n---\nSECRET-OF-${i}.\n`);
    lines.push(`  t${i}:`, `    token_sha256: ${tokenHash(token(i))}`);
  }
  fs.writeFileSync(path.join(home, "tenants.yaml"), `${lines.join("\n")}\n`);
  upstream = startFakeUpstream();
  const bin = await ensureBinary();
  gateway = Bun.spawn(
    [
      bin,
      "gateway",
      "--upstream",
      upstream.url,
      "--tenants",
      path.join(home, "tenants.yaml"),
      "--store",
      (pg as Postgres).url,
      "--port",
      "0",
      "--json",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: home } },
  );
  url = await firstJsonLine(gateway, "gateway");
}, 120_000);

afterAll(async () => {
  if (!pg) return;
  gateway?.kill();
  await gateway?.exited;
  await upstream?.close();
  await pg.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

async function chat(i: number, line: string, conversation = "the-same-id"): Promise<string> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-lorecards-token": token(i),
      "x-lorecards-conversation": conversation,
    },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: line }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return upstream.received.at(-1)!.body;
}

describe.skipIf(!pg)("tenants on one Postgres", () => {
  test("every tenant's turn is kept in its own space, the same conversation id in each", async () => {
    for (let i = 0; i < TENANTS; i++) expect(await chat(i, "How is my mother?")).toContain(`SECRET-OF-${i}.`);
    const spaces = await pg!.psql("SELECT count(DISTINCT space) FROM lorecards.conversations");
    expect(Number(spaces.trim())).toBe(TENANTS);
  }, 120_000);

  test("a second turn replays each tenant's own block, never another's", async () => {
    const body = await chat(7, "And my mother again?");
    expect(body).toContain("SECRET-OF-7.");
    expect(body).not.toMatch(/SECRET-OF-(?!7\.)/);
  });

  test("200 tenants hold one pool of connections, not one each", async () => {
    const held = await pg!.psql(
      "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name = 'lorecards'",
    );
    expect(Number(held.trim())).toBeLessThanOrEqual(10);
  });
});
