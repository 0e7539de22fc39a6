// The experiment's chart view: three selected runs overlaid in their colours, one
// panel per metric; crosshair and zoom shared by every panel; group by a param (mean line,
// min–max band); x = another metric; a copied link opened by a teammate with read access
// reproduces selection, colours, grouping and zoom; runs ticked in the table are overlaid;
// twenty selected runs get twenty distinct colours, given by their places in the selection,
// alike in legend, lines, tooltip and compare view; only panels on screen fetch, one request
// each for all runs; a RUNNING run's new points appear within 2 s and stop once it
// finishes; the empty state's "Select top 5"; no horizontal overflow at 390 px (with
// RUNLENS_SHOTS=<dir>, screenshots of the view at 1440 and 390 px, light and dark, grouped
// and not, and with twenty runs).
//
// The data is logged here through the MLflow REST API as alice (her seeding token), in
// experiments of their own, so the curves and params are known.
import { test, expect, USERS, signInByApi } from './fixtures.mjs';
import { canvasSummary, rgb } from './charts.mjs';
import { overflow } from '../overflow.mjs';

const EXPERIMENT = '/Users/alice/e2e-workspace-charts';
const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
// Explicit colours (the `color=` key), distinct from each other and from the chart's greys.
const COLORS = { 'wc-a': 'e15759', 'wc-b': '59a14f', 'wc-c': '4e79a7' };

let api;
let setup;

async function mlflow(path, data) {
  const r = await api.post(`/api/2.0/mlflow/${path}`, { data });
  expect(r.ok(), `${path}: ${await r.text()}`).toBeTruthy();
  return r.json();
}

/** Logs `n` points of `key` from `from` on, value `f(step)`. */
async function logCurve(runId, key, from, n, f, t0) {
  const metrics = [];
  for (let s = from; s < from + n; s++) metrics.push({ key, value: f(s), timestamp: t0 + s * 100, step: s });
  for (let i = 0; i < metrics.length; i += 900) await mlflow('runs/log-batch', { run_id: runId, metrics: metrics.slice(i, i + 900) });
}

async function createRun(experimentId, name, opt, t0) {
  const { run } = await mlflow('runs/create', { experiment_id: experimentId, run_name: name, start_time: t0 });
  const id = run.info.run_id;
  await mlflow('runs/log-batch', { run_id: id, params: [{ key: 'opt', value: opt }] });
  return id;
}

