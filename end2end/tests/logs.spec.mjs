// The run's Logs tab, end to end: a two-node job run whose lines are shipped through the
// ingest route while the page is open (as `runlens-agent run` ships them). The tab follows
// live lines, scrolling up pauses it and shows "Jump to latest", which resumes; search and the
// node and level filters narrow the view; Download returns exactly the filtered lines; the
// page URL reproduces the filters; a user who may read the experiment but not the job sees
// the access message with the managers' names and no line (and the log routes are not called);
// a run no job produced explains how to get logs.
import { test, expect, USERS, signInByApi } from './fixtures.mjs';

const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
const EXPERIMENT = '/Users/alice/e2e-logs';
const JOB = 'e2e-logs-job';
const NODES = ['node-a', 'node-b'];
const ESC = '\u001b';

/** The text, level and stream of line `i` of `node` (levels, ANSI colours, plain lines). */
function lineOf(node, i) {
  if (i % 20 === 7) return { text: `${ESC}[31m[ERROR]${ESC}[0m step ${i} loss=nan on ${node}`, level: 'ERROR' };
  if (i % 10 === 3) return { text: `[WARNING] step ${i} loss spike on ${node}`, level: 'WARNING' };
  if (i % 5 === 0) return { text: `plain output ${i} from ${node}`, level: null };
  return { text: `[INFO] step ${i} loss=${(1 / (i + 1)).toFixed(4)} on ${node}`, level: 'INFO' };
}

/** A job run of alice's job with its first attempt; ships lines per node in order. */
async function jobRun(api, experimentId, t0) {
  const call = async (path, data) => {
    const r = await api.post(path, { data });
    expect(r.ok(), `${path}: ${r.status()} ${await r.text()}`).toBe(true);
    return r.json();
  };
  const job = await call('/api/v1/jobs', { name: JOB });
  const run = await call(`/api/v1/jobs/${job.job_id}/runs`, { experiment_id: experimentId, nodes: NODES, max_retries: 0 });
  const attempt = await call(`/api/v1/job-runs/${run.job_run_id}/attempts`, {});
  const next = Object.fromEntries(NODES.map((n) => [n, 0]));
  const shipped = [];
  /** Ships `lines` ({text}) of `node`; their times follow t0 + 10 ms per sequence number. */
  const ship = async (node, lines) => {
    const first = next[node];
    next[node] += lines.length;
    const body = lines.map((l, k) => ({ ts_ms: t0 + (first + k) * 10 + NODES.indexOf(node), stream: 'stdout', text: l.text }));
    await call(`/api/v1/job-runs/${run.job_run_id}/attempts/1/logs`, { node, first_seq: first, lines: body });
    shipped.push(...lines.map((l, k) => ({ ...l, node, seq: first + k })));
  };
  /** Ships `n` generated lines of each node. */
  const shipBoth = async (n) => {
    for (const node of NODES) {
      const from = next[node];
      await ship(node, Array.from({ length: n }, (_, k) => lineOf(node, from + k)));
    }
  };
  return { jobId: job.job_id, jobRunId: run.job_run_id, runId: attempt.run_id, ship, shipBoth, shipped };
}

let setup;

