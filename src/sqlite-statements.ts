/**
 * A store's prepared statements, each made the first time it is used. Preparing one costs about a
 * tenth of a millisecond and a store defines a dozen or two, while a cold hook runs only a few of
 * them: preparing them all up front cost each cold start a couple of milliseconds.
 */
import type { Database } from "bun:sqlite";

export function lazyStatements<Q extends object>(db: Database, sql: Record<keyof Q, string>): Q {
  const made = new Map<keyof Q, Q[keyof Q]>();
  const out = {} as Q;
  for (const name of Object.keys(sql) as (keyof Q)[]) {
    Object.defineProperty(out, name, {
      enumerable: true,
      get() {
        let statement = made.get(name);
        if (statement === undefined) {
          statement = db.query(sql[name]) as unknown as Q[keyof Q];
          made.set(name, statement);
        }
        return statement;
      },
    });
  }
  return out;
}