test.beforeAll(async ({ playwright, baseURL }) => {
  api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${aliceToken()}` } });
  // Get or create: after a failed test Playwright runs beforeAll again on the same server.
  const found = await api.get('/api/2.0/mlflow/experiments/get-by-name', { params: { experiment_name: EXPERIMENT } });
  let experimentId = found.ok() ? (await found.json()).experiment.experiment_id : null;
  const t0 = Date.now() - 3_600_000;
  const runs = {};
  if (!experimentId) {
    experimentId = (await mlflow('experiments/create', { name: EXPERIMENT })).experiment_id;
    const specs = [
      ['wc-a', 'adam', (s) => 2 * Math.exp(-s / 50) + 0.1],
      ['wc-b', 'adam', (s) => 1.5 * Math.exp(-s / 30) + 0.3],
      ['wc-c', 'sgd', (s) => 2.5 - s / 150],
    ];
    for (const [name, opt, f] of specs) {
      const id = await createRun(experimentId, name, opt, t0);
      await logCurve(id, 'loss', 0, 300, f, t0);
      await logCurve(id, 'acc', 0, 300, (s) => 1 - f(s) / 3, t0);
      // A metric only wc-a logs.
      if (name === 'wc-a') await logCurve(id, 'only_a', 0, 300, (s) => s / 300, t0);
      await mlflow('runs/update', { run_id: id, status: 'FINISHED', end_time: t0 + 40_000 });
    }
  }
  const search = await mlflow('runs/search', { experiment_ids: [experimentId], max_results: 100 });
  for (const r of search.runs) runs[r.info.run_name] = r.info.run_id;
  // bob may read the experiment.
  const granted = await api.put(`/api/v1/experiments/${experimentId}/access`, {
    data: { principal: { kind: 'user', name: 'bob' }, level: 'CAN_READ' },
  });
  expect(granted.ok(), await granted.text()).toBe(true);
  setup = { experimentId, runs, t0 };
});

test.afterAll(async () => {
  await api?.dispose();
});

const chart = (page, key) => page.getByTestId(`chart-${key}`);

/** The chart view of the three runs, with their colours, as a URL path. */
function chartsLink() {
  const ids = ['wc-a', 'wc-b', 'wc-c'].map((n) => setup.runs[n]);
  const colors = ['wc-a', 'wc-b', 'wc-c'].map((n) => `&color=${setup.runs[n]}:${COLORS[n]}`).join('');
  return `/experiments/${setup.experimentId}?view=charts&sel=${ids.join(',')}${colors}`;
}

/** Asserts `locator` drew `n` lines in exactly `colors` (hex without #), each visible. */
async function expectLines(locator, colors) {
  await expect(locator).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(locator).toHaveAttribute('data-lines', String(colors.length));
  const drawn = (await locator.getAttribute('data-colors')).split(',');
  expect([...drawn].sort()).toEqual(colors.map((c) => `#${c}`).sort());
  const want = Object.fromEntries(colors.map((c) => [c, rgb(`#${c}`)]));
  await expect
    .poll(async () => {
      const { colours } = await canvasSummary(locator, want, 30);
      return colors.filter((c) => colours[c].count < 40);
    }, { message: 'every line colour has pixels on the canvas' })
    .toEqual([]);
}

async function xRange(locator) {
  return [Number(await locator.getAttribute('data-x-min')), Number(await locator.getAttribute('data-x-max'))];
}

test('three selected runs overlay in their colours; crosshair, zoom and grouping are shared by every panel and by a copied link', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  await page.goto(chartsLink());
  await expect(page.getByRole('tab', { name: /Charts/ })).toHaveAttribute('aria-selected', 'true');
  const loss = chart(page, 'loss');
  const acc = chart(page, 'acc');
  await expectLines(loss, Object.values(COLORS));
  await expectLines(acc, Object.values(COLORS));
  // The legend names the runs; one request per panel fetched every run.
  const legend = page.getByRole('list', { name: 'Runs' });
  for (const name of ['wc-a', 'wc-b', 'wc-c']) await expect(legend.getByRole('button', { name })).toHaveAttribute('aria-pressed', 'true');

  // A metric only one run logged: its line, and which runs have no data there.
  const onlyA = chart(page, 'only_a');
  await expectLines(onlyA, [COLORS['wc-a']]);
  await expect(page.locator('.wchart', { has: onlyA }).getByText('No data for wc-b, wc-c')).toBeVisible();

  // Hovering one panel draws the crosshair in every one, and its tooltip lists the three runs.
  const box = await loss.boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await expect(page.locator('.chart-crosshair')).toHaveCount(3);
  const tooltip = page.getByRole('tooltip');
  await expect(tooltip).toHaveCount(1);
  for (const name of ['wc-a', 'wc-b', 'wc-c']) await expect(tooltip.getByText(name, { exact: true })).toBeVisible();
  // Highest value first: at step ~150 the loss is 1.5 (wc-c), 0.31 (wc-b), 0.2 (wc-a).
  expect(await tooltip.locator('.tt-name').allTextContents()).toEqual(['wc-c', 'wc-b', 'wc-a']);

  // Dragging on one panel zooms every panel (one `zoom=` in the URL); both refetch.
  await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.up();
  await expect.poll(() => new URL(page.url()).searchParams.get('zoom')).toMatch(/^[\d.]+:[\d.]+$/);
  const [lo, hi] = new URL(page.url()).searchParams.get('zoom').split(':').map(Number);
  expect(lo).toBeGreaterThan(0);
  expect(hi).toBeLessThan(299);
  for (const c of [loss, acc]) {
    await expect.poll(() => xRange(c)).toEqual([lo, hi]);
    // Refetched for the range: fewer than the 3 × 300 points of the whole series.
    await expect.poll(async () => Number(await c.getAttribute('data-points'))).toBeLessThan(600);
  }
  await expect(page.getByRole('button', { name: 'Reset zoom' })).toHaveCount(3);

  // Group by the `opt` param: adam (a, b) and sgd (c), each a mean line with its run count.
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('params.opt');
  await expect.poll(() => new URL(page.url()).searchParams.get('group')).toBe('params.opt');
  await expect(loss).toHaveAttribute('data-lines', '2');
  const groups = page.getByRole('list', { name: 'Groups' });
  await expect(groups.getByText('adam', { exact: true })).toBeVisible();
  await expect(groups.getByText('2 runs')).toBeVisible();
  await expect(groups.getByText('1 run', { exact: true })).toBeVisible();
  const groupColors = (await loss.getAttribute('data-colors')).split(',');

  // bob, who may only read, opens the copied link: same runs, colours, grouping and zoom.
  const link = page.url();
  const context = await browser.newContext({ baseURL });
  const bobPage = await context.newPage();
  await signInByApi(bobPage.request, USERS.bob);
  await bobPage.goto(link);
  const bobLoss = chart(bobPage, 'loss');
  await expect(bobLoss).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(bobLoss).toHaveAttribute('data-lines', '2');
  expect((await bobLoss.getAttribute('data-colors')).split(',')).toEqual(groupColors);
  await expect.poll(() => xRange(bobLoss)).toEqual([lo, hi]);
  await expect(bobPage.getByRole('combobox', { name: 'Group by' })).toHaveValue('params.opt');
  const bobLegend = bobPage.getByRole('list', { name: 'Runs' });
  for (const [name, hex] of Object.entries(COLORS)) {
    await expect(bobLegend.getByRole('button', { name }).locator('.swatch')).toHaveAttribute('style', new RegExp(hex));
  }
  // Ungrouped, bob sees the three runs in their colours, zoomed alike.
  await bobPage.getByRole('combobox', { name: 'Group by' }).selectOption('');
  await expectLines(bobLoss, Object.values(COLORS));
  await expect.poll(() => xRange(bobLoss)).toEqual([lo, hi]);
  await context.close();

  // A legend click hides a run in every panel; double-click resets the zoom.
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('');
  await legend.getByRole('button', { name: 'wc-b' }).click();
  await expect(legend.getByRole('button', { name: 'wc-b' })).toHaveAttribute('aria-pressed', 'false');
  await expectLines(acc, [COLORS['wc-a'], COLORS['wc-c']]);
  await loss.dblclick();
  await expect.poll(() => new URL(page.url()).searchParams.get('zoom')).toBeNull();
  await expect.poll(async () => (await xRange(loss))[1]).toBe(299);

  // Another metric as x: loss against acc (whose values lie in (0, 1)).
  await page.getByRole('combobox', { name: 'X axis' }).selectOption('metric:acc');
  await expect.poll(() => new URL(page.url()).searchParams.get('x_key')).toBe('acc');
  await expect.poll(async () => (await xRange(loss))[1]).toBeLessThan(1);
  await expect(loss).toHaveAttribute('data-lines', '2');
  await page.getByRole('combobox', { name: 'X axis' }).selectOption('step');
  await expect.poll(() => new URL(page.url()).searchParams.get('x_key')).toBeNull();

  // The metric search keeps matching panels only.
  await page.getByRole('searchbox', { name: 'Search metrics' }).fill('acc');
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('acc');
  await expect(loss).toHaveCount(0);
  await expect(acc).toBeVisible();
});

