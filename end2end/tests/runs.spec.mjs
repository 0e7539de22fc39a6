// Experiment page: the runs table, MLflow filter grammar, errors, filter kept in the URL.
import { test, expect, openExperiment } from './fixtures.mjs';

test('runs table filters with MLflow grammar', async ({ page }) => {
  await openExperiment(page);
  for (const name of ['baseline', 'adam-0.001', 'spiky-run', 'sweep']) {
    await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
  }

  const filter = page.getByRole('textbox', { name: 'Filter runs' });
  await filter.fill("params.lr = '0.01'");
  await filter.press('Enter');
  await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
  for (const name of ['baseline', 'adam-0.001', 'sweep-lr-0.1']) {
    await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);
  }

  // The filter lives in the URL: a reload shows the same filtered table.
  expect(decodeURIComponent(page.url().replace(/\+/g, ' '))).toContain("params.lr = '0.01'");
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Filter runs' })).toHaveValue("params.lr = '0.01'");
  await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'baseline', exact: true })).toHaveCount(0);
});

test('an invalid filter shows an alert', async ({ page }) => {
  await openExperiment(page);
  const filter = page.getByRole('textbox', { name: 'Filter runs' });
  await filter.fill('params.lr = = nonsense');
  await filter.press('Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByRole('alert')).not.toBeEmpty();
});
