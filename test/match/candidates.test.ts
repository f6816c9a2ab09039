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

  // Chinese: names and places read off the shape of ICU's word segmentation (_han-candidates.ts).
  test.each([
    ["a surname and a given name of two characters", "我在车站见到了王小明。", ["王小明"], []],
    ["a surname and a given name of one character", "昨天李华去了图书馆。", ["李华"], []],
    ["a two-character surname", "诸葛亮和司马懿在见面。", ["诸葛亮", "司马懿"], []],
    ["a three-character name the dictionary knows", "还记得林黛玉吗？", ["林黛玉"], []],
    ["a word ending in a place character", "我住在上海市。", [], ["上海市"]],
    ["a place character after a two-character word", "我们去长安街吃饭。", [], ["长安街"]],
    ["what stands before a place word", "北京大学和外滩公园都很美。", [], ["北京大学", "外滩公园"]],
    ["ordinary words that open with a surname character are not names", "周末马上就到，我很高兴。", [], []],
    ["grammar after a surname is no given name", "张在家。", [], []],
    ["mixed with English", "我在车站碰到了Margaret Thornton和王小明。", ["Margaret Thornton", "王小明"], []],
  ])("Chinese: %s", async (_name, sentence, names, places) => {
    const c = await findCandidates(sentence, none);
    expect(c.names).toEqual(names);
    expect(c.places).toEqual(places);
  });

  test("a Chinese name some card covers is not offered", async () => {
    const covered = (f: string) => f === fold("王小明");
    expect((await findCandidates("我见到了王小明和张伟。", { ...none, covered })).names).toEqual(["张伟"]);
  });
});
