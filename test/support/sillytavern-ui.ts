/**
 * SillyTavern 1.12.6's web page (`../shared/judges/sillytavern/`, sillytavern.ts starts its server)
 * driven in headless Chromium the way a person uses it: the persona name it asks for on first start,
 * the API panel (Chat Completion with a custom OpenAI-compatible endpoint, or Text Completion with a
 * server URL), a character picked from the list, World Info imported and switched on in its panel, a
 * message typed and sent, a swipe, Regenerate and Continue from the options menu. Its server makes the
 * model requests, so a test sees them at the endpoint it gave (a recorder in front of the gateway).
 * Nothing here reaches into SillyTavern's code; what it reads back is what the page shows.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM } from "./editor-browser.ts";

/** Generations wait for the fake upstream, through the gateway; both answer at once. */
const STEP_MS = 90_000;

export interface TavernPage {
  page: Page;
  /** Types `text` into the message box and sends it; resolves when the reply is in and the page idle. */
  send(text: string): Promise<void>;
  /** Runs a slash command from the message box (no generation). */
  command(text: string): Promise<void>;
  /** Swipes the last reply right: a new reply to the same prompt. */
  swipe(): Promise<void>;
  /** Options menu → Regenerate. */
  regenerate(): Promise<void>;
  /** Options menu → Continue: the last reply goes on. */
  continueReply(): Promise<void>;
  /** The texts of the chat's messages as the page shows them, oldest first. */
  messages(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Opens SillyTavern at `url`, answers its first-start question (the persona name) and waits until its
 * page is ready. `generated()` counts the model requests made so far (the recorder's), which is how a
 * step knows its generation went out.
 */
export async function openTavern(
  url: string,
  generated: () => number,
  persona = "Mira",
): Promise<TavernPage> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // SillyTavern answers slowly on a busy machine; a step waits for what the page shows, not a clock.
    page.setDefaultTimeout(STEP_MS);
    await page.goto(`${url}/`, { waitUntil: "load", timeout: 120_000 });
    await page.waitForFunction(
      () => document.querySelector("#loader") === null && document.querySelector("#preloader") === null,
      null,
      { timeout: 120_000 },
    );
    const welcome = page.locator("dialog.popup[open]");
    await welcome.waitFor();
    await welcome.locator("textarea, input").first().fill(persona);
    await welcome.locator(".popup-button-ok").click();
    await welcome.waitFor({ state: "detached" });
    return tavernPage(browser, page, generated);
  } catch (err) {
    await browser.close();
    throw err;
  }
}

function tavernPage(browser: Browser, page: Page, generated: () => number): TavernPage {
  const idle = () =>
    page.waitForFunction(
      () => {
        const send = document.querySelector("#send_but");
        const stop = document.querySelector("#mes_stop") as HTMLElement | null;
        return send !== null && !send.classList.contains("displayNone") && stop?.checkVisibility() === false;
      },
      null,
      { timeout: STEP_MS },
    );
  /** Does `act`, then waits for one more model request and for the page to be idle again. */
  const generation = async (act: () => Promise<void>) => {
    await idle();
    const before = generated();
    await act();
    const deadline = Date.now() + STEP_MS;
    while (generated() <= before) {
      if (Date.now() > deadline) throw new Error("SillyTavern sent no model request");
      await Bun.sleep(50);
    }
    await idle();
  };
  const fromOptions = (id: string) =>
    generation(async () => {
      await page.click("#options_button");
      await page.click(id);
    });
  return {
    page,
    send: (text) =>
      generation(async () => {
        await page.fill("#send_textarea", text);
        await page.click("#send_but");
      }),
    async command(text) {
      await idle();
      await page.fill("#send_textarea", text);
      await page.click("#send_but");
      await page.waitForFunction(
        () => (document.querySelector("#send_textarea") as HTMLTextAreaElement | null)?.value === "",
        null,
        { timeout: STEP_MS },
      );
      await idle();
    },
    swipe: () => generation(() => page.locator("#chat .last_mes .swipe_right").click()),
    regenerate: () => fromOptions("#option_regenerate"),
    continueReply: () => fromOptions("#option_continue"),
    messages: () => page.locator("#chat .mes .mes_text").allInnerTexts(),
    close: () => browser.close(),
  };
}

/** API panel: Chat Completion, source Custom (OpenAI-compatible), the endpoint and model, Connect. */
export async function connectChatCompletion(t: TavernPage, endpoint: string, model: string): Promise<void> {
  const { page } = t;
  await page.locator("#sys-settings-button .drawer-toggle").click();
  await page.selectOption("#main_api", "openai");
  await page.selectOption("#chat_completion_source", "custom");
  await page.fill("#custom_api_url_text", endpoint);
  await page.fill("#api_key_custom", "sk-dummy");
  await page.fill("#custom_model_id", model);
  // SillyTavern says "Status check bypassed" for a custom source at once, then "Valid" if the
  // endpoint's model list answered. Once, in a CI run on a loaded machine, no status showed in 90 s
  // after Connect (not reproduced since, under load either): a press that did nothing is pressed again.
  const connected = page.locator("#openai_api .online_status_text", {
    hasText: /Status check bypassed|Valid/,
  });
  for (let attempt = 1; ; attempt++) {
    await page.click("#api_button_openai");
    try {
      await connected.waitFor({ timeout: CONNECT_TRY_MS });
      break;
    } catch (err) {
      if (attempt === CONNECT_TRIES) throw err;
    }
  }
  await page.locator("#sys-settings-button .drawer-toggle").click();
}

/** How long one press of Connect is given to show a status, and how many presses. */
const CONNECT_TRY_MS = 30_000;
const CONNECT_TRIES = 3;

/**
 * API panel: Text Completion, the server type (`koboldcpp`, `ooba`, … as its list names them) and its
 * URL, Connect; SillyTavern asks the server for its models and shows the first.
 */
export async function connectTextCompletion(t: TavernPage, type: string, server: string): Promise<void> {
  const { page } = t;
  await page.locator("#sys-settings-button .drawer-toggle").click();
  await page.selectOption("#main_api", "textgenerationwebui");
  await page.selectOption("#textgen_type", type);
  await page.fill(`#${type}_api_url_text`, server);
  await page.locator(`#${type}_api_url_text`).blur(); // closes the list of servers used before
  await page.click("#api_button_textgenerationwebui");
  await page.locator("#textgenerationwebui_api .online_status_text", { hasText: "fake-model" }).waitFor();
  await page.locator("#sys-settings-button .drawer-toggle").click();
}

/** Advanced Formatting: instruct mode on, with the instruct template named `name`. */
export async function useInstructTemplate(t: TavernPage, name: string): Promise<void> {
  const { page } = t;
  await page.locator("#advanced-formatting-button .drawer-toggle").click();
  await page.selectOption("#instruct_presets", { label: name });
  if (!(await page.locator("#instruct_enabled").isChecked())) await page.click("#instruct_enabled_label");
  await page.locator("#advanced-formatting-button .drawer-toggle").click();
}

/** Character Management: the character named `name` from the list, which opens its chat. */
export async function chooseCharacter(t: TavernPage, name: string): Promise<void> {
  const { page } = t;
  await page.click("#rightNavDrawerIcon");
  if (await page.locator("#rm_button_characters").isVisible()) await page.click("#rm_button_characters");
  await page.locator(".character_select", { hasText: name }).first().click();
  await page.locator("#chat .mes").first().waitFor();
  await page.click("#rightNavDrawerIcon");
}

/** World Info panel: imports `file` (a World Info book) and switches it on for every chat. */
export async function activateWorldInfo(t: TavernPage, file: string, name: string): Promise<void> {
  const { page } = t;
  await page.click("#WIDrawerIcon");
  await page.setInputFiles("#world_import_file", file);
  await page.locator("#world_info option", { hasText: name }).waitFor({ state: "attached" });
  const chosen = await page.locator("#world_info option:checked").allInnerTexts();
  await page.selectOption(
    "#world_info",
    [...chosen, name].map((label) => ({ label })),
  );
  const now = await page.locator("#world_info option:checked").allInnerTexts();
  if (!now.includes(name)) throw new Error(`World Info ${name} is not on (on: ${now.join(", ")})`);
  await page.click("#WIDrawerIcon");
}
