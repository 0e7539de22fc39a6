// Compatibility and polish: MLflow's hash links open the same view, a signed-in
// user skips /signin, view changes are history entries (Back undoes a sort), the pages
// fit a 390-px phone, experiments can be created, and a run that is logging updates its
// run page live.
import { test, expect } from './fixtures.mjs';
import { overflow } from '../overflow.mjs';

/** MLflow writes through `/ajax-api/` as the page's signed-in user (cookie + CSRF header). */
async function mlflow(request) {
  const me = await (await request.get('/api/v1/session')).json();
  return async (endpoint, data) => {
    const r = await request.post(`/ajax-api/2.0/mlflow/${endpoint}`, { data, headers: { 'X-CSRF-Token': me.csrf_token } });
    expect(r.ok(), `${endpoint}: ${await r.text()}`).toBeTruthy();
    return r.json();
  };
}

/** A new experiment of its own, so that the runs a test adds leave the shared seed as it was. */
async function newExperiment(post, name) {
  const { experiment_id } = await post('experiments/create', { name: `${name}-${Date.now()}` });
  return experiment_id;
}

/** The number of points a chart drew. */
async function drawnPoints(page, key) {
  const canvas = page.getByTestId(`chart-${key}`);
  await expect(canvas).toHaveAttribute('data-status', 'drawn');
  return Number(await canvas.getAttribute('data-points'));
}

test.describe('MLflow hash links', () => {
  test('the link the mlflow client prints opens the run', async ({ page, seed, baseURL }) => {
    const run = seed.runs.baseline;
    // "View run baseline at: http://host/#/experiments/1/runs/<id>"
    await page.goto(`${baseURL}/#/experiments/${seed.experiment_id}/runs/${run}`);
    await expect(page).toHaveURL(new RegExp(`/runs/${run}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'baseline' })).toBeVisible();
    // Back does not return to the hash form (it was replaced, not pushed).
    expect(await page.evaluate(() => window.location.hash)).toBe('');
  });

  test('a run tab, an experiment, a metric and a compare link open their views', async ({ page, seed }) => {
    const exp = seed.experiment_id;
    const [a, b, c] = ['baseline', 'adam-0.001', 'sweep-lr-0.01'].map((n) => seed.runs[n]);
    await page.goto(`/#/experiments/${exp}/runs/${a}/model-metrics`);
    await expect(page).toHaveURL(new RegExp(`/runs/${a}\\?tab=metrics$`));
    await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-status', 'drawn');

    await page.goto(`/#/experiments/${exp}`);
    await expect(page).toHaveURL(new RegExp(`/experiments/${exp}$`));
    await expect(page.getByRole('link', { name: 'baseline', exact: true })).toBeVisible();

    const runs = encodeURIComponent(JSON.stringify([a, b, c]));
    const exps = encodeURIComponent(JSON.stringify([String(exp)]));
    await page.goto(`/#/metric/loss?runs=${runs}&experiments=${exps}&plot_metric_keys=%5B%22loss%22%5D`);
    await expect(page).toHaveURL(new RegExp(`/experiments/${exp}\\?view=charts&sel=${a},${b},${c}&q=loss$`));

    await page.goto(`/#/compare-runs?runs=${runs}&experiments=${exps}`);
    await expect(page).toHaveURL(new RegExp(`/experiments/${exp}\\?view=compare&sel=${a},${b},${c}$`));
  });

  test('pasting a link over the open app (only the hash changes) also opens the run', async ({ page, seed }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Experiments' })).toBeVisible();
    const run = seed.runs['spiky-run'];
    await page.evaluate((h) => {
      window.location.hash = h;
    }, `#/experiments/${seed.experiment_id}/runs/${run}`);
    await expect(page).toHaveURL(new RegExp(`/runs/${run}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'spiky-run' })).toBeVisible();
  });

  test('a plain fragment is left alone', async ({ page }) => {
    await page.goto('/settings#tokens');
    await expect(page).toHaveURL(/\/settings#tokens$/);
  });
});

test.describe('signed in', () => {
  test('/signin goes straight to next, without the form', async ({ page, seed }) => {
    await page.goto(`/signin?next=/experiments/${seed.experiment_id}`);
    await expect(page).toHaveURL(new RegExp(`/experiments/${seed.experiment_id}$`));
    await expect(page.getByRole('link', { name: 'baseline', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign in' })).toHaveCount(0);
    // Without next: the start page.
    await page.goto('/signin');
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Experiments' })).toBeVisible();
  });
});

test.describe('signed out', () => {
  test.use({ user: null });
  test('/signin still shows the form', async ({ allowConsole, page }) => {
    allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/);
    await page.goto('/signin?next=/settings');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(page).toHaveURL(/\/signin\?next=/);
  });
});

test('Back after a sort change restores the previous sort', async ({ page }) => {
  await page.goto('/');
  const name = page.getByRole('columnheader', { name: /Name/ });
  await expect(page.getByRole('columnheader', { name: /Last update/ })).toHaveAttribute('aria-sort', 'descending');
  await name.getByRole('button').click();
  await expect(name).toHaveAttribute('aria-sort', 'ascending');
  await expect(page).toHaveURL(/sort=name/);
  await name.getByRole('button').click();
  await expect(name).toHaveAttribute('aria-sort', 'descending');
  await page.goBack();
  await expect(name).toHaveAttribute('aria-sort', 'ascending');
  await expect(page).toHaveURL(/sort=name&desc=false/);
  await page.goBack();
  await expect(page).not.toHaveURL(/sort=/);
  await expect(page.getByRole('columnheader', { name: /Last update/ })).toHaveAttribute('aria-sort', 'descending');
  // Forward redoes it.
  await page.goForward();
  await expect(name).toHaveAttribute('aria-sort', 'ascending');
});

test.describe('390 px wide', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('no page is wider than the screen', async ({ page, seed }) => {
    // A run with long unbroken values (a data path, a source file, a long tag).
    const post = await mlflow(page.request);
    const longExp = await newExperiment(post, 'polish-phone');
    const { run: long } = await post('runs/create', { experiment_id: longExp, run_name: 'polish-long-values', start_time: Date.now() });
    await post('runs/log-batch', {
      run_id: long.info.run_id,
      params: [
        { key: 'data_path', value: `s3://bucket/${'very-long-directory-name/'.repeat(8)}train.parquet` },
        { key: 'a_rather_long_parameter_name_for_the_layout_of_a_phone', value: '0.001' },
      ],
      tags: [
        { key: 'mlflow.source.name', value: `/home/alice/${'project/'.repeat(10)}train.py` },
        { key: 'note', value: 'x'.repeat(150) },
      ],
      metrics: [{ key: 'a_metric_with_a_rather_long_name_for_a_phone_screen', value: 80_812.5, timestamp: Date.now(), step: 0 }],
    });
    await post('runs/update', { run_id: long.info.run_id, status: 'FINISHED', end_time: Date.now() });
    const exp = `/experiments/${seed.experiment_id}`;
    const sel = ['baseline', 'adam-0.001', 'sweep-lr-0.01'].map((n) => seed.runs[n]).join(',');
    const run = `/runs/${seed.runs.baseline}`;
    const pages = [
      '/',
      exp,
      `/experiments/${longExp}`,
      `${exp}?view=charts&sel=${sel}`,
      `${exp}?view=compare&sel=${sel}`,
      run,
      `${run}?tab=metrics`,
      `${run}?tab=system`,
      `${run}?tab=logs`,
      `${run}?tab=artifacts`,
      `/runs/${seed.runs.sweep}`,
      `/runs/${seed.runs['sweep-lr-0.1']}`,
      `/runs/${long.info.run_id}`,
      `/runs/${long.info.run_id}?tab=metrics`,
      '/models',
      '/settings',
    ];
    for (const path of pages) {
      await page.goto(path);
      await expect(page.locator('main h1').first()).toBeVisible();
      await expect(page.locator('.state-loading')).toHaveCount(0);
      await page.waitForTimeout(300);
      const o = await overflow(page);
      expect(o.scrollWidth, `${path}: ${o.wide.join(', ')}`).toBeLessThanOrEqual(o.viewport);
      expect(o.wide, path).toEqual([]);
    }
  });

  test('experiment names stay inside their column', async ({ page }) => {
    await page.goto('/');
    const link = page.locator('a.exp-link', { hasText: 'e2e-demo' });
    await expect(link).toBeVisible();
    const cell = await link.locator('xpath=ancestor::td').boundingBox();
    const box = await link.boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(cell.x + cell.width + 0.5);
  });
});

test('New experiment creates one and opens it; a taken name is refused inline', async ({ allowConsole, page }) => {
  allowConsole(/status of 400 \(Bad Request\) \(http[^)]*\/ajax-api\/2\.0\/mlflow\/experiments\/create\)/);
  const name = `/Users/alice/polish-new-${Date.now()}`;
  await page.goto('/');
  await page.getByRole('button', { name: 'New experiment' }).click();
  await page.getByRole('textbox', { name: 'Experiment name' }).fill(name);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(/\/experiments\/\d+$/);
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();

  await page.goto('/');
  await page.getByRole('button', { name: 'New experiment' }).click();
  await page.getByRole('textbox', { name: 'Experiment name' }).fill(name);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('already exists');
  await expect(page).toHaveURL(/\/$/);
});

