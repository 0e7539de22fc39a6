// Models: the Models page lists a registered model (latest version, alias) and its page links
// each version to its run and logged model; the run overview lists the run's logged models
// and datasets; the logged model page shows its data and its own artifacts; a user given
// nothing sees neither model.
import { test, expect } from './fixtures.mjs';
import { seedArtifacts } from './artifacts-seed.mjs';

const MODEL = 'e2e-iris-classifier';
let seeded;

test.beforeAll(() => {
  seeded = seedArtifacts(process.env.RUNLENS_E2E_URL, '/Users/alice/e2e-models', MODEL);
});

test('the Models page lists the registered model and links its version to its run', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('navigation').getByRole('link', { name: 'Models', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Models' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Search models' }).fill('iris-class');
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('iris-class');
  const row = page.getByRole('row', { name: new RegExp(MODEL) });
  await expect(row).toBeVisible();
  await expect(row.getByRole('link', { name: 'v1', exact: true })).toBeVisible();
  await expect(row.getByText('@champion → v1')).toBeVisible();
  await page.getByRole('textbox', { name: 'Search models' }).fill('no-such-model-xyz');
  await expect(page.getByText('No models match your search')).toBeVisible();

  await page.goto(`/models/${MODEL}`);
  await expect(page.getByRole('heading', { level: 1, name: MODEL })).toBeVisible();
  const version = page.locator('tr[data-version="1"]');
  await expect(version.getByText('@champion')).toBeVisible();
  await expect(version.getByText('READY')).toBeVisible();
  await version.getByRole('link', { name: seeded.run_id.slice(0, 10) + '…' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${seeded.run_id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'with-artifacts' })).toBeVisible();
});

test('the run overview lists its logged model and dataset', async ({ page }) => {
  await page.goto(`/runs/${seeded.run_id}`);
  const models = page.getByRole('region', { name: 'Models' });
  await expect(models.getByRole('link', { name: 'classifier', exact: true })).toBeVisible();
  await expect(models.getByRole('link', { name: `${MODEL} v1` })).toBeVisible();
  const datasets = page.getByRole('region', { name: 'Datasets' });
  await expect(datasets.getByText('iris-train')).toBeVisible();
  await expect(datasets.getByText('8f1c2b3a')).toBeVisible();
  await expect(datasets.getByText('training')).toBeVisible();
  await expect(datasets.getByText('https://example.com/iris.csv')).toBeVisible();
  // A run with neither shows neither section.
  await page.goto(`/runs/${seeded.empty_run_id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'no-artifacts' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Models' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Datasets' })).toHaveCount(0);
});

test('the logged model page shows its data, source run and artifacts', async ({ page }) => {
  await page.goto(`/runs/${seeded.run_id}`);
  await page.getByRole('region', { name: 'Models' }).getByRole('link', { name: 'classifier', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/logged-models/${seeded.model_id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'classifier' })).toBeVisible();
  await expect(page.getByText(seeded.model_id, { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'with-artifacts' })).toHaveAttribute('href', `/runs/${seeded.run_id}`);
  await expect(page.getByRole('link', { name: `${MODEL} v1` })).toBeVisible();
  await expect(page.getByText('C', { exact: true })).toBeVisible();
  const tree = page.getByRole('navigation', { name: 'Artifact files' });
  await tree.getByRole('button', { name: 'MLmodel', exact: true }).click();
  await expect(page.getByTestId('mlmodel-card').getByText('sklearn', { exact: true })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('file')).toBe('MLmodel');
});

test.describe('as bob, who was given nothing', () => {
  test.use({ user: 'bob' });

  test("alice's registered and logged models stay hidden", async ({ allowConsole, page }) => {
    allowConsole(/status of 403 \(Forbidden\) \(http[^)]*\/api\/v1\/(registered|logged)-models\//);
    await page.goto('/models?q=iris-class');
    await expect(page.getByRole('heading', { level: 1, name: 'Models' })).toBeVisible();
    await expect(page.getByText('No models match your search')).toBeVisible();
    await page.goto(`/models/${MODEL}`);
    await expect(page.getByRole('heading', { name: "You don't have access to this model" })).toBeVisible();
    await page.goto(`/logged-models/${seeded.model_id}`);
    await expect(page.getByRole('heading', { name: "You don't have access to this model's experiment" })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Artifact files' })).toHaveCount(0);
  });
});
