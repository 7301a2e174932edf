// Chromium (Debian's package, driven by playwright-core) and the built web client (dist: the page's assets live
// there) with the scenario agent, for the tests.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { servicesInstalled } from '../../../../scripts/test/step-markers.mjs';
import { serveWebClient, type WebClientOptions, type WebClientServer } from '../../dist/index.js';

/** Where the test command's Chromium lives (scripts/test-all.mjs installs Debian's package when it is missing). */
export const CHROMIUM = process.env.ACPKIT_CHROMIUM ?? '/usr/bin/chromium';

/** Flags known to work in containers without a GPU, a sandbox or network access beyond loopback. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCENARIO_AGENT = fileURLToPath(new URL('../fixtures/web-scenario-agent.mjs', import.meta.url));

/** Starts Chromium; Playwright gives it a fresh profile directory of its own, removed on close. */
export async function launchChromium(): Promise<Browser> {
  // In the test command, Chromium may still be being installed (a fresh machine).
  await servicesInstalled();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** The web client in front of the scenario agent. */
export function startScenarioWeb(options: Partial<WebClientOptions> = {}): Promise<WebClientServer> {
  return serveWebClient({ command: [process.execPath, SCENARIO_AGENT], title: 'scenario agent', ...options });
}

/** Screenshots for docs/web.md when ACPKIT_WEB_SCREENSHOTS names a directory (`pnpm --filter @acpkit/web-client screenshots`). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const directory = process.env.ACPKIT_WEB_SCREENSHOTS;
  if (directory === undefined) return;
  mkdirSync(directory, { recursive: true });
  await page.screenshot({ path: `${directory}/${name}.png`, fullPage: false });
}

/** Sends a prompt the way a person does: type it, press Enter. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Message to the agent');
  await box.fill(text);
  await box.press('Enter');
}
