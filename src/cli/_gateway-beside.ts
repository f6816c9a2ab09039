/**
 * The gateway `ui --gateway-upstream` starts in its own process, beside the editor. When it cannot
 * start (its port is taken, most often), the whole command fails: the editor already listening is
 * stopped first, or the process would live on as an editor without the gateway the service was asked
 * for, and a supervisor would never learn of it. A taken port is named by the flag that chose it.
 */
import { LoreError } from "../errors.ts";
import { type Gateway, type GatewayOptions, startGateway } from "../gateway/index.ts";

export async function startGatewayBeside(
  options: GatewayOptions | undefined,
  stopEditor: () => Promise<unknown>,
): Promise<Gateway | undefined> {
  if (options === undefined) return undefined;
  try {
    return startGateway(options);
  } catch (err) {
    await stopEditor();
    if (err instanceof LoreError && err.code === "address_in_use")
      throw new LoreError("address_in_use", err.message.replace("--port", "--gateway-port"), { cause: err });
    throw err;
  }
}
