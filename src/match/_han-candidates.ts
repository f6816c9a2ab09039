/**
 * Candidate keywords in Chinese text, found with the runtime's own word segmenter (ICU's dictionary,
 * `Intl.Segmenter`) instead of jieba: jieba's part-of-speech tags would name people and places, but
 * loading it costs a cold `try` about 300 ms of CPU and 90 MB, for suggestions a person looks at.
 * ICU knows common words and splits what it does not know (most given names) into single
 * characters, so a name is read off its shape:
 * - a common surname (one or two characters) followed by one or two characters that are not
 *   grammar (王|小明, 李|华, 诸葛|亮), or a three-character word that opens with a surname (林黛玉);
 * - a place ends with a place word: a word of three or more characters ending in 市, 省, 路… (上海市),
 *   such a character after a two-character word (长安|街), or what stands before 公园, 大学, 车站…
 *   (北京|大学, 外|滩|公园).
 * Dictionary words that name places (北京, 成都) carry no sign and are not offered.
 */

const SURNAMES = new Set([
  ..."王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤",
  ..."诸葛 司马 欧阳 上官 东方 慕容 令狐 皇甫 公孙 夏侯 尉迟 长孙 宇文 司徒 端木 独孤 南宫".split(" "),
]);

/** Characters that are grammar, numbers or the commonest verbs: never part of a name. */
const GRAMMAR = new Set([
  ..."的了在是我你他她它们也都就和与及或把被给对向从到着过吗呢吧啊呀哦嗯很太更最还又再才只不没有这那哪谁个",
  ..."一二三四五六七八九十百千万两几些每年月日号点分天里下前后来去说看想要会能可让叫见好吃喝做走跑",
]);

/** One character that makes the word before it a place, in a word of three or more (上海市, 长安街). */
const PLACE_END = new Set([..."市省县区镇村乡路街巷山河江湖岛桥港湾州城寺庙宫楼塔"]);
/** Words whose word before them names a place (北京|大学, 外|滩|公园). */
const PLACE_WORDS = new Set(
  "公园 广场 大学 中学 小学 车站 机场 医院 酒店 饭店 餐厅 咖啡馆 商场 市场 花园 博物馆 图书馆 体育馆 大厦 大桥 码头 火车站".split(
    " ",
  ),
);

const HAN = /^\p{Script=Han}+$/u;

let segmenter: Intl.Segmenter | undefined;

/** Han words of `text` in order, a break (`undefined`) wherever anything else stands between them. */
function hanWords(text: string): (string | undefined)[] {
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  const out: (string | undefined)[] = [];
  for (const { segment } of segmenter.segment(text)) out.push(HAN.test(segment) ? segment : undefined);
  return out;
}

const isNamePart = (w: string | undefined): w is string =>
  w !== undefined && w.length <= 2 && ![...w].some((c) => GRAMMAR.has(c));

export function hanCandidates(text: string): { names: string[]; places: string[] } {
  const words = hanWords(text);
  const names: string[] = [];
  const places: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) continue;
    if (PLACE_WORDS.has(w)) {
      // The words before it, back to a break or grammar, up to four characters.
      let prefix = "";
      for (let j = i - 1; j >= 0 && isNamePart(words[j]) && prefix.length + words[j]!.length <= 4; j--)
        prefix = words[j] + prefix;
      if (prefix.length > 0) places.push(prefix + w);
      continue;
    }
    if (w.length >= 3 && PLACE_END.has(w.at(-1)!)) {
      places.push(w);
      continue;
    }
    // A place word split off the name before it (长安|街).
    if (w.length === 1 && PLACE_END.has(w) && isNamePart(words[i - 1]) && words[i - 1]!.length === 2) {
      places.push(words[i - 1] + w);
      continue;
    }
    if (SURNAMES.has(w)) {
      // The given name: one or two characters after it, as one word or two single ones.
      let given = "";
      let j = i + 1;
      while (isNamePart(words[j]) && given.length + words[j]!.length <= 2) given += words[j++];
      if (given.length > 0 && !PLACE_WORDS.has(given)) {
        names.push(w + given);
        i = j - 1;
      }
      continue;
    }
    if (w.length === 3 && SURNAMES.has(w[0]!) && !PLACE_END.has(w[2]!)) names.push(w);
  }
  return { names, places };
}
