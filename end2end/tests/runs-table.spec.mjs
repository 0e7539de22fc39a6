// The runs table people work in: selection and colours in the URL, a sticky Run
// column, metrics before params under labelled groups, a searchable column picker with
// full names, pinned/resized/reordered columns kept in the URL, "Show deleted runs", a
// CSV export equal to the filtered rows, the 390-px layout, and a running run's row
// updating live, and a large experiment loaded page by page as it scrolls.
//
// Seeds its own experiment through the MLflow REST API as alice (so other specs' data
// stays as they expect): six runs with params `lr`, `optimizer`, `batch_size`, `seed`,
// metrics `accuracy`, `loss`, `lr` and two `system/system_memory_…` keys, one deleted run.
import fs from 'node:fs';
import { test, expect } from './fixtures.mjs';

const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
const EXPERIMENT = '/Users/alice/e2e-runs-table';
const MEM = ['system/system_memory_usage_megabytes', 'system/system_memory_usage_percentage'];

/** Calls the MLflow REST API as alice. */
async function mlflow(request, path, data) {
  const r = await request.post(`/api/2.0/mlflow/${path}`, { data, headers: { Authorization: `Bearer ${aliceToken()}` } });
  expect(r.ok(), `${path}: ${await r.text()}`).toBeTruthy();
  return r.json();
}

/** Creates a run with params and one point per metric; returns its id. */
async function makeRun(request, experimentId, name, { params, metrics, status = 'FINISHED', offset = 0 }) {
  const t0 = Date.now() - 3_600_000 + offset;
  const { run } = await mlflow(request, 'runs/create', { experiment_id: experimentId, run_name: name, start_time: t0 });
  const id = run.info.run_id;
  await mlflow(request, 'runs/log-batch', {
    run_id: id,
    params: Object.entries(params).map(([key, value]) => ({ key, value })),
    metrics: Object.entries(metrics).map(([key, value]) => ({ key, value, timestamp: t0 + 1000, step: 1 })),
  });
  if (status !== 'RUNNING') await mlflow(request, 'runs/update', { run_id: id, status, end_time: t0 + 60_000 });
  return id;
}

let seeded;
/** The experiment of this spec, seeded once per server (a restarted worker finds it). */
async function seed(request) {
  if (seeded) return seeded;
  const auth = { Authorization: `Bearer ${aliceToken()}` };
  const found = await request.get(`/api/2.0/mlflow/experiments/get-by-name?experiment_name=${encodeURIComponent(EXPERIMENT)}`, { headers: auth });
  if (found.ok()) {
    const exp = (await found.json()).experiment.experiment_id;
    const { runs: all } = await mlflow(request, 'runs/search', { experiment_ids: [exp], run_view_type: 'ALL', max_results: 1000 });
    seeded = { exp, runs: Object.fromEntries(all.map((r) => [r.info.run_name, r.info.run_id])) };
    return seeded;
  }
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name: EXPERIMENT });
  const runs = {};
  const opts = ['adam', 'sgd', 'adam', 'adamw', 'adam', 'sgd'];
  for (let i = 0; i < 6; i++) {
    const name = `rt-run-${i}`;
    runs[name] = await makeRun(request, exp, name, {
      offset: i * 1000,
      params: { lr: `0.0${i + 1}`, optimizer: opts[i], batch_size: `${32 * (i + 1)}`, seed: `${i}` },
      metrics: { loss: 1 / (i + 1), accuracy: 0.5 + i / 20, lr: 0.001 * (i + 1), [MEM[0]]: 1000 + i, [MEM[1]]: 40 + i },
    });
  }
  runs['rt-deleted'] = await makeRun(request, exp, 'rt-deleted', {
    offset: 7000,
    params: { lr: '0.5', optimizer: 'adam', batch_size: '8', seed: '9' },
    metrics: { loss: 9, accuracy: 0.1, lr: 0.5 },
  });
  await mlflow(request, 'runs/delete', { run_id: runs['rt-deleted'] });
  seeded = { exp, runs };
  return seeded;
}

const rowIds = (page) => page.locator('tbody tr.run-row').evaluateAll((rows) => rows.map((r) => r.dataset.run));
const param = (page, key) => new URL(page.url()).searchParams.get(key);

