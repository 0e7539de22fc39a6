// The experiment's chart view draws a metric that every shown run logged once (a final
// `test_accuracy`) as bars: one per run in its legend colour, from zero, the run's name
// under it, and a tooltip with the run's name and exact value; a metric some runs logged
// at many steps stays a line chart. Readable at 390 px (with RUNLENS_SHOTS=<dir>,
// screenshots at 1440 and 390 px, light and dark).
//
// The data is logged here through the MLflow REST API as alice (her seeding token), in an
// experiment of its own.
import { test, expect } from './fixtures.mjs';
import { axisLabels, canvasSummary, recordCanvasText, rgb } from './charts.mjs';
import { overflow } from '../overflow.mjs';

const EXPERIMENT = '/Users/alice/e2e-workspace-bars';
const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
const COLORS = { 'bars-adam': 'e15759', 'bars-sgd': '59a14f', 'bars-adamw-long-name-warmup': '4e79a7' };
const ACCURACY = { 'bars-adam': 0.91372, 'bars-sgd': 0.8254, 'bars-adamw-long-name-warmup': 0.95018 };

let api;
let setup;

async function mlflow(path, data) {
  const r = await api.post(`/api/2.0/mlflow/${path}`, { data });
  expect(r.ok(), `${path}: ${await r.text()}`).toBeTruthy();
  return r.json();
}

