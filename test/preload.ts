/**
 * Loaded before every `bun test` run (bunfig.toml), before any test file: the compiled binary, built
 * now when this run has end-to-end tests and dist/ is stale, never inside a test hook (test/support/
 * binary.ts); and the hang timeout for a run of one file by hand (test/support/hang.ts says why the
 * scripts pass it as --timeout).
 *
 * The timeout only ends a test that hangs. No test is bounded by how long it takes: how fast something
 * is gets asserted as a ratio between two input sizes in one run (test/support/growth.ts).
 */
import { setDefaultTimeout } from "bun:test";
import { buildIfStale, runNeedsBinary } from "./support/binary.ts";
import { HANG_MS } from "./support/hang.ts";

setDefaultTimeout(HANG_MS);
if (runNeedsBinary()) buildIfStale();