/** The header cell of a value column (`m.loss`, `p.lr`). */
function header(page, code) {
  const [kind, ...rest] = code.split('.');
  const cls = { m: 'kind-metric', p: 'kind-param', t: 'kind-tag' }[kind];
  return page.locator(`thead tr.col-row th.${cls}`).filter({ has: page.locator('.th-label', { hasText: new RegExp(`^${rest.join('.').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }) });
}

async function open(page, request, query = '') {
  const s = await seed(request);
  await page.goto(`/experiments/${s.exp}${query}`);
  await expect(page.locator('tbody tr.run-row').first()).toBeVisible();
  return s;
}

test('the first page is asked for with the experiment, once, and a chosen column asks again', async ({ page, request }) => {
  const { exp } = await seed(request);
  const tablePages = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    // The table's own pages: not the deleted-run marks (view=) nor the later pages (page_token=).
    if (u.pathname === `/api/v1/experiments/${exp}/runs` && !u.searchParams.has('view') && !u.searchParams.has('page_token')) {
      tablePages.push(u.searchParams);
    }
  });
  await page.goto(`/experiments/${exp}`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(6);
  expect(tablePages.map((q) => q.get('columns'))).toEqual(['default']);
  // The defaults: params and metrics (no system/ metrics) as the experiment lists them.
  await expect(header(page, 'm.loss')).toBeVisible();
  await expect(header(page, 'p.lr')).toBeVisible();
  await expect(page.locator('thead')).not.toContainText('system/');
  // A link that names its columns asks for exactly those.
  tablePages.length = 0;
  await page.goto(`/experiments/${exp}?params=lr&metrics=loss`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(6);
  expect(tablePages.map((q) => [q.get('columns'), q.getAll('param'), q.getAll('metric')])).toEqual([[null, ['lr'], ['loss']]]);
});

test('an experiment opened signed in asks for its data while the app loads, and only then', async ({ page, request }) => {
  const { exp } = await seed(request);
  const experiment = `/api/v1/experiments/${exp}`;
  const firstPage = `${experiment}/runs?order_by=attributes.start_time+DESC&columns=default`;
  const seen = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/v1/experiments/')) seen.push(`${u.pathname}${u.search}`);
  });
  page.on('requestfinished', (r) => { if (r.url().endsWith('.wasm')) seen.push('wasm'); });
  await page.goto(`/experiments/${exp}`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(6);
  // Both leave before the app's wasm has arrived (index.html's script), and the app takes
  // their answers: neither is asked for twice.
  expect(seen.filter((u) => u === experiment)).toHaveLength(1);
  expect(seen.filter((u) => u === firstPage)).toHaveLength(1);
  expect(seen.indexOf(experiment)).toBeLessThan(seen.indexOf('wasm'));
  expect(seen.indexOf(firstPage)).toBeLessThan(seen.indexOf('wasm'));
  // An address with a query is the app's own to ask for: no default page leaves early
  // to be thrown away, and the experiment is asked for once.
  seen.length = 0;
  await page.goto(`/experiments/${exp}?sort=attributes.start_time+ASC`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(6);
  expect(seen.filter((u) => u === experiment)).toHaveLength(1);
  expect(seen).not.toContain(firstPage);
});

test('an experiment opened signed in renders whole: no frame of a half-built page before its table', async ({ page, request }) => {
  const { exp } = await seed(request);
  // The app arrives after the early answers, as on a load where the wasm takes longer than
  // the API (always so here, made certain by holding the wasm back).
  await page.route(/\.wasm$/, async (route) => {
    await new Promise((r) => setTimeout(r, 500));
    await route.continue();
  });
  // Counts the frames the page draws, and notes the count when the app first puts
  // anything in the page and when the first run row appears.
  await page.addInitScript(() => {
    window.__frames = 0;
    const tick = () => { window.__frames += 1; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    new MutationObserver((_, observer) => {
      if (window.__appFrame === undefined && document.body && document.body.querySelector('header, main, div')) {
        window.__appFrame = window.__frames;
      }
      if (document.querySelector('tr.run-row')) {
        window.__rowFrame = window.__frames;
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`/experiments/${exp}`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(6);
  const seen = await page.evaluate(() => ({ app: window.__appFrame, row: window.__rowFrame }));
  expect(seen.app).toBeDefined();
  // The header, the experiment and its table went in within one frame: no "Loading…"
  // page was drawn (and laid out) on the way.
  expect(seen.row).toBe(seen.app);
});

test('an early answer of 401 (a session the server no longer knows) leads to sign-in', async ({ page, request, allowConsole, baseURL }) => {
  const { exp } = await seed(request);
  // The browser reports the refused requests.
  allowConsole(/401/);
  await page.context().clearCookies();
  await page.context().addCookies([{ name: 'runlens_session', value: 'ended', url: baseURL }]);
  const early = [];
  page.on('request', (r) => { if (new URL(r.url()).pathname === `/api/v1/experiments/${exp}`) early.push(r.url()); });
  await page.goto(`/experiments/${exp}`);
  // To sign in, and back here after: the way back survives both the failed call's
  // redirect and the session check's.
  await expect(page).toHaveURL(new RegExp(`/signin\\?next=/experiments/${exp}$`));
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect(early).toHaveLength(1);
});

test('selection and colours live in the URL and survive a reload', async ({ page, request }) => {
  const s = await open(page, request);
  const a = s.runs['rt-run-1'];
  const b = s.runs['rt-run-3'];
  await page.getByRole('checkbox', { name: 'Select rt-run-1' }).check();
  await page.getByRole('checkbox', { name: 'Select rt-run-3' }).check();
  await expect.poll(() => param(page, 'sel')).toBe(`${a},${b}`);
  await expect(page.getByText('2 selected')).toBeVisible();
  // Each selected row shows its colour; picking one writes `color=`.
  const swatch = page.getByLabel('Colour of rt-run-3');
  await expect(swatch).toBeVisible();
  await expect(page.locator(`tr[data-run="${s.runs['rt-run-2']}"] input.run-swatch`)).toHaveCount(0);
  await swatch.fill('#123456');
  await expect.poll(() => new URL(page.url()).searchParams.getAll('color')).toEqual([`${b}:123456`]);
  await page.reload();
  await expect(page.getByRole('checkbox', { name: 'Select rt-run-1' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Select rt-run-0' })).not.toBeChecked();
  await expect(page.locator(`tr[data-run="${b}"] input.run-swatch`)).toHaveValue('#123456');

  // The header checkbox selects every shown row, then none.
  const all = page.getByRole('checkbox', { name: 'Select all shown runs' });
  await all.check();
  await expect(page.getByText('6 selected')).toBeVisible();
  expect(param(page, 'sel').split(',').sort()).toEqual((await rowIds(page)).sort());
  await all.uncheck();
  await expect(page.getByText('0 selected')).toBeVisible();
  expect(param(page, 'sel')).toBeNull();

  // "Select top 5" follows the current sort: lowest loss first.
  await page.goto(`/experiments/${s.exp}?sort=${encodeURIComponent('metrics.`loss` ASC')}`);
  await expect(page.locator('tbody tr.run-row').first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Select top runs by the current sort' }).selectOption('5');
  const top = (await rowIds(page)).slice(0, 5);
  expect(top[0]).toBe(s.runs['rt-run-5']);
  await expect.poll(() => param(page, 'sel')).toBe(top.join(','));
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  await expect.poll(() => param(page, 'sel')).toBeNull();
});

test('metrics come before params under labelled groups; the Run column stays put when scrolling right', async ({ page, request }) => {
  await open(page, request);
  const labels = await page.locator('thead tr.group-row th').allInnerTexts();
  expect(labels.map((l) => l.trim().toUpperCase()).filter(Boolean)).toEqual(['METRICS', 'PARAMS']);
  const kinds = await page.locator('thead tr.col-row th.col-value').evaluateAll((ths) => ths.map((t) => (t.className.match(/kind-(\w+)/) || [])[1]));
  expect(kinds.indexOf('param')).toBeGreaterThan(kinds.lastIndexOf('metric'));
  // The metric `lr` and the param `lr` sit under different group labels.
  const within = async (th, group) => {
    const [c, g] = [await th.boundingBox(), await group.boundingBox()];
    return c.x >= g.x - 1 && c.x + c.width <= g.x + g.width + 1;
  };
  const metrics = page.locator('thead tr.group-row th.kind-metric');
  const params = page.locator('thead tr.group-row th.kind-param');
  expect(await within(header(page, 'm.lr'), metrics)).toBe(true);
  expect(await within(header(page, 'p.lr'), params)).toBe(true);
  // Every header carries its full name.
  for (const code of ['m.loss', 'p.batch_size']) await expect(header(page, code)).toHaveAttribute('title', code.slice(2));

  const scroller = page.locator('.runs-scroll');
  const name = page.getByRole('link', { name: 'rt-run-0', exact: true });
  const before = await name.boundingBox();
  const paramCell = header(page, 'p.seed');
  const paramBefore = await paramCell.boundingBox();
  await scroller.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
  await expect.poll(async () => (await paramCell.boundingBox()).x).toBeLessThan(paramBefore.x - 50);
  const after = await name.boundingBox();
  expect(Math.abs(after.x - before.x)).toBeLessThan(2);
  // Still the topmost element at its place (not covered by the scrolled cells).
  const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('a')?.textContent, { x: after.x + 5, y: after.y + after.height / 2 });
  expect(hit).toBe('rt-run-0');
  await expect(page.getByRole('checkbox', { name: 'Select rt-run-0' })).toBeInViewport();
});

test('the column picker searches keys and shows them in full', async ({ page, request }) => {
  await open(page, request);
  await page.locator('summary', { hasText: 'Columns' }).click();
  const search = page.getByRole('searchbox', { name: 'Search columns' });
  await search.fill('memory');
  const items = page.locator('.columns-menu .picker-item:visible');
  await expect(items).toHaveCount(2);
  expect(await items.locator('.picker-key').allInnerTexts()).toEqual(MEM);
  for (const k of MEM) {
    const item = page.locator('.columns-menu .picker-key', { hasText: k });
    // Not cut off: the whole name is on screen (it wraps).
    expect(await item.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  }
  await search.fill('loss');
  await expect(page.locator('.columns-menu [role="group"][aria-label="Metrics"] .picker-item')).toHaveText(['loss']);
  await expect(page.locator('.columns-menu [role="group"][aria-label="Params"]')).toContainText('No match');
  // Choosing a searched key shows its column.
  await search.fill('megabytes');
  await page.locator('.columns-menu .picker-item', { hasText: MEM[0] }).locator('input').check();
  await expect(header(page, `m.${MEM[0]}`)).toBeVisible();
  // Every header shows its key whole at 1440 px: a column is as wide as its key needs.
  await page.keyboard.press('Escape');
  const cut = await page.locator('thead tr.col-row th.col-value .th-label').evaluateAll((labels) =>
    labels.filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => `${l.textContent}: ${l.scrollWidth} px in ${l.clientWidth}`));
  expect(cut).toEqual([]);
});

test('pinned, moved and resized columns are kept in the URL', async ({ page, request }) => {
  await open(page, request);
  const colCodes = () => page.locator('thead tr.col-row th').evaluateAll((ths) => ths.map((t) => {
    const k = (t.className.match(/kind-(\w+)/) || [])[1];
    return k ? `${k[0]}.${t.querySelector('.th-label').textContent}` : (t.querySelector('.th-label')?.textContent || '');
  }));
  // Pin a param: it comes right after Run and sticks.
  await page.getByRole('button', { name: 'Column options: param seed' }).click();
  await page.getByRole('menuitem', { name: 'Pin column' }).click();
  await expect.poll(() => param(page, 'pin')).toBe('p.seed');
  expect((await colCodes()).slice(0, 3)).toEqual(['', 'Run', 'p.seed']);
  await expect(header(page, 'p.seed')).toHaveClass(/pinned/);
  // Move a metric left from the menu.
  await page.getByRole('button', { name: 'Column options: metric lr' }).click();
  await page.getByRole('menuitem', { name: 'Move left' }).click();
  await expect.poll(() => param(page, 'order')).toBe('m.accuracy,m.lr');
  // Drag a column onto another to move it there.
  await header(page, 'p.optimizer').locator('.th-inner').dragTo(header(page, 'm.accuracy').locator('.th-inner'));
  await expect.poll(() => param(page, 'order')).toBe('p.optimizer,m.accuracy,m.lr');
  const order = await colCodes();
  expect(order.indexOf('p.optimizer')).toBeLessThan(order.indexOf('m.accuracy'));
  // Resize Run by dragging its header's right edge.
  const run = page.locator('thead tr.col-row th.col-run');
  const w0 = (await run.boundingBox()).width;
  const edge = await run.locator('.col-resizer').boundingBox();
  await page.mouse.move(edge.x + edge.width / 2, edge.y + edge.height / 2);
  await page.mouse.down();
  await page.mouse.move(edge.x + 60, edge.y + edge.height / 2, { steps: 5 });
  await page.mouse.move(edge.x + 100, edge.y + edge.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(() => param(page, 'w')).toMatch(/^run:\d+$/);
  const w = Number(param(page, 'w').split(':')[1]);
  expect(Math.abs(w - (w0 + 100))).toBeLessThan(6);
  // A value column resizes the same way.
  const lossTh = header(page, 'm.loss');
  const lw0 = (await lossTh.boundingBox()).width;
  const lEdge = await lossTh.locator('.col-resizer').boundingBox();
  await page.mouse.move(lEdge.x + lEdge.width / 2, lEdge.y + lEdge.height / 2);
  await page.mouse.down();
  await page.mouse.move(lEdge.x + 30, lEdge.y + lEdge.height / 2, { steps: 4 });
  await page.mouse.move(lEdge.x + 60, lEdge.y + lEdge.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect.poll(() => param(page, 'w')).toMatch(/^run:\d+,m\.loss:\d+$/);
  const lw = Number(param(page, 'w').split(':').pop());
  expect(Math.abs(lw - (lw0 + 60))).toBeLessThan(6);
  // A reload (or a teammate opening the link) shows the same layout.
  await page.reload();
  await expect(header(page, 'p.seed')).toHaveClass(/pinned/);
  expect(Math.abs((await run.boundingBox()).width - w)).toBeLessThan(2);
  expect(Math.abs((await lossTh.boundingBox()).width - lw)).toBeLessThan(2);
  const reloaded = await colCodes();
  expect(reloaded.slice(0, 3)).toEqual(['', 'Run', 'p.seed']);
  expect(reloaded.indexOf('p.optimizer')).toBeLessThan(reloaded.indexOf('m.accuracy'));
  // Unpin from the menu.
  await page.getByRole('button', { name: 'Column options: param seed' }).click();
  await page.getByRole('menuitem', { name: 'Unpin column' }).click();
  await expect.poll(() => param(page, 'pin')).toBeNull();
  // Hide a column from its menu (which takes the focus when it opens).
  await page.getByRole('button', { name: 'Column options: param batch_size' }).click();
  await expect(page.getByRole('menuitem', { name: 'Pin column' })).toBeFocused();
  await page.getByRole('menuitem', { name: 'Hide column' }).click();
  await expect(header(page, 'p.batch_size')).toHaveCount(0);
  expect(param(page, 'params')).not.toBeNull();
});

test('"Show deleted runs" lists deleted runs, marked', async ({ page, request }) => {
  const s = await open(page, request);
  const del = page.locator(`tr[data-run="${s.runs['rt-deleted']}"]`);
  await expect(del).toHaveCount(0);
  await page.getByRole('checkbox', { name: 'Show deleted runs' }).check();
  await expect.poll(() => param(page, 'deleted')).toBe('1');
  await expect(del).toBeVisible();
  await expect(del).toHaveClass(/deleted/);
  await expect(del.getByText('Deleted', { exact: true })).toBeVisible();
  await expect(page.locator(`tr[data-run="${s.runs['rt-run-0']}"]`)).not.toHaveClass(/deleted/);
  await page.getByRole('checkbox', { name: 'Show deleted runs' }).uncheck();
  await expect(del).toHaveCount(0);
});

/** Parses CSV (RFC 4180: quoted fields, doubled quotes, newlines inside quotes). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

test('Export CSV downloads exactly the filtered rows', async ({ page, request }) => {
  await open(page, request, `?filter=${encodeURIComponent("params.optimizer = 'adam'")}`);
  await expect.poll(async () => (await rowIds(page)).length).toBe(3);
  const shown = (await rowIds(page)).sort();
  const link = page.getByRole('link', { name: 'Export CSV' });
  const href = new URL(await link.getAttribute('href'), page.url());
  expect(href.pathname).toBe(`/api/v1/experiments/${(await seed(request)).exp}/runs/csv`);
  expect(href.searchParams.get('filter')).toBe("params.optimizer = 'adam'");
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const text = fs.readFileSync(await download.path(), 'utf8');
  const [head, ...rows] = parseCsv(text.trim());
  const idCol = head.findIndex((h) => /^run[ _]?id$/i.test(h.trim()));
  expect(idCol, `a run id column in ${head.join(',')}`).toBeGreaterThanOrEqual(0);
  expect(rows.map((r) => r[idCol]).sort()).toEqual(shown);
  // The shown columns are in it, by their full names.
  for (const k of ['loss', 'optimizer']) expect(head.some((h) => h.includes(k))).toBe(true);
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the page does not scroll sideways and the Columns menu is on screen', async ({ page, request }) => {
    await open(page, request);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.locator('summary', { hasText: 'Columns' }).click();
    const menu = page.locator('.columns-menu');
    await expect(menu).toBeVisible();
    const box = await menu.boundingBox();
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The table scrolls inside its card, the Run column still in view (the page scrolled
    // down to the table's last rows first: 40-px touch targets push them below the fold).
    await page.keyboard.press('Escape');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.locator('.runs-scroll').evaluate((el) => { el.scrollLeft = el.scrollWidth; });
    await expect(page.getByRole('link', { name: 'rt-run-0', exact: true })).toBeInViewport();
  });
});

test('a running run updates its row live, and the page stays live after it finishes', async ({ page, request }) => {
  const s = await seed(request);
  const id = await makeRun(request, s.exp, 'rt-live', { status: 'RUNNING', offset: 9000, params: { lr: '0.9' }, metrics: { loss: 5 } });
  await page.goto(`/experiments/${s.exp}`);
  const row = page.locator(`tr[data-run="${id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByText('Running')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^Live/ })).toBeVisible();
  const lossIndex = await page.locator('thead tr.col-row th').evaluateAll((ths) => ths.findIndex((t) => t.classList.contains('kind-metric') && t.querySelector('.th-label').textContent === 'loss'));
  const loss = row.locator('td').nth(lossIndex);
  await expect(loss).toHaveText('5');
  // Log in the background; the cell follows within 2 s, without reloading the table.
  const reloads = [];
  page.on('request', (r) => { if (/\/api\/v1\/experiments\/\d+\/runs(\?|$)/.test(new URL(r.url()).pathname + '?')) reloads.push(r.url()); });
  let step = 2;
  const logger = setInterval(() => {
    const s2 = step++;
    request.post('/api/2.0/mlflow/runs/log-metric', {
      data: { run_id: id, key: 'loss', value: 0.125, timestamp: Date.now(), step: s2 },
      headers: { Authorization: `Bearer ${aliceToken()}` },
    }).catch(() => {});
  }, 300);
  try {
    await expect(loss).toHaveText('0.125', { timeout: 2_000 });
  } finally {
    clearInterval(logger);
  }
  await expect(page.getByRole('status').filter({ hasText: /Live · updated \d\d:\d\d:\d\d/ })).toBeVisible();
  expect(reloads, 'the table was not reloaded for the update').toEqual([]);
  await mlflow(request, 'runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
  await expect(row.getByText('Finished')).toBeVisible({ timeout: 2_000 });
  // Nothing is running any more, and the page still follows the experiment.
  await page.waitForTimeout(1_000);
  await expect(page.getByRole('status').filter({ hasText: /^Live/ })).toBeVisible();
  await mlflow(request, 'runs/delete', { run_id: id });
  await expect(row).toHaveCount(0, { timeout: 2_000 });
});

test('runs created, renamed, finished and deleted elsewhere show within 2 s with nothing running; pause, resume and refresh', async ({ page, request }) => {
  // The experiment is this test's own: nothing in it runs when the page opens.
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name: `/Users/alice/e2e-runs-follow-${Date.now()}` });
  await makeRun(request, exp, 'follow-old', { params: { lr: '0.1' }, metrics: { loss: 1 } });
  await page.goto(`/experiments/${exp}`);
  await expect(page.getByRole('link', { name: 'follow-old', exact: true })).toBeVisible();
  const badge = page.getByRole('status').filter({ hasText: /^Live/ });
  await expect(badge).toBeVisible();

  // Created: its row appears without a reload.
  const { run } = await mlflow(request, 'runs/create', { experiment_id: exp, run_name: 'follow-new', start_time: Date.now() - 300_000 });
  const id = run.info.run_id;
  const row = page.locator(`tr[data-run="${id}"]`);
  await expect(row).toBeVisible({ timeout: 2_000 });
  await expect(row.getByText('Running')).toBeVisible();
  // Its relative start time ("5 min ago") is there; renamed and finished, the row follows.
  await expect(row).toContainText('5 min ago');
  await mlflow(request, 'runs/update', { run_id: id, run_name: 'follow-renamed' });
  await expect(row.getByRole('link', { name: 'follow-renamed', exact: true })).toBeVisible({ timeout: 2_000 });
  await mlflow(request, 'runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
  await expect(row.getByText('Finished')).toBeVisible({ timeout: 2_000 });
  // Deleted: the row goes.
  await mlflow(request, 'runs/delete', { run_id: id });
  await expect(row).toHaveCount(0, { timeout: 2_000 });

  // Paused: nothing new shows until resumed, which catches up.
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Paused' })).toBeVisible();
  const { run: late } = await mlflow(request, 'runs/create', { experiment_id: exp, run_name: 'follow-late', start_time: Date.now() });
  await page.waitForTimeout(1_500);
  await expect(page.locator(`tr[data-run="${late.info.run_id}"]`)).toHaveCount(0);
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.locator(`tr[data-run="${late.info.run_id}"]`)).toBeVisible({ timeout: 2_000 });
  await expect(badge).toBeVisible();

  // Refresh asks for the table again.
  const asked = page.waitForRequest((r) => /\/api\/v1\/experiments\/\d+\/runs\?/.test(r.url()));
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await asked;
});

test('relative times keep ticking on a page left open', async ({ page, request }) => {
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name: `/Users/alice/e2e-runs-tick-${Date.now()}` });
  await page.clock.install();
  const { run } = await mlflow(request, 'runs/create', { experiment_id: exp, run_name: 'tick', start_time: Date.now() - 50_000 });
  await mlflow(request, 'runs/update', { run_id: run.info.run_id, status: 'FINISHED', end_time: Date.now() });
  await page.goto(`/experiments/${exp}`);
  const row = page.locator(`tr[data-run="${run.info.run_id}"]`);
  await expect(row).toContainText('1 min ago');
  await page.clock.runFor(3 * 60_000);
  await expect(row).toContainText('4 min ago');
});

test('filtering, sorting, picking columns and switching views while a run logs live raise no errors', async ({ page, request }) => {
  // The fixture fails the test on any page error or console error (a panic is both).
  const s = await seed(request);
  const id = await makeRun(request, s.exp, 'rt-journey', { status: 'RUNNING', offset: 9500, params: { lr: '0.5' }, metrics: { loss: 3 } });
  let step = 2;
  const logger = setInterval(() => {
    request.post('/api/2.0/mlflow/runs/log-metric', {
      data: { run_id: id, key: 'loss', value: 1 / step, timestamp: Date.now(), step: step++ },
      headers: { Authorization: `Bearer ${aliceToken()}` },
    }).catch(() => {});
  }, 250);
  try {
    await page.goto(`/experiments/${s.exp}`);
    const row = page.locator(`tr[data-run="${id}"]`);
    await expect(row).toBeVisible();
    const settle = () => page.waitForTimeout(1_200);
    const filter = page.getByRole('combobox', { name: 'Filter runs' });
    await filter.fill("params.lr = '0.5'");
    await filter.press('Enter');
    await expect(page.locator('tbody tr.run-row')).toHaveCount(1);
    await settle();
    await filter.fill('');
    await filter.press('Enter');
    await expect(page.locator('tbody tr.run-row')).not.toHaveCount(1);
    await settle();
    await page.getByRole('columnheader', { name: /^Run/ }).getByRole('button').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('attributes.run_name ASC');
    await settle();
    await page.locator('summary', { hasText: 'Columns' }).click();
    await page.getByRole('searchbox', { name: 'Search columns' }).fill('megabytes');
    await page.locator('.columns-menu .picker-item', { hasText: MEM[0] }).locator('input').check();
    await expect(header(page, `m.${MEM[0]}`)).toBeVisible();
    await page.keyboard.press('Escape');
    await settle();
    await page.getByRole('checkbox', { name: 'Select rt-journey' }).check();
    for (const tab of [/^Charts/, /^Compare/, /^Runs/]) {
      await page.getByRole('tab', { name: tab }).click();
      await settle();
    }
    await expect(row).toBeVisible();
  } finally {
    clearInterval(logger);
  }
  await mlflow(request, 'runs/update', { run_id: id, status: 'FINISHED', end_time: Date.now() });
  await mlflow(request, 'runs/delete', { run_id: id });
});

test('scrolling the table builds only the rows it brings in: the rows still in view are the same elements', async ({ page, request }) => {
  const name = `/Users/alice/e2e-runs-scroll-${Date.now()}`;
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name });
  const t0 = Date.now() - 3_600_000;
  await Promise.all(Array.from({ length: 60 }, (_, i) => mlflow(request, 'runs/create', {
    experiment_id: exp, run_name: `sc-${String(i).padStart(2, '0')}`, start_time: t0 + i * 1000,
  })));
  await page.goto(`/experiments/${exp}`);
  // Newest first: the 13th row is sc-47. Mark its element.
  const row = (run) => page.locator('tr.run-row', { has: page.getByRole('link', { name: run, exact: true }) });
  await expect(row('sc-47')).toBeVisible();
  await row('sc-47').evaluate((el) => { el.dataset.mark = 'kept'; });
  const before = await rowIds(page);
  // Ten rows down: the window moves at both ends (the newest rows leave it, older ones
  // join), and sc-47 stays inside it.
  await page.locator('.runs-scroll').evaluate((el) => { el.scrollTop = 10 * 36; });
  await expect(row('sc-59')).not.toBeAttached();
  const after = await rowIds(page);
  expect(after.at(-1)).not.toBe(before.at(-1));
  await expect(row('sc-47')).toHaveAttribute('data-mark', 'kept');
});

