// Shared fixtures: the live server's URL as baseURL, the seeded ids, and a guard that fails
// any test during which the page threw (a wasm panic shows up as a page error).
import { test as base, expect } from '@playwright/test';

export const test = base.extend({
  baseURL: async ({}, use) => {
    await use(process.env.RUNLENS_E2E_URL);
  },
  seed: async ({}, use) => {
    await use(JSON.parse(process.env.RUNLENS_E2E_SEED || '{}'));
  },
  pageErrors: [
    async ({ page }, use) => {
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await use(errors);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The seeded experiment's name. */
export const EXPERIMENT = '/Users/alice@example.com/e2e-demo';

/** Opens the experiments list and clicks through to the seeded experiment. */
export async function openExperiment(page) {
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Search experiments' }).fill('e2e-demo');
  await page.getByRole('link', { name: EXPERIMENT }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: EXPERIMENT })).toBeVisible();
}
