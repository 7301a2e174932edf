// The page in a real Chromium against a real agent process behind the web server: streaming text, tool calls, forms,
// permissions, cancel, reload mid-turn, a phone viewport. Each state is also a screenshot for docs/web.md.
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebClientServer } from '../dist/index.js';
import { launchChromium, screenshot, send, startScenarioWeb } from './support/browser.js';

let browser: Browser;
let web: WebClientServer | undefined;
let context: BrowserContext | undefined;
/** Uncaught errors of the page: a test that ends with any fails. */
let pageErrors: Error[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  const errors = pageErrors;
  pageErrors = [];
  await context?.close();
  context = undefined;
  await web?.close();
  web = undefined;
  expect(errors.map(String)).toEqual([]);
});

/** A TCP relay in front of the web server whose connections a test can cut, as a dropped network would. */
class CuttableLink {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  port = 0;

  async open(targetPort: number): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  /** Every open connection ends at once, without a goodbye. */
  cut(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A fresh server and browser context, signed in with the printed URL, at a session ready for prompts. */
async function openPage(viewport = { width: 1100, height: 800 }, link?: CuttableLink): Promise<Page> {
  web = await startScenarioWeb();
  context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error));
  const url = new URL(web.url);
  if (link !== undefined) {
    await link.open(web.port);
    url.port = String(link.port);
  }
  await page.goto(url.href);
  expect(new URL(page.url()).search).toBe('');
  await page.locator('p.link', { hasText: /^Connected$/ }).waitFor();
  await page.getByRole('heading', { name: 'Scenario agent' }).waitFor();
  // The session is open (the agent answered session/new): the composer sends from here on.
  await sendButton(page, 'enabled').waitFor();
  return page;
}

/** The composer's Send button, found only while it is `state` (a locator that waits for that state). */
function sendButton(page: Page, state: 'enabled' | 'disabled') {
  return page.locator(`form.composer button[type=submit]${state === 'enabled' ? ':enabled' : ':disabled'}`, {
    hasText: 'Send',
  });
}

function transcript(page: Page) {
  return page.getByRole('log', { name: 'Conversation' });
}

async function waitForText(page: Page, text: string | RegExp): Promise<void> {
  await transcript(page).getByText(text).first().waitFor({ timeout: 30_000 });
}

/** Nothing the agent sent ran: no flag set, no script or image element came from its text. */
async function expectNothingExecuted(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
  expect(await transcript(page).locator('script, img, iframe, object, embed').count()).toBe(0);
  expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
}

/** The page answers a script within a frame or two: it is not frozen. */
async function expectResponsive(page: Page): Promise<void> {
  const started = Date.now();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  expect(Date.now() - started).toBeLessThan(5_000);
}

