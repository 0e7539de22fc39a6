// Experiments page: list, search by name, click through to an experiment.
import { test, expect, EXPERIMENT } from './fixtures.mjs';

test('lists experiments and opens one', async ({ page }) => {
  await page.goto('/');
  const search = page.getByRole('textbox', { name: 'Search experiments' });
  await expect(search).toBeVisible();
  await expect(page.getByRole('link', { name: /e2e-demo/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /e2e-other/ })).toBeVisible();

  await search.fill('e2e-demo');
  await search.press('Enter');
  await expect(page.getByRole('link', { name: /e2e-other/ })).toHaveCount(0);
  await page.getByRole('link', { name: /e2e-demo/ }).first().click();

  await expect(page.getByRole('heading', { level: 1, name: EXPERIMENT })).toBeVisible();
  await expect(page.getByRole('link', { name: 'spiky-run' })).toBeVisible();
});

test('a search that matches nothing says so', async ({ page }) => {
  await page.goto('/');
  const search = page.getByRole('textbox', { name: 'Search experiments' });
  await search.fill('no-such-experiment-anywhere');
  await search.press('Enter');
  await expect(page.getByRole('link', { name: /e2e-demo/ })).toHaveCount(0);
  await expect(page.getByText(/no experiments|no matching|nothing match|no results/i).first()).toBeVisible();
});