test('a running run logged in the background appears within 2 s, and still does once finished', async ({ page }) => {
  test.setTimeout(120_000);
  const t0 = Date.now() - 60_000;
  const id = await createRun(setup.experimentId, `wc-live-${Date.now()}`, 'adam', t0);
  await logCurve(id, 'loss', 0, 20, (s) => 1 / (s + 1), t0);
  const a = setup.runs['wc-a'];
  await page.goto(`/experiments/${setup.experimentId}?view=charts&sel=${id},${a}&color=${id}:e15759&color=${a}:4e79a7`);
  const loss = chart(page, 'loss');
  await expectLines(loss, ['e15759', '4e79a7']);
  const points = async () => Number(await loss.getAttribute('data-points'));
  const before = await points();
  // The page's stream opens (the run is RUNNING): points logged now are drawn within 2 s.
  await expect(page.locator('.wcharts')).toHaveAttribute('data-live', 'true');
  await logCurve(id, 'loss', 20, 5, (s) => 1 / (s + 1), t0);
  await expect.poll(points, { timeout: 2_000, intervals: [100] }).toBe(before + 5);
  await logCurve(id, 'loss', 25, 3, (s) => 1 / (s + 1), t0);
  await expect.poll(points, { timeout: 2_000, intervals: [100] }).toBe(before + 8);

  // Finished: the view refetches once and stays live; points logged later still arrive.
  await mlflow('runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
  await page.waitForTimeout(1_000);
  await expect(page.locator('.wcharts')).toHaveAttribute('data-live', 'true');
  await expect(loss).toHaveAttribute('data-status', 'drawn');
  const settled = await points();
  await logCurve(id, 'loss', 28, 5, (s) => 1 / (s + 1), Date.now());
  await expect.poll(points, { timeout: 2_000, intervals: [100] }).toBe(settled + 5);
});

test('runs ticked in the runs table are overlaid in the chart view in their colours', async ({ page }) => {
  await page.goto(`/experiments/${setup.experimentId}`);
  for (const name of ['wc-a', 'wc-b', 'wc-c']) await page.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  await expect.poll(() => (new URL(page.url()).searchParams.get('sel') || '').split(',')).toEqual(['wc-a', 'wc-b', 'wc-c'].map((n) => setup.runs[n]));
  await page.getByRole('tab', { name: /Charts/ }).click();
  const loss = chart(page, 'loss');
  await expect(loss).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(loss).toHaveAttribute('data-lines', '3');
  // Each line has its run's colour, as the legend shows it (default colours come from the
  // runs' places in the selection, so no two are alike).
  const legend = page.getByRole('list', { name: 'Runs' });
  const legendColors = [];
  for (const name of ['wc-a', 'wc-b', 'wc-c']) {
    const style = await legend.getByRole('button', { name }).locator('.swatch').getAttribute('style');
    legendColors.push(/#[0-9a-f]{6}/.exec(style)[0]);
  }
  expect(new Set(legendColors).size, legendColors.join(' ')).toBe(3);
  expect((await loss.getAttribute('data-colors')).split(',')).toEqual(legendColors);
  await expectLines(loss, legendColors.map((c) => c.slice(1)));
});

/** The `#rrggbb` of each `.swatch` under `locator`, in order. */
async function swatchColors(locator) {
  const styles = await locator.locator('.swatch').evaluateAll((els) => els.map((e) => e.getAttribute('style')));
  return styles.map((s) => /#[0-9a-f]{6}/.exec(s)?.[0] ?? s);
}

test('twenty selected runs get twenty distinct colours, by their places in the selection, in legend, lines, tooltip and compare', async ({ page }) => {
  test.setTimeout(180_000);
  const name = `${EXPERIMENT}-twenty`;
  const found = await api.get('/api/2.0/mlflow/experiments/get-by-name', { params: { experiment_name: name } });
  let experimentId = found.ok() ? (await found.json()).experiment.experiment_id : null;
  if (!experimentId) {
    experimentId = (await mlflow('experiments/create', { name })).experiment_id;
    const t0 = Date.now() - 600_000;
    for (let k = 0; k < 20; k++) {
      const run = `tw-${String(k + 1).padStart(2, '0')}`;
      const id = await createRun(experimentId, run, k % 2 ? 'adam' : 'sgd', t0 + k);
      await logCurve(id, 'loss', 0, 60, (s) => 2 * Math.exp(-s / (8 + 3 * k)) + 0.05 * k, t0);
      await mlflow('runs/update', { run_id: id, status: 'FINISHED', end_time: t0 + 10_000 });
    }
  }
  const { runs } = await mlflow('runs/search', { experiment_ids: [experimentId], max_results: 100 });
  const byName = Object.fromEntries(runs.map((r) => [r.info.run_name, r.info.run_id]));
  const names = Object.keys(byName).sort();
  const ids = names.map((n) => byName[n]);
  expect(ids).toHaveLength(20);
  const link = (view, sel) => `/experiments/${experimentId}?view=${view}&sel=${sel.join(',')}`;
  const legend = page.getByRole('list', { name: 'Runs' });
  const loss = chart(page, 'loss');

  await page.goto(link('charts', ids));
  await expect(loss).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(loss).toHaveAttribute('data-lines', '20');
  await expect(legend.getByRole('button')).toHaveText(names);
  const colors = await swatchColors(legend);
  expect(new Set(colors).size, colors.join(' ')).toBe(20);
  // The lines and the tooltip use the legend's colours.
  expect((await loss.getAttribute('data-colors')).split(',')).toEqual(colors);
  const box = await loss.boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
  const tooltip = page.getByRole('tooltip');
  await expect(tooltip.locator('.swatch')).toHaveCount(20);
  expect((await swatchColors(tooltip)).sort()).toEqual([...colors].sort());

  // The same runs selected in the opposite order: the colours go with the places.
  await page.goto(link('charts', [...ids].reverse()));
  await expect(loss).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(legend.getByRole('button')).toHaveText([...names].reverse());
  expect(await swatchColors(legend)).toEqual(colors);

  // The compare view's columns, in selection order, have the same colours.
  await page.goto(link('compare', ids));
  const heads = page.getByTestId('diff-table').locator('thead th.diff-run');
  await expect(heads).toHaveText(names);
  expect(await swatchColors(heads)).toEqual(colors);

  const shots = process.env.RUNLENS_SHOTS;
  if (shots) {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 1400 : 1000 });
        await page.goto(link('charts', ids));
        await expect(loss).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
        const b = await loss.boundingBox();
        await page.mouse.move(b.x + b.width * 0.3, b.y + b.height * 0.4);
        await page.screenshot({ path: `${shots}/charts-twenty-${width}-${scheme}.png`, fullPage: true });
      }
    }
  }
});

