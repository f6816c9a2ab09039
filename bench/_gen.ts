/**
 * Deterministic generator of realistic cards for benchmarks: people, places, events, things and
 * slang in English and Chinese, with keywords, aliases, sections and the odd secondary condition.
 * The same seed always gives the same vault, so numbers from two runs compare.
 */

const FIRST =
  "Alice Bob Carmen Dmitri Elena Farid Grace Hiro Ines Jonas Keiko Liam Maya Nadia Oscar Priya Quinn Rosa Sami Tara Umar Vera Wen Xavier Yusuf Zoe".split(
    " ",
  );
const LAST =
  "Abbott Brennan Castillo Duarte Eriksen Fontaine Garcia Halloran Ivanova Jensen Kowalski Lindqvist Moreau Nakamura Okafor Petrov Quintero Rahman Sorensen Takahashi Ueda Valdez Whitaker Xu Yamada Zielinski".split(
    " ",
  );
const PLACE = "Harbor Lantern Willow Granite Amber Juniper Meadow Copper Falcon Maple Cedar Silver".split(
  " ",
);
const PLACE_TYPE = "Cafe Park Station Market Bridge Library Garden Bakery Pier Square".split(" ");
const THING = "notebook umbrella bicycle camera guitar teapot lamp scarf compass typewriter".split(" ");
const COLOR = "blue red green yellow black white old tiny brass velvet".split(" ");
const EVENT = "deploy picnic concert move wedding hike exam trip reunion launch".split(" ");
const DAY = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(" ");
const ZH_SUR = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高".split("");
const ZH_GIVEN = "明芳伟娜静磊洋艳勇军杰娟涛超秀霞平刚桂英华".split("");
const ZH_PLACE = "北京 上海 杭州 成都 西湖 南京 苏州 青岛 厦门 大理".split(" ");

export interface GenCard {
  kind: "people" | "event" | "place" | "thing" | "slang";
  dir: string;
  key: string;
  title: string;
  keywords: string[];
  aliases: string[];
  body: string;
}

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length]!;
}

export function generateCards(count: number, chineseShare = 0.2): GenCard[] {
  const out: GenCard[] = [];
  for (let i = 0; i < count; i++) {
    const zh = (i * 7919) % 100 < chineseShare * 100;
    const slot = i % 5;
    const n = Math.floor(i / 5);
    if (slot === 0 || slot === 1) {
      if (zh) {
        const title = `${pick(ZH_SUR, n)}${pick(ZH_GIVEN, n * 3 + 1)}${pick(ZH_GIVEN, n * 7 + 2)}${n}`;
        out.push(
          card(
            "people",
            "people",
            title,
            [title],
            [`小${pick(ZH_GIVEN, n)}${n}`],
            `## who\n${title}是我的同事，住在${pick(ZH_PLACE, n)}。\n\n## recent\n上周一起去了${pick(ZH_PLACE, n + 3)}。\n`,
          ),
        );
      } else {
        const title = `${pick(FIRST, n)} ${pick(LAST, n * 3 + slot)}${n > 25 ? ` ${n}` : ""}`;
        out.push(
          card(
            "people",
            "people",
            title,
            [title],
            [`${pick(FIRST, n)}${n}`],
            `## who\n${title} works with me on the ${pick(PLACE, n)} project.\n\n## stance\nFriendly; we trade book tips.\n\n## recent\nMoved to a new flat near ${pick(PLACE, n + 2)} ${pick(PLACE_TYPE, n)}.\n`,
          ),
        );
      }
    } else if (slot === 2) {
      const title = zh
        ? `${pick(ZH_PLACE, n)}${pick(ZH_GIVEN, n)}${n}号`
        : `the ${pick(PLACE, n)} ${pick(PLACE_TYPE, n + 1)} ${n}`;
      out.push(
        card(
          "place",
          "places",
          title,
          [title],
          [],
          `## where\n${title}, two streets from home.\n\n## relation\nWhere we go on rainy days.\n`,
        ),
      );
    } else if (slot === 3) {
      const title = `the ${pick(DAY, n)} ${pick(EVENT, n + 1)} ${n}`;
      out.push(
        card(
          "event",
          "events",
          title,
          [`${pick(DAY, n)} ${pick(EVENT, n + 1)} ${n}`],
          [],
          `## when\nEvery ${pick(DAY, n)}.\n\n## what\nThe ${pick(EVENT, n + 1)} that always runs late.\n`,
        ),
      );
    } else {
      const title = `the ${pick(COLOR, n)} ${pick(THING, n + 2)} ${n}`;
      out.push(
        card(
          "thing",
          "things",
          title,
          [`${pick(COLOR, n)} ${pick(THING, n + 2)} ${n}`],
          [],
          `## what\nA ${pick(COLOR, n)} ${pick(THING, n + 2)} from the flea market.\n\n## usage\nCarried everywhere.\n`,
        ),
      );
    }
  }
  return out;
}

function card(
  kind: GenCard["kind"],
  dir: string,
  title: string,
  keywords: string[],
  aliases: string[],
  body: string,
): GenCard {
  return { kind, dir, key: title, title, keywords, aliases, body };
}

export function cardFile(c: GenCard): string {
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(", ")}]`;
  return `---\ntitle: ${JSON.stringify(c.title)}\nkeywords: ${list(c.keywords)}\naliases: ${list(c.aliases)}\n---\n${c.body}`;
}

/** A realistic 3-turn window (7 messages) that mentions a few of the generated cards. */
export function sampleWindow(cards: readonly GenCard[], seed: number, chinese = false): string[] {
  const at = (k: number) => cards[(seed * 31 + k * 977) % cards.length]!;
  const en = [
    "Morning! I slept badly, the neighbours had a party until two.",
    `I ran into ${at(1).title} at the station, we talked about the weekend.`,
    "That sounds nice. Did you end up going to the market after all?",
    "No, it rained the whole afternoon so I stayed in and read.",
    `Remember ${at(2).title}? Apparently it is closing next month.`,
    "Oh no, that is a shame. We should go once more before it does.",
    `Yes! And I want to ask ${at(3).title} to come along, they would love it.`,
  ];
  const zh = [
    "早上好，昨晚邻居开派对到两点，我没睡好。",
    `我在车站碰到了${at(1).title}，聊了聊周末的安排。`,
    "听起来不错。你后来去市场了吗？",
    "没有，下午一直下雨，我就在家看书。",
    `还记得${at(2).title}吗？听说下个月要关门了。`,
    "太可惜了，我们应该在那之前再去一次。",
    `对！我还想叫上${at(3).title}一起去。`,
  ];
  return chinese ? zh : en;
}
