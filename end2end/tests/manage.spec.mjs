// Run and experiment management, for alice who may edit her experiment: rename a
// run in place, a Markdown description that renders (bold) but never runs HTML from it
// (an `<img onerror>` shows as text and sets no flag), add / edit / delete tags with the
// `mlflow.*` system tags apart and read-only, delete a run (confirmed) and restore it from
// the banner, rename an experiment and describe it; a failed write shows MLflow's message.
// bob, given READ on the experiment, sees the same pages without any edit control.
//
// Each test logs its own experiment through the MLflow REST API (alice's token), so the
// seeded experiments other specs read stay as they are.
import { test, expect, USERS, signInByApi } from './fixtures.mjs';

const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];

/** Calls an MLflow endpoint as alice (API token) and returns the JSON answer. */
async function mlflow(request, path, data, version = '2.0') {
  const r = await request.post(`/api/${version}/mlflow/${path}`, { data, headers: { Authorization: `Bearer ${aliceToken()}` } });
  expect(r.ok(), `${path}: ${await r.text()}`).toBeTruthy();
  return r.json();
}

async function getRun(request, runId) {
  const r = await request.get('/api/2.0/mlflow/runs/get', { params: { run_id: runId }, headers: { Authorization: `Bearer ${aliceToken()}` } });
  expect(r.ok()).toBeTruthy();
  return (await r.json()).run;
}

/** A fresh experiment of alice with two runs (params, a user tag, a system tag). */
async function setup(request, label) {
  const name = `/Users/alice/e2e-manage-${label}-${Date.now()}`;
  const { experiment_id } = await mlflow(request, 'experiments/create', { name });
  const runs = {};
  for (const [i, runName] of ['manage-a', 'manage-b'].entries()) {
    const { run } = await mlflow(request, 'runs/create', {
      experiment_id,
      run_name: runName,
      start_time: Date.now() - 60_000,
      tags: [{ key: 'stage', value: 'dev' }, { key: 'mlflow.source.name', value: 'train.py' }],
    });
    const id = run.info.run_id;
    await mlflow(request, 'runs/log-batch', {
      run_id: id,
      params: [{ key: 'lr', value: String(0.1 / (i + 1)) }],
      metrics: [{ key: 'loss', value: 1 / (i + 1), timestamp: Date.now(), step: 0 }],
    });
    await mlflow(request, 'runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
    runs[runName] = id;
  }
  return { name, experimentId: experiment_id, runs };
}

const tagRow = (page, key) => page.getByRole('region', { name: 'Tags', exact: true }).locator(`tr[data-tag="${key}"]`);

test('rename a run; its description renders Markdown and no HTML runs', async ({ page, request }) => {
  const { runs } = await setup(request, 'desc');
  const id = runs['manage-a'];
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'manage-a' })).toBeVisible();

  // Rename in place: Enter saves; the name is the server's after a reload.
  await page.getByRole('button', { name: 'Rename run' }).click();
  const nameInput = page.getByRole('textbox', { name: 'Run name' });
  await expect(nameInput).toHaveValue('manage-a');
  await nameInput.fill('manage-a-renamed');
  await nameInput.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'manage-a-renamed' })).toBeVisible();
  expect((await getRun(request, id)).info.run_name).toBe('manage-a-renamed');
  // Escape cancels an edit.
  await page.getByRole('button', { name: 'Rename run' }).click();
  await page.getByRole('textbox', { name: 'Run name' }).fill('not-saved');
  await page.getByRole('textbox', { name: 'Run name' }).press('Escape');
  await expect(page.getByRole('heading', { level: 1, name: 'manage-a-renamed' })).toBeVisible();

  // The description: Markdown with an HTML payload and a javascript: link.
  const desc = page.getByRole('region', { name: 'Description' });
  await desc.getByRole('button', { name: 'Add description' }).click();
  const text = [
    'This run is **important**.',
    '',
    '<img src=x onerror="window.__xss = 1">',
    '',
    '[click](javascript:window.__xss=2) and [docs](https://mlflow.org/docs)',
  ].join('\n');
  await desc.getByRole('textbox', { name: 'Description (Markdown)' }).fill(text);
  await desc.getByRole('button', { name: 'Save description' }).click();
  const checkRendered = async () => {
    const md = page.locator('.description-card .markdown');
    await expect(md.locator('strong')).toHaveText('important');
    await expect(md).toContainText('<img src=x onerror="window.__xss = 1">');
    await expect(md.locator('img, script')).toHaveCount(0);
    await expect(md.getByRole('link', { name: 'docs' })).toHaveAttribute('href', 'https://mlflow.org/docs');
    await expect(md.getByRole('link', { name: 'click' })).toHaveCount(0);
    expect(await page.evaluate(() => window.__xss)).toBeUndefined();
  };
  await checkRendered();
  // Stored as the run's mlflow.note.content tag; rendered the same after a reload.
  const tags = (await getRun(request, id)).data.tags;
  expect(tags.find((t) => t.key === 'mlflow.note.content').value).toBe(text);
  await page.reload();
  await checkRendered();
  // Not listed again as a raw system tag.
  await expect(page.getByRole('region', { name: 'System tags' })).not.toContainText('mlflow.note.content');
});