test.beforeAll(async ({ playwright, baseURL }) => {
  const api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${aliceToken()}` } });
  // Get or create: after a failed test Playwright runs beforeAll again on the same server.
  const found = await api.get('/api/2.0/mlflow/experiments/get-by-name', { params: { experiment_name: EXPERIMENT } });
  let experimentId = found.ok() ? (await found.json()).experiment.experiment_id : null;
  if (!experimentId) {
    const created = await api.post('/api/2.0/mlflow/experiments/create', { data: { name: EXPERIMENT } });
    expect(created.ok(), await created.text()).toBe(true);
    experimentId = (await created.json()).experiment_id;
  }
  // bob may read the experiment, but holds no grant on the job.
  const granted = await api.put(`/api/v1/experiments/${experimentId}/access`, {
    data: { principal: { kind: 'user', name: 'bob' }, level: 'CAN_READ' },
  });
  expect(granted.ok(), await granted.text()).toBe(true);
  const t0 = Date.now() - 3_600_000;
  const live = await jobRun(api, experimentId, t0);
  const filtered = await jobRun(api, experimentId, t0);
  await filtered.shipBoth(120);
  const long = await jobRun(api, experimentId, t0);
  await long.shipBoth(700);
  setup = { api, live, filtered, long, t0 };
});

test.afterAll(async () => {
  await setup?.api.dispose();
});

const logList = (page) => page.getByRole('table', { name: 'Log lines' });
const rows = (page) => logList(page).locator('.log-line');

test('the tab follows live lines; scrolling up pauses it and "Jump to latest" resumes', async ({ page }) => {
  test.setTimeout(90_000);
  const { live } = setup;
  await page.goto(`/runs/${live.runId}?tab=logs`);
  await expect(page.getByRole('tab', { name: 'Logs' })).toHaveAttribute('aria-selected', 'true');
  // The job header names the job, the job run and the attempt.
  const header = page.getByRole('region', { name: 'Job' });
  await expect(header).toContainText(JOB);
  await expect(header).toContainText(`Job run #${live.jobRunId} · Running`);
  await expect(header).toContainText('Attempt 1 of 1');
  await expect(page.getByText(`No output yet: job run #${live.jobRunId} has not printed anything`)).toBeVisible();
  await expect(page.getByText('Following', { exact: true })).toBeVisible();

  // Lines shipped now appear without a reload, newest in view, colours rendered.
  await live.shipBoth(150);
  const last = live.shipped.at(-1).text;
  await expect(logList(page).getByText(last, { exact: true })).toBeInViewport();
  await expect(page.getByTestId('log-count')).toHaveText('300 lines');
  await expect(logList(page).locator('.ansi-fg-1').first()).toBeVisible();
  expect(await logList(page).innerText()).not.toContain(ESC);
  // Only the window is rendered, not 300 rows.
  expect(await rows(page).count()).toBeLessThan(120);

  // Scrolling up pauses following: a new line does not pull the view down.
  const list = logList(page);
  // Over the lines (not the floating button, whose wheel scrolls the page).
  const overLines = () => list.hover({ position: { x: 300, y: 60 } });
  await overLines();
  await page.mouse.wheel(0, -100_000);
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toBeVisible();
  await expect(page.getByText('Paused: scroll to the bottom to follow')).toBeVisible();
  await live.ship('node-b', [{ text: 'live line while paused', level: null }]);
  await expect(page.getByTestId('log-count')).toHaveText('301 lines');
  await expect(list.getByText('live line while paused')).toHaveCount(0);
  expect(await list.evaluate((el) => el.scrollTop)).toBeLessThan(200);

  // "Jump to latest" brings the newest line into view and resumes following.
  await page.getByRole('button', { name: 'Jump to latest' }).click();
  await expect(list.getByText('live line while paused')).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0);
  await live.ship('node-a', [{ text: 'live line after the jump', level: null }]);
  await expect(list.getByText('live line after the jump')).toBeInViewport();

  // Scrolling up and back down by hand pauses and resumes too.
  await overLines();
  await page.mouse.wheel(0, -2_000);
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toBeVisible();
  await page.mouse.wheel(0, 100_000);
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0);
  await expect(page.getByText('Following', { exact: true })).toBeVisible();
  await live.ship('node-b', [{ text: 'live line after scrolling back', level: null }]);
  await expect(list.getByText('live line after scrolling back')).toBeInViewport();
});

/** The lines of `shipped` matching node, search text and an at-least level. */
function expected(shipped, { node, q, level }) {
  const order = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];
  return shipped.filter((l) =>
    (!node || l.node === node)
    && (!q || l.text.toLowerCase().includes(q.toLowerCase()))
    && (!level || (l.level && order.indexOf(l.level) >= order.indexOf(level))));
}

