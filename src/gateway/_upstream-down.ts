/**
 * The upstream's reachability, said on stderr. A client whose request could not reach the upstream
 * gets a 502 (proxy.ts); the person running the gateway saw nothing, and an upstream that went down
 * looked like clients failing on their own. One line when it stops answering, again at most once a
 * minute while it stays down (each request fails alike), and one when it answers again.
 */
import { describeError } from "../errors.ts";

/** While the upstream stays unreachable, how often that is said again. */
const SAY_AGAIN_MS = 60_000;

export function sayingWhenDown(
  doFetch: typeof fetch,
  warn: (line: string) => void,
  now: () => number = Date.now,
): typeof fetch {
  let down = false;
  let said = 0;
  const reporting = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    try {
      const res = await doFetch(input, init);
      if (down) {
        down = false;
        warn(`lorecards gateway: the upstream ${originOf(input)} answers again`);
      }
      return res;
    } catch (err) {
      // A client that went away aborted it: nothing is wrong with the upstream.
      if (!init?.signal?.aborted && (!down || now() - said >= SAY_AGAIN_MS)) {
        down = true;
        said = now();
        warn(
          `lorecards gateway: the upstream ${originOf(input)} is unreachable (${describeError(err)}); ` +
            "requests get a 502 until it answers",
        );
      }
      throw err;
    }
  };
  return Object.assign(reporting, { preconnect: doFetch.preconnect }) as typeof fetch;
}

function originOf(input: Parameters<typeof fetch>[0]): string {
  try {
    return new URL(typeof input === "string" || input instanceof URL ? input : input.url).origin;
  } catch {
    return String(input);
  }
}