test('a short table that grows when a parent is expanded shows every row, none left blank', async ({ page, request }) => {
  const name = `/Users/alice/e2e-runs-grow-${Date.now()}`;
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name });
  const t0 = Date.now() - 3_600_000;
  const { run: parent } = await mlflow(request, 'runs/create', { experiment_id: exp, run_name: 'gr-parent', start_time: t0 + 100_000 });
  await Promise.all(Array.from({ length: 20 }, (_, i) => mlflow(request, 'runs/create', {
    experiment_id: exp, run_name: `gr-child-${String(i).padStart(2, '0')}`, start_time: t0 + i * 1000,
    tags: [{ key: 'mlflow.parentRunId', value: parent.info.run_id }],
  })));
  // A window tall enough for the table to show all 21 rows once they are there.
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.goto(`/experiments/${exp}`);
  await expect(page.locator('tbody tr.run-row')).toHaveCount(1);
  // The table was one row high; expanded, it grows and shows every row, none left as
  // blank space.
  await page.getByRole('button', { name: 'Expand child runs' }).click();
  await expect(page.locator('tbody tr.run-row')).toHaveCount(21);
  await expect(page.getByRole('link', { name: 'gr-child-00', exact: true })).toBeVisible();
  expect(await page.locator('tbody tr.spacer').evaluateAll((s) => s.map((e) => e.style.height))).toEqual(['0px', '0px']);
});