test('search and the node and level filters narrow the view; download and the link keep them', async ({ page, context, baseURL }) => {
  test.setTimeout(90_000);
  const { filtered } = setup;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.goto(`/runs/${filtered.runId}?tab=logs`);
  await expect(page.getByTestId('log-count')).toHaveText('240 lines');

  await page.getByRole('textbox', { name: 'Search logs' }).fill('loss');
  await page.getByRole('textbox', { name: 'Search logs' }).press('Enter');
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('loss');
  const withLoss = expected(filtered.shipped, { q: 'loss' });
  await expect(page.getByTestId('log-count')).toHaveText(`${withLoss.length} lines`);
  await expect(rows(page).first()).toBeVisible();
  for (const text of await rows(page).locator('.log-text').allInnerTexts()) expect(text.toLowerCase()).toContain('loss');
  await expect(rows(page).locator('mark').first()).toHaveText('loss');

  await page.getByRole('combobox', { name: 'Node' }).selectOption('node-b');
  await expect.poll(() => new URL(page.url()).searchParams.get('node')).toBe('node-b');
  const onB = expected(filtered.shipped, { q: 'loss', node: 'node-b' });
  await expect(page.getByTestId('log-count')).toHaveText(`${onB.length} lines`);
  expect(new Set(await rows(page).locator('.node-chip').allInnerTexts())).toEqual(new Set(['node-b']));

  await page.getByRole('combobox', { name: 'Level' }).selectOption('WARNING');
  const warnUp = expected(filtered.shipped, { q: 'loss', node: 'node-b', level: 'WARNING' });
  expect(warnUp.length).toBeGreaterThan(5);
  await expect(page.getByTestId('log-count')).toHaveText(`${warnUp.length} lines`);
  expect(new Set(await rows(page).locator('.level').allInnerTexts())).toEqual(new Set(['WARNING', 'ERROR']));

  // Copy: the loaded lines as text, escape codes removed.
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(page.getByText('Lines copied')).toBeVisible();
  const copied = (await page.evaluate(() => navigator.clipboard.readText())).split('\n');
  expect(copied.length).toBe(warnUp.length);
  expect(copied.at(-1)).toContain(warnUp.at(-1).text.replaceAll(/\u001b\[[0-9;]*m/g, ''));

  // A copied link opens the same lines.
  const link = page.url();
  const shown = await rows(page).locator('.log-text').allInnerTexts();
  const other = await context.newPage();
  await other.goto(link);
  await expect(other.getByTestId('log-count')).toHaveText(`${warnUp.length} lines`);
  await expect(other.getByRole('textbox', { name: 'Search logs' })).toHaveValue('loss');
  await expect(other.getByRole('combobox', { name: 'Node' })).toHaveValue('node-b');
  await expect(other.getByRole('combobox', { name: 'Level' })).toHaveValue('WARNING');
  await expect(rows(other).first()).toBeVisible();
  expect(await rows(other).locator('.log-text').allInnerTexts()).toEqual(shown);
  await other.close();

  // Exactly one level; then a search matching nothing says so and clears.
  await page.getByRole('button', { name: 'Exactly' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('level_mode')).toBe('exactly');
  const onlyWarn = warnUp.filter((l) => l.level === 'WARNING');
  await expect(page.getByTestId('log-count')).toHaveText(`${onlyWarn.length} lines`);
  expect(new Set(await rows(page).locator('.level').allInnerTexts())).toEqual(new Set(['WARNING']));
  await page.getByRole('textbox', { name: 'Search logs' }).fill('no such text anywhere');
  await page.getByRole('textbox', { name: 'Search logs' }).press('Enter');
  await expect(page.getByText('No lines match these filters')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(page.getByTestId('log-count')).toHaveText('240 lines');
  for (const key of ['q', 'node', 'level', 'level_mode']) expect(new URL(page.url()).searchParams.get(key)).toBeNull();

  // Download: exactly the filtered lines, one per line, text as stored (ANSI kept).
  await page.goto(link);
  await expect(page.getByTestId('log-count')).toHaveText(`${warnUp.length} lines`);
  const href = await page.getByRole('link', { name: 'Download' }).getAttribute('href');
  const download = await page.request.get(href);
  expect(download.status(), await download.text()).toBe(200);
  const fileLines = (await download.text()).split('\n').filter((l) => l !== '');
  expect(fileLines.length).toBe(warnUp.length);
  expect(fileLines.map((l) => l.split(' ').slice(1, 3).join(' '))).toEqual(warnUp.map((l) => `${l.node} ${l.level}`));
  expect(fileLines.map((l) => l.split(' ').slice(3).join(' '))).toEqual(warnUp.map((l) => l.text));
});

test('older pages load when scrolling up; a jump to a time opens there', async ({ page }) => {
  test.setTimeout(90_000);
  const { long, t0 } = setup;
  await page.goto(`/runs/${long.runId}?tab=logs`);
  // The newest page first (time order: node-a and node-b interleave).
  await expect(page.getByTestId('log-count')).toHaveText('500 lines loaded');
  const list = logList(page);
  await expect(list.getByText('[INFO] step 699 loss=0.0014 on node-b', { exact: true })).toBeInViewport();
  await list.hover({ position: { x: 300, y: 60 } });
  for (let i = 0; i < 12; i++) {
    await page.mouse.wheel(0, -100_000);
    await page.waitForTimeout(300);
  }
  await expect(page.getByTestId('log-count')).toHaveText('1,400 lines');
  await expect(list.getByText('plain output 0 from node-a', { exact: true })).toBeInViewport();
  expect(await rows(page).count()).toBeLessThan(120);

  // ?at= opens at that time: the line of node-a's seq 300 is in view, older ones load above.
  await page.goto(`/runs/${long.runId}?tab=logs&at=${t0 + 3000}`);
  await expect(list.getByText('plain output 300 from node-a', { exact: true })).toBeInViewport();
  await expect(page.getByRole('textbox', { name: 'Jump to' })).not.toHaveValue('');
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toBeVisible();
  await page.getByRole('button', { name: 'Jump to latest' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('at')).toBeNull();
  await expect(list.getByText('[INFO] step 699 loss=0.0014 on node-b', { exact: true })).toBeInViewport();
});

test.describe('bob, who may read the experiment but not the job', () => {
  test.use({ user: 'bob' });

  test('sees the access message with the managers and no line', async ({ page }) => {
    const { filtered } = setup;
    const logCalls = [];
    page.on('request', (r) => {
      if (/\/api\/v1\/runs\/[^/]+\/logs/.test(new URL(r.url()).pathname)) logCalls.push(r.url());
    });
    await page.goto(`/runs/${filtered.runId}?tab=logs`);
    const panel = page.getByRole('alert').filter({ hasText: 'Logs are restricted' });
    await expect(panel).toBeVisible();
    await expect(panel).toContainText(
      `You don't have access to these logs. They belong to job '${JOB}'. Ask one of its managers (alice) or an administrator for at least Can View.`);
    await expect(page.getByRole('list', { name: 'Managers of the job' }).getByText('alice', { exact: true })).toBeVisible();
    await expect(page.locator('.log-line')).toHaveCount(0);
    const text = await page.locator('body').innerText();
    for (const leaked of ['loss', 'step 1', 'plain output']) expect(text).not.toContain(leaked);
    expect(logCalls).toEqual([]);
    // The routes refuse too.
    const r = await page.request.get(`/api/v1/runs/${filtered.runId}/logs`);
    expect(r.status()).toBe(403);
  });
});

test('a run no job produced explains how to get logs', async ({ page, seed }) => {
  await page.goto(`/runs/${seed.runs.baseline}?tab=logs`);
  await expect(page.getByText('This run has no logs')).toBeVisible();
  await expect(page.getByText('runlens-agent run --experiment NAME -- python train.py', { exact: false })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Job' })).toHaveCount(0);
});

test('the job header links the attempts; alice shares the job and bob then reads its logs', async ({ page, browser, baseURL }) => {
  test.setTimeout(90_000);
  const { api, filtered } = setup;
  // A second attempt of the filtered job run: its own MLflow run, linked both ways.
  const r = await api.post(`/api/v1/job-runs/${filtered.jobRunId}/attempts`, { data: {} });
  expect(r.ok(), await r.text()).toBe(true);
  const second = await r.json();
  await page.goto(`/runs/${second.run_id}?tab=logs`);
  const header = page.getByRole('region', { name: 'Job' });
  await expect(header).toContainText('Attempt 2 of 2');
  await header.getByRole('link', { name: 'Attempt 1' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${filtered.runId}`));
  await expect(header).toContainText('Attempt 1 of 2');

  // alice grants bob Can view on the job through the Share job dialog.
  await header.getByRole('button', { name: 'Share job' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share job' });
  await dialog.getByRole('textbox', { name: 'Add people or groups' }).fill('bob');
  await dialog.getByRole('combobox', { name: 'Level' }).selectOption('CAN_VIEW');
  await dialog.getByRole('button', { name: 'Grant' }).click();
  await expect(dialog.getByLabel('Permission for bob')).toHaveValue('CAN_VIEW');
  await dialog.getByRole('button', { name: 'Close' }).click();

  const context = await browser.newContext({ baseURL });
  const bob = await context.newPage();
  await signInByApi(bob.request, USERS.bob);
  await bob.goto(`/runs/${filtered.runId}?tab=logs`);
  await expect(bob.getByTestId('log-count')).toHaveText('240 lines');
  await expect(bob.getByText('Logs are restricted')).toHaveCount(0);
  // bob may view but not manage: no Share job button.
  await expect(bob.getByRole('region', { name: 'Job' }).getByRole('button', { name: 'Share job' })).toHaveCount(0);
  await context.close();
});

