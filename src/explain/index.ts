/**
 * How a recall is shown to people and scripts: the context door (`lorecards explain`,
 * `POST /api/explain`: why each card is, or is not, in front of the model; door.ts opens it on an
 * engine, explain.ts reads one recall's selection, _lines.ts words it) and the documented JSON of
 * `try --json` and `POST /api/try` (try-json.ts). It reads recall's answer and never changes it; it
 * writes nothing.
 */

export { type DoorAnswer, type DoorOptions, openDoor } from "./door.ts";
export { cardsNamed, type ExplainedCard, type Explanation, explain, type Why } from "./explain.ts";
export { declaredJson, recallJson } from "./try-json.ts";