test('a large experiment loads pages as the table scrolls and counts every run', async ({ page, request }) => {
  // 450 runs: more than two of the server's 200-run pages. The experiment is this test's own.
  const name = `/Users/alice/e2e-runs-pages-${Date.now()}`;
  const { experiment_id: exp } = await mlflow(request, 'experiments/create', { name });
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < 450; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, k) => mlflow(request, 'runs/create', {
      experiment_id: exp, run_name: `pg-${String(i + k).padStart(3, '0')}`, start_time: t0 + (i + k) * 1000,
    })));
  }
  const pages = [];
  page.on('request', (r) => { if (/\/api\/v1\/experiments\/\d+\/runs\?/.test(r.url())) pages.push(new URL(r.url())); });
  await page.goto(`/experiments/${exp}`);
  await expect(page.getByText('450 runs', { exact: true })).toBeVisible();
  // Newest first; only the window's rows are in the DOM, and only the first page was asked for.
  await expect(page.getByRole('link', { name: 'pg-449', exact: true })).toBeVisible();
  expect((await rowIds(page)).length).toBeLessThan(100);
  expect(pages.filter((u) => u.searchParams.get('page_token'))).toEqual([]);
  // Scrolled to the end, the oldest run shows: the pages in between were fetched in order.
  const scroller = page.locator('.runs-scroll');
  await expect(async () => {
    await scroller.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await expect(page.getByRole('link', { name: 'pg-000', exact: true })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
  expect(pages.filter((u) => u.searchParams.get('page_token')).length).toBeGreaterThan(0);
  // "Select top 5" follows the sort from the first page.
  await scroller.evaluate((el) => { el.scrollTop = 0; });
  await page.getByRole('combobox', { name: 'Select top runs by the current sort' }).selectOption('5');
  await expect(page.getByText('5 selected')).toBeVisible();
});
