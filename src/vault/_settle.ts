/**
 * The one rule for an import or a restore a killed process left behind (`_batch.ts`, `swap.ts`): it is
 * settled before anything else touches the vault. Every writer settles it first, under the lock it then writes under, so a
 * recovery never runs after, and over, a newer write. Every reader settles it first too, so nobody sees
 * half a book; but a reader never waits: when the lock is held, its holder is a live writer (an import
 * still running owns its folder) and the reader reads the vault as it is.
 */
import { describeError, LoreError } from "../errors.ts";
import { hasLeftovers, recoverImports } from "./_batch-recover.ts";
import { type LockOptions, tryLock, withLock } from "./lock.ts";
import type { Vault } from "./paths.ts";
import { hasSwapLeftovers, recoverSwaps } from "./swap.ts";

/** Run a write holding the vault lock, once what a killed import left behind is settled. */
export function withSettledLock<T>(
  vault: Vault,
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  return withLock(
    vault,
    () => {
      try {
        recoverImports(vault);
        recoverSwaps(vault);
      } catch (err) {
        throw new LoreError(
          "io_error",
          `cannot finish an interrupted import or restore: ${describeError(err)}`,
          {
            cause: err,
          },
        );
      }
      return fn();
    },
    opts,
  );
}

/** Before a read: settle a killed import if there is one and the lock is free; never waits, never throws. */
export function settleImports(vault: Vault): void {
  if (!hasLeftovers(vault) && !hasSwapLeftovers(vault)) return;
  const release = tryLock(vault.root);
  if (release === null) return;
  try {
    recoverImports(vault);
    recoverSwaps(vault);
  } catch {
    // not ours to fix now (a read-only vault, a file in use): read as is, the next writer settles it
  } finally {
    release();
  }
}
