import { describe, expect, test } from "bun:test";
import { findCandidates } from "../../src/match/candidates.ts";
import { fold } from "../../src/match/fold.ts";
import { Matcher } from "../../src/match/matcher.ts";
import { card } from "./_cards.ts";

const none = { covered: () => false, extendsTitle: () => false };

describe("candidate keywords", () => {
  test.each([
    ["a name that opens the sentence", "Seraphina talked about the forest.", ["Seraphina"], []],
    ["a common opening word is not a name", "Went to the market with Bob.", ["Bob"], []],
    ["a run of capitalised words is one name", "I met Margaret Thornton today.", ["Margaret Thornton"], []],
    ["a place after a preposition", "We walked to Lantern Park.", [], ["Lantern Park"]],
    ["a place word at the end", "The Copper Bridge is closed.", [], ["Copper Bridge"]],
    ["weekdays and months are not names", "On Friday in March nothing happened.", [], []],
    ["a word also written in lower case is not a name", "Rain again. The rain never stops.", [], []],
    ["an elided French opening is not a name", "J'ai vu la voisine.", [], []],
    ["a contraction is not a name", "Don't tell Marguerite.", ["Marguerite"], []],
    ["an apostrophe name keeps its capital", "We met O'Brien.", ["O'Brien"], []],
  ])("%s", async (_name, sentence, names, places) => {
    const c = await findCandidates(sentence, none);
    expect(c.names).toEqual(names);
    expect(c.places).toEqual(places);
  });

  test("a phrase some card covers is not offered", async () => {
    const covered = (f: string) => f.includes(fold("Bob"));
    expect((await findCandidates("Went to the market with Bob.", { ...none, covered })).names).toEqual([]);
  });

  test("a word that begins a longer card title is offered as an alias, a title itself is not", async () => {
    const matcher = new Matcher([card("Alexandra Hamilton"), card("Bo")]);
    const ctx = { covered: () => false, extendsTitle: (f: string) => matcher.extendsTitle(f) };
    const c = await findCandidates("Then Alex and Bo called Alexandra.", ctx);
    expect(c.aliases).toEqual(["Alex", "Alexandra"]);
    expect(c.names).toEqual(["Bo"]);
  });

  test("a title of a card set aside in its layer no longer makes an alias", () => {
    const built = new Matcher([card("Alexandra Hamilton")]);
    const layer = { ...built.layers[0]!, hidden: new Set([0]) };
    expect(built.extendsTitle("alex")).toBe(true);
    expect(new Matcher([card("Alexandra Hamilton")], [layer]).extendsTitle("alex")).toBe(false);
  });
});
