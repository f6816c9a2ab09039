/**
 * `npm run test:clients`: installs the real clients the end-to-end tests run (test/package.json, its
 * own lockfile) when one is missing or at another version; does nothing when they are all there.
 */
import { installClients } from "./support/clients.ts";

process.exit(installClients());
