// The JSON shapes the page reads from the API (docs/HTTP-API.md).

export interface KindInfo {
  name: string;
  dir: string;
  sections: string[];
  recent: string | null;
}

export interface Kinds {
  kinds: KindInfo[];
  private_sections: string[];
}

export interface ListItem {
  key: string;
  kind: string;
  title: string;
  keywords?: string[];
  preview: string;
  mtime: string;
  enabled?: boolean;
  inject?: boolean;
  archived?: boolean;
  original_key?: string;
}

/** A card file that could not be parsed (`broken` of `GET /api/cards`). */
export interface BrokenItem {
  kind: string;
  key: string;
  path: string;
  error: string;
}

export interface CardData {
  key: string;
  kind: string;
  title: string;
  keywords: string[];
  aliases: string[];
  refs: string[];
  secondary: { all: string[]; any: string[]; not: string[]; not_all?: string[] };
  scan_depth: number | null;
  priority: number;
  enabled: boolean;
  inject: boolean;
  fields: Record<string, string>;
  preamble: string;
  body: string;
  extra: Record<string, unknown>;
  mtime: string;
  /** Only in the answer to a save: what the write checks found worth fixing (README "Write checks"). */
  checks?: { code: string; detail: string; term?: string }[];
}

export interface Fired {
  key: string;
  kind: string;
  title: string;
  score: number;
  hits: string[];
  chars: number;
  in_budget: boolean;
  /** How it came in: named (on its words), always, sticky, explicit (asked for), reached. */
  via: string;
}

export interface TryResult {
  fired: Fired[];
  injected: string[];
  truncated: number;
  injected_chars: number;
  candidates: { names: string[]; places: string[]; aliases: string[] };
  broken?: { path: string; error: string }[];
}
