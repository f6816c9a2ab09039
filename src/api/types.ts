/**
 * The answers of the HTTP API, as types: what the editor's page (ui/) reads, taken from the handlers
 * themselves with `import type`, so a field renamed on the server is a type error on the page instead of
 * a page that silently reads `undefined`. Types only: importing this costs the page's bundle nothing.
 */
import type { WriteWarning } from "../vet/index.ts";
import type { Wire } from "../wire.ts";
import type * as books from "./_books.ts";
import type * as cardList from "./_card-list.ts";
import type * as door from "./_door.ts";
import type * as find from "./_find.ts";
import type * as health from "./_health.ts";
import type * as history from "./_history.ts";
import type * as library from "./_library.ts";
import type * as routes from "./_routes.ts";
import type * as usage from "./_stats.ts";
import type * as steps from "./_steps.ts";
import type * as style from "./_style.ts";

/** A handler's answer as JSON: never the Response a few of them return for a refusal. */
type Answer<F extends (...args: never[]) => unknown> = Exclude<Awaited<ReturnType<F>>, Response>;

export type { ArchivedItem, ListItem } from "./_card-list.ts";
export type { BulkAction } from "./_steps.ts";

export type Kinds = Answer<typeof routes.kinds>;
export type KindInfo = Kinds["kinds"][number];
export type BrokenItem = cardList.CardList["broken"][number];
/** `GET /api/cards`: the live cards, or with `?archived=1` the archived ones. */
export type CardsAnswer = cardList.CardList | Extract<Answer<typeof cardList.listCards>, { cards: unknown }>;
/** A card as the form shows it (`GET`), and as a save answers it, with its write checks. */
export type CardData = Answer<typeof routes.getCard> & { checks?: Wire<WriteWarning[]> };
/** `DELETE /api/cards/{kind}/{key}`: where the card went in the archive (`key` may carry `~2`). */
export type Archived = Answer<typeof routes.deleteCard>["archived"];
export type Reverted = Answer<typeof history.revert>;
/** A card's versions (`GET …/history`), and one of them with its text and diff (`?version=N`). */
export type CardHistory = Extract<Answer<typeof history.cardHistory>, { versions: unknown }>;
export type VersionDetail = Extract<Answer<typeof history.cardHistory>, { diff: unknown }>;
export type TryResult = Answer<typeof routes.tryText>;
export type Explanation = Answer<typeof door.explainText>;
export type Conversations = Answer<typeof door.conversations>;
export type ConversationTurns = Answer<typeof door.conversationTurns>;
export type Recent = Answer<typeof routes.recent>;
export type Checkup = Answer<typeof routes.checkup>;
/** `GET /api/books`: the vault's books, each with the conversations whose turns read it. */
export type Books = Answer<typeof library.books>;
export type ImportResult = Answer<typeof books.importLorebook>;
export type Stats = Answer<typeof usage.stats>;
export type CardHealthReport = Answer<typeof health.cardHealth>;
export type StyleHabits = Answer<typeof style.habits>;
export type StyleBrief = Answer<typeof style.brief>;
export type StyleScore = Answer<typeof style.score>;
export type SearchResult = Answer<typeof find.search>;
export type Facts = Answer<typeof find.facts>;
export type CardFacts = Facts["cards"][string];
export type Links = Answer<typeof find.links>;
export type Budget = Answer<typeof find.budget>;
export type BulkResult = Answer<typeof steps.bulk>;
export type Steps = Answer<typeof steps.steps>;
export type StepDetail = Answer<typeof steps.step>;
export type Undone = Answer<typeof steps.undo>;