test('add, edit and delete tags; system tags are read-only', async ({ page, request }) => {
  const { runs } = await setup(request, 'tags');
  const id = runs['manage-b'];
  await page.goto(`/runs/${id}`);
  const tags = page.getByRole('region', { name: 'Tags', exact: true });
  const system = page.getByRole('region', { name: 'System tags' });
  await expect(tagRow(page, 'stage')).toContainText('dev');
  await expect(system).toContainText('mlflow.source.name');
  await expect(system.getByRole('button')).toHaveCount(0);
  await expect(tags).not.toContainText('mlflow.source.name');

  await tags.getByRole('textbox', { name: 'New tag key' }).fill('owner');
  await tags.getByRole('textbox', { name: 'New tag value' }).fill('alice');
  await tags.getByRole('button', { name: 'Add tag' }).click();
  await expect(tagRow(page, 'owner')).toContainText('alice');

  await tags.getByRole('button', { name: 'Edit tag stage' }).click();
  const value = tags.getByRole('textbox', { name: 'Value of stage' });
  await value.fill('prod');
  await value.press('Enter');
  await expect(tagRow(page, 'stage')).toContainText('prod');

  await tags.getByRole('button', { name: 'Delete tag owner' }).click();
  await expect(tagRow(page, 'owner')).toHaveCount(0);

  await page.reload();
  await expect(tagRow(page, 'stage')).toContainText('prod');
  await expect(tagRow(page, 'owner')).toHaveCount(0);
  const stored = Object.fromEntries((await getRun(request, id)).data.tags.map((t) => [t.key, t.value]));
  expect(stored.stage).toBe('prod');
  expect(stored.owner).toBeUndefined();
});

test('delete a run after confirming, then restore it from the banner', async ({ page, request }) => {
  const { runs } = await setup(request, 'delete');
  const id = runs['manage-a'];
  await page.goto(`/runs/${id}`);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete run' });
  await expect(dialog).toContainText('manage-a');
  // Cancel keeps the run.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  expect((await getRun(request, id)).info.lifecycle_stage).toBe('active');

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.getByRole('button', { name: 'Delete run' }).click();
  await expect(dialog).toHaveCount(0);
  const banner = page.getByRole('status').filter({ hasText: 'This run is deleted.' });
  await expect(banner).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete', exact: true })).toHaveCount(0);
  expect((await getRun(request, id)).info.lifecycle_stage).toBe('deleted');

  // A reload shows the banner from the server's state.
  await page.reload();
  await expect(banner).toBeVisible();
  await banner.getByRole('button', { name: 'Restore' }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Delete', exact: true })).toBeVisible();
  expect((await getRun(request, id)).info.lifecycle_stage).toBe('active');
});

test('rename and describe an experiment; a refused rename shows MLflow\'s message', async ({ allowConsole, page, request }) => {
  allowConsole(/status of 400 \(Bad Request\) \(http[^)]*\/ajax-api\/2\.0\/mlflow\/experiments\/update\)/);
  const { name, experimentId } = await setup(request, 'exp');
  await page.goto(`/experiments/${experimentId}`);
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();

  // A name already taken: the server's message, not a bare HTTP status.
  await page.getByRole('button', { name: 'Rename experiment' }).click();
  const input = page.getByRole('textbox', { name: 'Experiment name' });
  await input.fill('/Users/alice/e2e-demo');
  await input.press('Enter');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText(/already exists/i);
  await expect(alert).not.toContainText('HTTP');

  const renamed = `${name}-renamed`;
  await input.fill(renamed);
  await input.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: renamed })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);

  await page.getByRole('button', { name: 'Add description' }).click();
  await page.getByRole('textbox', { name: 'Description (Markdown)' }).fill('Sweep over **lr**.');
  await page.getByRole('button', { name: 'Save description' }).click();
  await expect(page.locator('.description-block .markdown strong')).toHaveText('lr');

  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: renamed })).toBeVisible();
  await expect(page.locator('.description-block .markdown strong')).toHaveText('lr');
});

test('a reader sees runs and experiments without edit controls', async ({ browser, baseURL, request }) => {
  const { experimentId, runs } = await setup(request, 'reader');
  await mlflow(request, 'users/permissions/grant', {
    resource_type: 'experiment',
    resource_id: experimentId,
    username: 'bob',
    permission: 'READ',
  }, '3.0');
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signInByApi(page.request, USERS.bob);

  await page.goto(`/runs/${runs['manage-a']}`);
  await expect(page.getByRole('heading', { level: 1, name: 'manage-a' })).toBeVisible();
  await expect(tagRow(page, 'stage')).toContainText('dev');
  for (const name of ['Rename run', 'Delete', 'Add description', 'Edit tag stage', 'Delete tag stage', 'Add tag']) {
    await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  }
  await expect(page.getByRole('textbox', { name: 'New tag key' })).toHaveCount(0);

  await page.goto(`/experiments/${experimentId}`);
  await expect(page.getByRole('tab', { name: 'Runs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Rename experiment' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Add description' })).toHaveCount(0);
  await context.close();
});
