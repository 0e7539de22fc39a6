// Models: the Models page lists a registered model (latest version, alias) and its page links
// each version to its run and logged model; the run overview lists the run's logged models
// and datasets; the logged model page shows its data and its own artifacts; a user given
// nothing sees neither model. alice (the owner) edits the registered model and a version;
// a reader sees no edit controls, an editor no delete that needs MANAGE.
import { test, expect } from './fixtures.mjs';
import { request as apiRequest } from '@playwright/test';
import { seedArtifacts, aliceToken } from './artifacts-seed.mjs';

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

/** Calls MLflow's API as alice (bearer token). */
async function asAlice(method, endpoint, data) {
  const ctx = await apiRequest.newContext({
    baseURL: process.env.RUNLENS_E2E_URL,
    extraHTTPHeaders: { Authorization: `Bearer ${aliceToken()}` },
  });
  const r = await ctx.fetch(`/api/2.0/mlflow/${endpoint}`, { method, data });
  expect(r.status(), await r.text()).toBe(200);
  await ctx.dispose();
}

test('alice edits the registered model and a version, and the edits survive a reload', async ({ page }) => {
  await page.goto(`/models/${MODEL}`);
  await expect(page.getByRole('heading', { level: 1, name: MODEL })).toBeVisible();
  // Description.
  await page.getByRole('button', { name: /(Add|Edit) description/ }).click();
  await page.getByRole('textbox', { name: 'Description (Markdown)' }).fill('Iris **classifier** for e2e');
  await page.getByRole('button', { name: 'Save description' }).click();
  await expect(page.locator('.description-block')).toContainText('Iris classifier for e2e');
  // Tag.
  const tags = page.getByRole('region', { name: 'Tags' });
  await tags.getByRole('textbox', { name: 'Tag key' }).fill('team');
  await tags.getByRole('textbox', { name: 'Tag value' }).fill('vision');
  await tags.getByRole('button', { name: 'Set tag' }).click();
  await expect(tags.locator('tr[data-tag="team"]')).toContainText('vision');
  // Alias.
  await page.getByRole('textbox', { name: 'Alias', exact: true }).fill('e2e-best');
  await page.getByRole('textbox', { name: 'Alias version' }).fill('1');
  await page.getByRole('button', { name: 'Set alias' }).click();
  await expect(page.getByText('@e2e-best → v1')).toBeVisible();

  await page.reload();
  await expect(page.locator('.description-block')).toContainText('Iris classifier for e2e');
  await expect(page.getByRole('region', { name: 'Tags' }).locator('tr[data-tag="team"]')).toContainText('vision');
  await expect(page.getByText('@e2e-best → v1')).toBeVisible();

  await page.getByRole('region', { name: 'Tags' }).getByRole('button', { name: 'Delete tag team' }).click();
  await expect(page.locator('tr[data-tag="team"]')).toHaveCount(0);
  await page.getByRole('button', { name: 'Delete alias e2e-best' }).click();
  await expect(page.getByText('@e2e-best → v1')).toHaveCount(0);
  await page.reload();
  await expect(page.locator('.description-block')).toContainText('Iris classifier for e2e');
  await expect(page.locator('tr[data-tag="team"]')).toHaveCount(0);
  await expect(page.getByText('@e2e-best → v1')).toHaveCount(0);

  // The version page: stage transition.
  await page.locator('tr[data-version="1"]').getByRole('link', { name: 'v1', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/models/${MODEL}/versions/1$`));
  await expect(page.getByRole('heading', { level: 1, name: `${MODEL} v1` })).toBeVisible();
  await page.getByRole('combobox', { name: 'New stage' }).selectOption('Staging');
  await page.getByRole('button', { name: 'Transition' }).click();
  await expect(page.locator('.version-stage')).toHaveText('Staging');
  await page.reload();
  await expect(page.locator('.version-stage')).toHaveText('Staging');
  // The owner (MANAGE) may delete a version's tag.
  const vtags = page.getByRole('region', { name: 'Tags' });
  await vtags.getByRole('textbox', { name: 'Tag key' }).fill('reviewed');
  await vtags.getByRole('textbox', { name: 'Tag value' }).fill('yes');
  await vtags.getByRole('button', { name: 'Set tag' }).click();
  await expect(vtags.locator('tr[data-tag="reviewed"]')).toContainText('yes');
  await vtags.getByRole('button', { name: 'Delete tag reviewed' }).click();
  await expect(vtags.locator('tr[data-tag="reviewed"]')).toHaveCount(0);
});

test.describe('as bob, who may only read the model', () => {
  test.use({ user: 'bob' });

  test('sees no edit controls', async ({ page }) => {
    const grant = { name: MODEL, username: 'bob', permission: 'READ' };
    await asAlice('POST', 'registered-models/permissions/create', grant);
    try {
      await page.goto(`/models/${MODEL}`);
      await expect(page.getByRole('heading', { level: 1, name: MODEL })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Tags' })).toBeVisible();
      await expect(page.getByRole('button', { name: /description/ })).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Set tag' })).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Set alias' })).toHaveCount(0);
      await page.goto(`/models/${MODEL}/versions/1`);
      await expect(page.getByRole('heading', { level: 1, name: `${MODEL} v1` })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Transition' })).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Set tag' })).toHaveCount(0);
    } finally {
      await asAlice('DELETE', 'registered-models/permissions/delete', { name: MODEL, username: 'bob' });
    }
  });
});

test.describe('as bob, who may edit but not manage the model', () => {
  test.use({ user: 'bob' });

  test('sees the edit controls but no deletes the server would refuse', async ({ page }) => {
    const grant = { name: MODEL, username: 'bob', permission: 'EDIT' };
    await asAlice('POST', 'registered-models/permissions/create', grant);
    await asAlice('POST', 'registered-models/alias', { name: MODEL, alias: 'e2e-kept', version: '1' });
    await asAlice('POST', 'registered-models/set-tag', { name: MODEL, key: 'e2e-owner', value: 'alice' });
    await asAlice('POST', 'model-versions/set-tag', { name: MODEL, version: '1', key: 'e2e-check', value: 'ok' });
    try {
      await page.goto(`/models/${MODEL}`);
      await expect(page.getByRole('heading', { level: 1, name: MODEL })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Set alias' })).toBeVisible();
      await expect(page.getByText('@e2e-kept → v1')).toBeVisible();
      // Deleting an alias needs MANAGE; a model's tag only EDIT (as MLflow's auth has it).
      await expect(page.getByRole('button', { name: 'Delete alias e2e-kept' })).toHaveCount(0);
      const tags = page.getByRole('region', { name: 'Tags' });
      await expect(tags.getByRole('button', { name: 'Set tag' })).toBeVisible();
      await expect(tags.getByRole('button', { name: 'Delete tag e2e-owner' })).toBeVisible();

      await page.goto(`/models/${MODEL}/versions/1`);
      await expect(page.getByRole('heading', { level: 1, name: `${MODEL} v1` })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Transition' })).toBeVisible();
      const vtags = page.getByRole('region', { name: 'Tags' });
      await expect(vtags.locator('tr[data-tag="e2e-check"]')).toContainText('ok');
      await expect(vtags.getByRole('button', { name: 'Set tag' })).toBeVisible();
      // Deleting a version's tag needs MANAGE.
      await expect(vtags.getByRole('button', { name: /^Delete tag/ })).toHaveCount(0);
    } finally {
      await asAlice('DELETE', 'registered-models/alias', { name: MODEL, alias: 'e2e-kept' });
      await asAlice('DELETE', 'registered-models/delete-tag', { name: MODEL, key: 'e2e-owner' });
      await asAlice('DELETE', 'model-versions/delete-tag', { name: MODEL, version: '1', key: 'e2e-check' });
      await asAlice('DELETE', 'registered-models/permissions/delete', { name: MODEL, username: 'bob' });
    }
  });
});
