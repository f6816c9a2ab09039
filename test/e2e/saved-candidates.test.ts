// What deserves a card, asked of a running editor after saves through its API (the compiled binary):
// a name stops being a candidate while a card covers it, and is one again once no card does, whether
// the card that covered it was archived or saved with other words. A server compiles a saved card in a
// layer of its own and sets its old copy aside; the old copy's words must not keep covering the name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary } from "../support/binary.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { type Editor, startEditor } from "./_writers.ts";

let vault = "";
let editor: Editor;

beforeAll(async () => {
  const bin = await ensureBinary();
  vault = makeVault();
  editor = await startEditor(bin, vault, vault);
});
afterAll(async () => {
  await editor?.kill();
  removeDir(vault);
});

async function candidateNames(text: string): Promise<string[]> {
  const r = await editor.api("POST", "/api/try", { text });
  expect(r.status).toBe(200);
  return ((await r.json()) as { candidates: { names: string[] } }).candidates.names;
}

async function save(title: string, keywords: string[]): Promise<void> {
  const route = `/api/cards/people/${title}`;
  const current = await editor.api("GET", route);
  const body =
    current.status === 404
      ? { kind: "people", title, keywords, fields: { who: "Someone I know." } }
      : { ...((await current.json()) as object), body: undefined, keywords };
  const r = await editor.api(
    current.status === 404 ? "POST" : "PUT",
    current.status === 404 ? "/api/cards" : route,
    body,
  );
  expect(r.status).toBeLessThan(300);
}

// Saves are compiled into layers merged as a binary counter: two cards saved, then a third, leave the
// first two in a layer of their own, where a later save of one of them sets it aside.
describe("candidates after saves through the API", () => {
  test("a name whose card was archived is a candidate again", async () => {
    expect(await candidateNames("Bartholomew came by today")).toContain("Bartholomew");
    for (const name of ["Bartholomew", "Cornelius", "Desmond"]) await save(name, [name]);
    expect(await candidateNames("Bartholomew came by today")).not.toContain("Bartholomew");
    expect((await editor.api("DELETE", "/api/cards/people/Bartholomew")).status).toBe(200);
    expect(await candidateNames("Bartholomew came by today")).toContain("Bartholomew");
    expect(await candidateNames("Cornelius came by today")).not.toContain("Cornelius");
  });

  test("a keyword a saved card no longer has is a candidate again, its new one is not", async () => {
    await save("Quentin", ["Quentin", "Fitzgerald"]);
    await save("Rosalind", ["Rosalind"]);
    await save("Sebastian", ["Sebastian"]);
    expect(await candidateNames("Fitzgerald came by today")).not.toContain("Fitzgerald");
    await save("Quentin", ["Quentin", "Montgomery"]);
    expect(await candidateNames("Fitzgerald and Montgomery came by")).toEqual(["Fitzgerald"]);
    await save("Theodora", ["Theodora"]);
    expect(await candidateNames("Fitzgerald and Montgomery came by")).toEqual(["Fitzgerald"]);
  });

  test("the name of a card there when the server started is a candidate again once it is archived", async () => {
    expect(await candidateNames("Alice came by today")).not.toContain("Alice");
    expect((await editor.api("DELETE", "/api/cards/people/Alice")).status).toBe(200);
    expect(await candidateNames("Alice came by today")).toContain("Alice");
  });
});