test.beforeAll(async ({ playwright, baseURL }) => {
  api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${aliceToken()}` } });
  // Get or create: after a failed test Playwright runs beforeAll again on the same server.
  const found = await api.get('/api/2.0/mlflow/experiments/get-by-name', { params: { experiment_name: EXPERIMENT } });
  let experimentId = found.ok() ? (await found.json()).experiment.experiment_id : null;
  if (!experimentId) {
    experimentId = (await mlflow('experiments/create', { name: EXPERIMENT })).experiment_id;
    const t0 = Date.now() - 600_000;
    for (const [i, name] of Object.keys(COLORS).entries()) {
      const { run } = await mlflow('runs/create', { experiment_id: experimentId, run_name: name, start_time: t0 });
      const id = run.info.run_id;
      const metrics = [{ key: 'test_accuracy', value: ACCURACY[name], timestamp: t0 + 50_000, step: 100 }];
      // `loss` at 100 steps in every run; `mixed` at 100 steps in the first, once in the others.
      for (let s = 0; s < 100; s++) metrics.push({ key: 'loss', value: 2 / (1 + s / 10) + i / 10, timestamp: t0 + s * 100, step: s });
      if (i === 0) for (let s = 0; s < 100; s++) metrics.push({ key: 'mixed', value: s / 100, timestamp: t0 + s * 100, step: s });
      else metrics.push({ key: 'mixed', value: 0.5, timestamp: t0 + 50_000, step: 100 });
      await mlflow('runs/log-batch', { run_id: id, metrics });
      await mlflow('runs/update', { run_id: id, status: 'FINISHED', end_time: t0 + 60_000 });
    }
  }
  const search = await mlflow('runs/search', { experiment_ids: [experimentId], max_results: 10 });
  const runs = Object.fromEntries(search.runs.map((r) => [r.info.run_name, r.info.run_id]));
  setup = { experimentId, runs };
});

test.afterAll(async () => {
  await api?.dispose();
});

const chart = (page, key) => page.getByTestId(`chart-${key}`);
const panel = (page, key) => page.locator(`.wchart[data-key="${key}"]`);

function barsLink() {
  const names = Object.keys(COLORS);
  const colors = names.map((n) => `&color=${setup.runs[n]}:${COLORS[n]}`).join('');
  return `/experiments/${setup.experimentId}?view=charts&sel=${names.map((n) => setup.runs[n]).join(',')}${colors}`;
}

/** Asserts the bars panel of `key` drew a bar per run in the runs' colours. */
async function expectBars(page, key) {
  const c = chart(page, key);
  // Panels fetch once on screen; `test_accuracy` comes after `loss` and `mixed`.
  await c.scrollIntoViewIfNeeded();
  await expect(c).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(panel(page, key)).toHaveAttribute('data-kind', 'bars');
  await expect(c).toHaveAttribute('data-kind', 'bars');
  await expect(c).toHaveAttribute('data-lines', '3');
  expect((await c.getAttribute('data-colors')).split(',')).toEqual(Object.values(COLORS).map((h) => `#${h}`));
  const want = Object.fromEntries(Object.values(COLORS).map((h) => [h, rgb(`#${h}`)]));
  // Bars are filled: each colour covers a block of pixels.
  await expect
    .poll(async () => {
      const { colours } = await canvasSummary(c, want, 30);
      return Object.values(COLORS).filter((h) => colours[h].count < 400);
    }, { message: 'every run colour fills a bar' })
    .toEqual([]);
  return c;
}

test('a metric each run logged once is drawn as bars with the runs\' names, colours and exact values', async ({ page }) => {
  test.setTimeout(90_000);
  await recordCanvasText(page);
  await page.goto(barsLink());
  const acc = await expectBars(page, 'test_accuracy');

  // The value axis starts at 0; the run names sit under the bars, the long one cut short.
  const labels = await axisLabels(acc);
  expect(labels.y.at(-1).value).toBe(0);
  expect(labels.y[0].value).toBeGreaterThanOrEqual(0.5);
  const names = labels.x.map((l) => l.text);
  expect(names.slice(0, 2)).toEqual(['bars-adam', 'bars-sgd']);
  expect(names[2].startsWith('bars-adamw') || names[2].endsWith('…')).toBeTruthy();

  // Hovering a bar: its run and exact value (not rounded), and no crosshair elsewhere.
  const box = await acc.boundingBox();
  const info = await acc.evaluate((el) => ({ w: el.clientWidth }));
  const tooltip = page.getByRole('tooltip');
  // The plot starts 60 px in and ends 16 px before the edge: three equal slots.
  const slot = (info.w - 76) / 3;
  for (const [i, name] of Object.keys(COLORS).entries()) {
    await page.mouse.move(box.x + 60 + slot * (i + 0.5), box.y + box.height * 0.6);
    await expect(tooltip).toHaveCount(1);
    await expect(tooltip.locator('.tt-name')).toHaveText(name);
    await expect(tooltip.locator('.mono')).toHaveText(String(ACCURACY[name]));
  }
  await expect(page.locator('.chart-crosshair')).toHaveCount(0);
  // A drag on bars zooms nothing.
  await page.mouse.down();
  await page.mouse.move(box.x + 80, box.y + box.height * 0.6, { steps: 5 });
  await page.mouse.up();
  expect(new URL(page.url()).searchParams.get('zoom')).toBeNull();
  await page.mouse.move(box.x - 40, box.y - 40);
  await expect(tooltip).toHaveCount(0);

  // Metrics logged at many steps (by every run, or by one of them) stay line charts.
  for (const key of ['loss', 'mixed']) {
    await chart(page, key).scrollIntoViewIfNeeded();
    await expect(chart(page, key)).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
    await expect(panel(page, key)).toHaveAttribute('data-kind', 'lines');
    await expect(chart(page, key)).toHaveAttribute('data-lines', '3');
  }

  // Hiding a run in the legend drops its bar.
  await page.getByRole('list', { name: 'Runs' }).getByRole('button', { name: 'bars-sgd' }).click();
  await expect(acc).toHaveAttribute('data-lines', '2');
  await expect(acc).toHaveAttribute('data-kind', 'bars');
});

test('bars read at 390 px without overflow', async ({ page }) => {
  await recordCanvasText(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(barsLink());
  const acc = await expectBars(page, 'test_accuracy');
  // Every name fits its slot (cut with … where needed).
  const { x } = await axisLabels(acc);
  expect(x).toHaveLength(3);
  const o = await overflow(page);
  expect(o.scrollWidth, JSON.stringify(o)).toBeLessThanOrEqual(o.viewport);
  const shots = process.env.RUNLENS_SHOTS;
  if (shots) {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 1400 : 1000 });
        await page.goto(barsLink());
        const c = await expectBars(page, 'test_accuracy');
        await expect(chart(page, 'loss')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
        const b = await c.boundingBox();
        const w = await c.evaluate((el) => el.clientWidth);
        await page.mouse.move(b.x + 60 + ((w - 76) / 3) * 0.5, b.y + b.height * 0.6);
        await page.screenshot({ path: `${shots}/charts-bars-${width}-${scheme}.png`, fullPage: true });
      }
    }
  }
});