test('only panels on screen fetch, each in one request for all its runs', async ({ page }) => {
  test.setTimeout(90_000);
  const name = `${EXPERIMENT}-many`;
  const found = await api.get('/api/2.0/mlflow/experiments/get-by-name', { params: { experiment_name: name } });
  let experimentId = found.ok() ? (await found.json()).experiment.experiment_id : null;
  const keys = Array.from({ length: 16 }, (_, i) => `m${String(i).padStart(2, '0')}`);
  const ids = [];
  if (!experimentId) {
    experimentId = (await mlflow('experiments/create', { name })).experiment_id;
    const t0 = Date.now() - 600_000;
    for (const run of ['many-1', 'many-2']) {
      const id = await createRun(experimentId, run, 'adam', t0);
      const metrics = keys.flatMap((key, k) => Array.from({ length: 20 }, (_, s) => ({ key, value: k + Math.sin(s), timestamp: t0 + s, step: s })));
      await mlflow('runs/log-batch', { run_id: id, metrics });
      await mlflow('runs/update', { run_id: id, status: 'FINISHED', end_time: t0 + 1000 });
    }
  }
  const search = await mlflow('runs/search', { experiment_ids: [experimentId], max_results: 10 });
  for (const r of search.runs) ids.push(r.info.run_id);
  const requests = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === `/api/v1/experiments/${experimentId}/series`) requests.push(u.searchParams);
  });
  await page.goto(`/experiments/${experimentId}?view=charts&sel=${ids.join(',')}`);
  await expect(chart(page, 'm00')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(chart(page, 'm00')).toHaveAttribute('data-lines', '2');
  await page.waitForTimeout(1_000);
  const first = requests.length;
  expect(first, 'panels far below the screen have not fetched').toBeLessThan(keys.length);
  for (const q of requests) {
    expect(q.getAll('key')).toHaveLength(1);
    expect(q.getAll('run').sort()).toEqual([...ids].sort());
    expect(Number(q.get('width'))).toBeGreaterThan(100);
  }
  await expect(chart(page, 'm15')).toHaveAttribute('data-status', 'loading');
  await chart(page, 'm15').scrollIntoViewIfNeeded();
  await expect(chart(page, 'm15')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  expect(requests.length).toBeGreaterThan(first);
});