describe('the web client in Chromium', () => {
  it('streams Markdown as text, folds reasoning, shows usage, title and slash commands; hostile HTML stays text', async () => {
    const page = await openPage();
    await send(page, 'hello');
    await waitForText(page, /a hostile <script>window.__pwned = true<\/script>/);
    await transcript(page)
      .locator('strong', { hasText: /^bold$/ })
      .waitFor();
    await transcript(page).getByRole('heading', { name: 'Hello' }).waitFor();
    expect(await transcript(page).getByRole('link', { name: 'docs' }).getAttribute('href')).toBe(
      'https://example.com/',
    );
    expect(await transcript(page).getByRole('link', { name: 'a link' }).count()).toBe(0);
    const reasoning = transcript(page).locator('details.thought');
    expect(await reasoning.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    await page.getByText('Context: 1,200 / 200,000 tokens · 0.01 USD').waitFor();
    await page.getByRole('heading', { name: /Greeting <script>/ }).waitFor();
    await expectNothingExecuted(page);
    await screenshot(page, 'conversation');
    await reasoning.locator('summary').click();
    await transcript(page).getByText('Thinking about how to greet.').waitFor();

    await page.getByLabel('Message to the agent').fill('/');
    await page.getByRole('button', { name: '/deploy' }).click();
    expect(await page.getByLabel('Message to the agent').inputValue()).toBe('/deploy ');
    await expectNothingExecuted(page);
  });

  it('renders tool calls: kind, status, locations, arguments, results, a diff both ways, terminal output, the plan', async () => {
    const page = await openPage();
    await send(page, 'tools');
    await waitForText(page, 'Tools done.');
    const edit = page.getByRole('region', { name: /Edit config.ts <script>/ });
    await edit.getByText('Done', { exact: true }).waitFor();
    await edit.getByText('src/config.ts:3').waitFor();
    expect(await edit.locator('.diff-unified .line.removed').allTextContents()).toEqual([
      '-   replicas: 2,\n',
      '-   name: "old",\n',
    ]);
    expect(await edit.locator('.diff-unified .line.added').first().textContent()).toBe('+   replicas: 3,\n');
    await edit.getByText('Arguments').click();
    await edit.getByText('"replicas": 3').waitFor();
    await edit.getByText('Result').click();
    await edit.getByText('"ok": true').waitFor();
    const run = page.getByRole('region', { name: 'npm test' });
    await run.getByText('Failed', { exact: true }).waitFor();
    await run.getByText(/1 test failed <script>/).waitFor();
    await run.getByText('Exit code 1').waitFor();
    await page.getByText('Plan (1 of 3 done)').waitFor();
    await page.getByText(/Edit the config <script>/).waitFor();
    await screenshot(page, 'tool-calls');
    await edit.getByRole('button', { name: 'Side by side' }).click();
    await edit.locator('table.diff-split').waitFor();
    expect(await edit.locator('table.diff-split td.removed').first().textContent()).toBe('  replicas: 2,');
    await screenshot(page, 'diff-side-by-side');
    await expectNothingExecuted(page);
  });

  it('answers a single choice (radio for few options, a select for many)', async () => {
    const page = await openPage();
    await send(page, 'choice');
    const form = page.getByRole('region', { name: 'The agent asks' });
    await form.getByText('Choose a deployment target').waitFor();
    expect(await form.getByRole('radio', { name: /Production/ }).isChecked()).toBe(true);
    await form.getByText('Where the build goes.').waitFor();
    await screenshot(page, 'choice');
    await form.getByRole('radio', { name: /Preview/ }).check();
    await form.getByRole('button', { name: 'Send' }).click();
    await waitForText(page, 'Choice: accept {"target":"preview"}');

    await send(page, 'many');
    const select = page.getByRole('combobox', { name: /Region/ });
    await select.waitFor();
    expect(await select.locator('option').count()).toBe(13);
    await page
      .getByRole('region', { name: 'The agent asks' })
      .last()
      .getByRole('button', { name: 'Send' })
      .click();
    await page.getByText('Region is required.').waitFor();
    await select.selectOption('region-7');
    await page
      .getByRole('region', { name: 'The agent asks' })
      .last()
      .getByRole('button', { name: 'Send' })
      .click();
    await waitForText(page, 'Region: accept {"region":"region-7"}');
  });

  it('checks a multi-field form with the shared rules before sending it; decline and cancel answer without content', async () => {
    const page = await openPage();
    await send(page, 'form');
    const form = page.getByRole('region', { name: 'Release details' });
    await form.getByLabel(/Release name/).fill('No');
    await form.getByLabel(/Canary ratio/).fill('2');
    await form.getByLabel(/Contact email/).fill('not-an-email');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByText('Enter at least 3 characters.').waitFor();
    await form.getByText('Must be at most 1.').waitFor();
    await form.getByText('Enter a valid email address.').waitFor();
    await form.getByText('Channels is required.').waitFor();
    await form.getByText('4 answers need fixing.').waitFor();
    // The first field to fix has the focus and says why it is invalid.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    await screenshot(page, 'form-errors');
    await form.getByLabel(/Release name/).fill('Bad Name');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByText('Must match the pattern ^[a-z0-9-]+$.').waitFor();
    await form.getByLabel(/Release name/).fill('spring-release');
    await form.getByLabel(/Canary ratio/).fill('0.25');
    await form.getByLabel(/Contact email/).fill('ops@example.com');
    await form.getByLabel(/Release day/).fill('2026-12-24');
    await form.getByRole('checkbox', { name: 'Beta' }).check();
    await form.getByRole('checkbox', { name: 'Stable' }).check();
    await form.getByRole('button', { name: 'Send' }).click();
    await waitForText(
      page,
      'Release: accept {"name":"spring-release","replicas":2,"ratio":0.25,"notify":true,"contact":"ops@example.com","day":"2026-12-24","channels":["stable","beta"]}',
    );
    await form.getByText('Sent').waitFor();

    await send(page, 'form');
    await page
      .getByRole('region', { name: 'Release details' })
      .last()
      .getByRole('button', { name: 'Decline' })
      .click();
    await waitForText(page, 'Release: decline');
    await send(page, 'form');
    await page
      .getByRole('region', { name: 'Release details' })
      .last()
      .getByRole('button', { name: 'Cancel' })
      .click();
    await waitForText(page, 'Release: cancel');
  });

  it('approves and rejects permission requests with the keyboard alone', async () => {
    const page = await openPage();
    await send(page, 'permission');
    const request = page.getByRole('region', { name: /Permission: Delete build\/ <script>/ }).last();
    await request.getByRole('button', { name: 'Allow once' }).waitFor();
    await screenshot(page, 'permission');
    await request.getByRole('button', { name: 'Allow once' }).focus();
    await page.keyboard.press('Enter');
    await waitForText(page, 'Permission: allow-once');
    await request.getByText('Allow once').waitFor();

    await send(page, 'permission');
    const second = page.getByRole('region', { name: /Permission: Delete build/ }).last();
    await second.getByRole('button', { name: 'Allow once' }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');
    await page.keyboard.press('Space');
    await waitForText(page, 'Permission: reject');
    await expectNothingExecuted(page);
  });

  it('cancels a turn: the agent stops with cancelled, an open permission is answered cancelled', async () => {
    const page = await openPage();
    await send(page, 'wait');
    await waitForText(page, 'Waiting for a cancel.');
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await waitForText(page, 'Turn cancelled.');
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
    await send(page, 'permission');
    await page.getByRole('button', { name: 'Allow once' }).waitFor();
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await waitForText(page, 'Permission: cancelled');
  });

  it('keeps a message typed before the session is open, and sends it once it is', async () => {
    web = await startScenarioWeb();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    // session/new is held until the message is typed: the page is connected, the agent known, no session yet.
    let releaseSessionNew: () => void = () => {};
    const sessionNewHeld = new Promise<void>((resolve) => {
      releaseSessionNew = resolve;
    });
    await context.route('**/acp', async (route) => {
      if (route.request().postData()?.includes('"session/new"')) await sessionNewHeld;
      await route.continue();
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error));
    await page.goto(web.url);
    await page.getByRole('heading', { name: 'Scenario agent' }).waitFor();
    await sendButton(page, 'disabled').waitFor();
    await send(page, 'hello');
    expect(await page.getByLabel('Message to the agent').inputValue()).toBe('hello');
    expect(await transcript(page).getByText('hello', { exact: true }).count()).toBe(0);
    releaseSessionNew();
    await sendButton(page, 'enabled').waitFor();
    await page.getByLabel('Message to the agent').press('Enter');
    await waitForText(page, /a hostile/);
    expect(await page.getByLabel('Message to the agent').inputValue()).toBe('');
  });

  it('reloaded mid-turn, rebuilds the conversation from the server and the turn goes on', async () => {
    const page = await openPage();
    await send(page, 'hello');
    await waitForText(page, /a hostile/);
    await send(page, 'slow');
    await waitForText(page, 'tick 3');
    await page.reload();
    await page.locator('p.link', { hasText: /^Connected$/ }).waitFor();
    await waitForText(page, 'tick 1');
    await waitForText(page, 'Slow done.');
    await transcript(page).getByText('slow', { exact: true }).waitFor();
    await transcript(page).getByText('hello', { exact: true }).waitFor();
    const ticks = await transcript(page)
      .getByText(/^tick 5$/)
      .count();
    expect(ticks).toBe(1);
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
    await send(page, 'after the reload');
    await waitForText(page, 'Echo: after the reload');
    await expectNothingExecuted(page);
  });

  it('after a dropped network, reconnects from the last event: every tick once, the turn ends, nothing lost', async () => {
    const link = new CuttableLink();
    try {
      const page = await openPage(undefined, link);
      await send(page, 'slow');
      await waitForText(page, 'tick 2');
      link.cut();
      await waitForText(page, 'Slow done.');
      await page.locator('p.link', { hasText: /^Connected$/ }).waitFor();
      const text = (await transcript(page).locator('.message.agent').allTextContents()).join('');
      for (let tick = 1; tick <= 20; tick++) {
        expect(text.match(new RegExp(`tick ${tick}(?!\\d)`, 'g'))?.length, `tick ${tick}`).toBe(1);
      }
      // The turn's answer can come after its last words: until it has, Enter keeps the next message in the box.
      await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
      link.cut();
      await send(page, 'after the drop');
      await waitForText(page, 'Echo: after the drop');
    } finally {
      await link.close();
    }
  });

  it('fits a phone: no sideways scrolling, a form and its buttons usable', async () => {
    const page = await openPage({ width: 390, height: 844 });
    await send(page, 'tools');
    await waitForText(page, 'Tools done.');
    await send(page, 'form');
    const form = page.getByRole('region', { name: 'Release details' });
    await form.getByLabel(/Release name/).fill('phone-release');
    await form.getByRole('checkbox', { name: 'Nightly' }).check();
    await form.getByRole('button', { name: 'Send' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await form.getByRole('button', { name: 'Send' }).click();
    await waitForText(page, /Release: accept \{"name":"phone-release"/);
  });

  it('offers modes, config options, new session, the session list and load', async () => {
    const page = await openPage();
    await page.getByRole('combobox', { name: 'Mode', exact: true }).selectOption('code');
    await waitForText(page, 'Mode: code');
    await page.getByRole('combobox', { name: 'Model', exact: true }).selectOption('large');
    await waitForText(page, 'Model: large');
    await page.getByRole('button', { name: 'Sessions' }).click();
    const list = page.getByRole('region', { name: 'Sessions' });
    await list.getByRole('button', { name: /Hostile <script>/ }).waitFor();
    await screenshot(page, 'sessions');
    await list.getByRole('button', { name: 'Yesterday’s deploy' }).click();
    await waitForText(page, 'Loaded old-1: deployed.');
    await transcript(page).getByText('Deploy it').waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    await transcript(page).getByText('Loaded old-1: deployed.').waitFor({ state: 'detached' });
    await send(page, 'fresh');
    await waitForText(page, 'Echo: fresh');
    await expectNothingExecuted(page);
  });
});

describe('the web client against a hostile agent', () => {
  it('shows script in form titles, labels, options and messages as text', async () => {
    const page = await openPage();
    await send(page, 'hostile-form');
    const form = page.getByRole('region', { name: /Form <script>/ });
    await form.getByText(/Message <script>/).waitFor();
    await form.getByLabel(/Label <script>/).fill('fine');
    await form.getByRole('radio', { name: /Option <script>/ }).check();
    await form.getByRole('button', { name: 'Send' }).click();
    await waitForText(page, 'Hostile: accept {"answer":"fine","pick":"a"}');
    await expectNothingExecuted(page);
  });

  it('stays responsive with a 10 MB message, shown in part, saved whole', async () => {
    const page = await openPage();
    await send(page, 'huge');
    await page.getByText('Showing 100 k of 10.0 M characters.').waitFor();
    await page.getByRole('button', { name: 'Cancel turn' }).waitFor({ state: 'detached' });
    await expectResponsive(page);
    await page.getByRole('button', { name: 'Show more' }).click();
    await page.getByText('Showing 200 k of 10.0 M characters.').waitFor();
    await expectResponsive(page);
    // All of it, saved as a file: every byte arrived, the markup in it as text.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Save all as a file' }).click(),
    ]);
    const saved = readFileSync(await download.path(), 'utf8');
    expect(saved.length).toBeGreaterThan(10_000_000);
    expect(saved).toMatch(
      /<script>window.__pwned = true<\/script>.* end of the huge message\n\nHuge done\.$/s,
    );
    await expectNothingExecuted(page);
  });

  it('stays responsive with a 500-field form', async () => {
    const page = await openPage();
    await send(page, 'big-form');
    const form = page.getByRole('region', { name: 'Five hundred fields' });
    await form.getByLabel('Field 499').waitFor();
    expect(await form.locator('input').count()).toBe(500);
    await expectResponsive(page);
    await form.getByLabel('Field 250').fill('changed');
    await form.getByRole('button', { name: 'Send' }).click();
    await waitForText(page, 'Big form: accept 500 fields');
  });

  it('stays responsive under a flood of updates', async () => {
    const page = await openPage();
    await send(page, 'flood');
    await waitForText(page, 'Flood done.');
    await expectResponsive(page);
    expect(await page.getByRole('region', { name: /^Flood \d+ <script>/ }).count()).toBe(100);
    await expectNothingExecuted(page);
  });
});
