/**
 * playwright-core, for code outside test/ (the editor's benchmark): it is installed with the real
 * clients in test/node_modules (`npm run test:clients`), which only modules under test/ resolve.
 */
export type { Browser, BrowserContextOptions, Locator, Page } from "playwright-core";

export const loadPlaywright = () => import("playwright-core");
