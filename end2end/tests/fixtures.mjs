// Shared fixtures: the live server's URL as baseURL, the seeded ids, a page that is already
// signed in (as alice unless a test says `test.use({ user: ... })`; `user: null` leaves it
// signed out), and a guard that fails any test during which the page threw (a wasm panic
// shows up as a page error) or logged a console error it did not expect: a test that
// expects some (a refused request the browser reports) names them with
// `test.use({ expectedConsole: [/regex/] })` for a file or group, or calls the
// `allowConsole(/regex/, ...)` fixture inside one test. Uncaught errors are never allowed.
import { test as base, expect } from '@playwright/test';
import { USERS } from '../users.mjs';

export { USERS };

export const test = base.extend({
  baseURL: async ({}, use) => {
    await use(process.env.RUNLENS_E2E_URL);
  },
  seed: async ({}, use) => {
    await use(JSON.parse(process.env.RUNLENS_E2E_SEED || '{}'));
  },
  user: ['alice', { option: true }],
  page: async ({ page, user }, use) => {
    // A panic's stack in full (the browser keeps 10 frames by default).
    await page.addInitScript(() => { Error.stackTraceLimit = 60; });
    if (user) await signInByApi(page.request, USERS[user]);
    await use(page);
  },
  expectedConsole: [[], { option: true }],
  allowConsole: async ({}, use) => {
    const allowed = [];
    const allow = (...patterns) => allowed.push(...patterns);
    allow.patterns = allowed;
    await use(allow);
  },
  pageErrors: [
    async ({ page, expectedConsole, allowConsole }, use) => {
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        const where = m.location()?.url ? ` (${m.location().url})` : '';
        errors.push({ console: `console.error: ${m.text()}${where}` });
      });
      await use(errors);
      const allowed = [...expectedConsole, ...allowConsole.patterns];
      const unexpected = errors
        .filter((e) => typeof e === 'string' || !allowed.some((re) => re.test(e.console)))
        .map((e) => (typeof e === 'string' ? e : e.console));
      expect(unexpected, 'uncaught errors or unexpected console errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The seeded experiment's name. */
export const EXPERIMENT = '/Users/alice/e2e-demo';

/**
 * Signs in through `POST /api/v1/session` on a request context (a page's `page.request`
 * shares the browser's cookies, so the page is signed in afterwards). Returns the `Me`
 * body, whose `csrf_token` cookie-authenticated writes must echo.
 */
export async function signInByApi(request, { username, password }) {
  const resp = await request.post('/api/v1/session', { data: { username, password } });
  expect(resp.status(), await resp.text()).toBe(200);
  return resp.json();
}

/** Fills and submits the sign-in page the browser is on. */
export async function signInWithForm(page, { username, password }) {
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: username })).toBeVisible();
}

/** Signs out through the user menu and waits for the sign-in page. */
export async function signOut(page, username) {
  await page.getByRole('button', { name: username }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
}

/** Opens the experiments list and clicks through to the experiment named `name`. */
export async function openExperiment(page, name = EXPERIMENT) {
  await page.goto('/');
  const short = name.split('/').pop();
  await page.getByRole('textbox', { name: 'Search experiments' }).fill(short);
  await page.getByRole('link', { name }).first().click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
}