test('no run selected: the empty state selects the top 5 by the current sort', async ({ page }) => {
  const { runs } = await mlflow('runs/search', { experiment_ids: [setup.experimentId], max_results: 100, order_by: ['attributes.start_time DESC'] });
  await page.goto(`/experiments/${setup.experimentId}?view=charts`);
  await expect(page.getByText('No runs selected')).toBeVisible();
  await page.getByRole('button', { name: 'Select top 5' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBeTruthy();
  const sel = new URL(page.url()).searchParams.get('sel').split(',');
  expect(sel).toHaveLength(Math.min(5, runs.length));
  // Newest first (the table's default sort): the newest run is among them.
  expect(sel).toContain(runs[0].info.run_id);
  await expect(chart(page, 'loss')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
});

test('the chart view has no horizontal overflow at 390 px', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${chartsLink()}&group=params.opt`);
  await expect(chart(page, 'loss')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  const o = await overflow(page);
  expect(o.scrollWidth, JSON.stringify(o)).toBeLessThanOrEqual(o.viewport);
  const shots = process.env.RUNLENS_SHOTS;
  if (shots) {
    // Screenshots of the view (light and dark, 1440 and 390 px, grouped and not) for review.
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 1400 : 1000 });
        for (const grouped of [false, true]) {
          await page.goto(`${chartsLink()}${grouped ? '&group=params.opt' : ''}`);
          await expect(chart(page, 'loss')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
          await expect(chart(page, 'acc')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
          const box = await chart(page, 'loss').boundingBox();
          await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.4);
          await page.screenshot({ path: `${shots}/charts-${width}-${scheme}${grouped ? '-grouped' : ''}.png`, fullPage: true });
        }
      }
    }
  }
});