test('a run logging in the background updates its run page within 2 s, and the page stays live once it finishes', async ({ page }) => {
  const post = await mlflow(page.request);
  const t0 = Date.now();
  const exp = await newExperiment(post, 'polish-live');
  const { run } = await post('runs/create', { experiment_id: exp, run_name: 'polish-live', start_time: t0 });
  const id = run.info.run_id;
  const batch = (from, n) =>
    Array.from({ length: n }, (_, i) => ({ key: 'live_loss', value: 1 / (from + i + 1), timestamp: Date.now(), step: from + i }));
  await post('runs/log-batch', { run_id: id, metrics: batch(0, 10) });

  await page.goto(`/runs/${id}?tab=metrics`);
  await expect(page.getByTestId('run-live')).toBeVisible();
  await expect.poll(() => drawnPoints(page, 'live_loss')).toBe(10);

  // New points appear in the open chart within 2 s, without a reload.
  await post('runs/log-batch', { run_id: id, metrics: batch(10, 5) });
  await expect.poll(() => drawnPoints(page, 'live_loss'), { timeout: 2_000, intervals: [100] }).toBe(15);
  await expect(page.getByTestId('run-live')).toContainText(/Live · updated \d\d:\d\d:\d\d/);

  // A key logged for the first time gets its chart.
  await post('runs/log-batch', { run_id: id, metrics: [{ key: 'live_acc', value: 0.5, timestamp: Date.now(), step: 0 }] });
  await expect(page.getByTestId('chart-live_acc')).toHaveAttribute('data-status', 'drawn', { timeout: 2_000 });

  // Finished: the header says so and the page still follows the run.
  await post('runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
  await expect(page.locator('.title-row .badge')).toHaveText('Finished', { timeout: 2_000 });
  await expect(page.getByTestId('run-live')).toHaveAttribute('data-state', 'live');
  await post('runs/update', { run_id: id, run_name: 'polish-live-renamed' });
  await expect(page.getByRole('heading', { level: 1 })).toContainText('polish-live-renamed', { timeout: 2_000 });
});
