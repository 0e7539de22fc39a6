// Sharing, end to end: alice shares her private experiment with bob at CAN_READ and copies
// links to two views (the filtered runs table, and a run's Metrics tab with chart options);
// bob opens each link signed out, signs in and lands on exactly that view; carol opens the
// same links and is told she has no access (and whom to ask) without seeing any data; bob's
// API token can read but not log to alice's experiment.
//
// The app keeps a view's state in its URL: the experiment page carries the filter (and sort
// and columns), the run page the tab and chart options. No single page has both a run filter
// and a tab, so the test shares one link of each kind.
import { test, expect, USERS, signInByApi, signInWithForm, signOut } from './fixtures.mjs';
import { expectYAxis, recordCanvasText } from './charts.mjs';

test.use({ user: null });

const FILTER = "params.lr = '0.01'";

/** Path and query of a URL (what must survive the trip through sign-in). */
const view = (url) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The view a URL denotes: its path and its decoded query pairs, in order. */
const viewState = (url) => {
  const u = new URL(url);
  return { path: u.pathname, query: [...u.searchParams.entries()] };
};

/** The browser shows exactly the view of `link` (same path, same decoded query). */
async function expectView(page, link) {
  await expect.poll(() => viewState(page.url())).toEqual(viewState(link));
}

/** Signs in through the form on the sign-in page the browser was sent to, from `link`. */
async function openLinkSignedOut(browser, baseURL, link, who) {
  const context = await browser.newContext({ baseURL });
  await recordCanvasText(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(link);
  await expect(page).toHaveURL(/\/signin\?next=/);
  expect(new URL(page.url()).searchParams.get('next')).toBe(view(link));
  await signInWithForm(page, who);
  return { context, page, errors };
}

async function expectFilteredTable(page, share) {
  await expect(page.getByRole('combobox', { name: 'Filter runs' })).toHaveValue(FILTER);
  await expect(page.getByRole('link', { name: 'share-lr-0.01', exact: true })).toBeVisible();
  for (const other of Object.keys(share.runs).filter((n) => n !== 'share-lr-0.01')) {
    await expect(page.getByRole('link', { name: other, exact: true })).toHaveCount(0);
  }
}

async function expectDenied(page, share) {
  await expect(page.getByRole('heading', { name: "You don't have access to this experiment" })).toBeVisible();
  const grantors = page.getByRole('list', { name: 'People who can grant access' });
  await expect(grantors.getByText('alice', { exact: true })).toBeVisible();
  await expect(grantors.getByText('admin', { exact: true })).toBeVisible();
  const text = await page.locator('body').innerText();
  for (const leaked of [share.experiment_name, ...Object.keys(share.runs), 'adamw', '0.01']) {
    expect(text, `the denied page shows ${leaked}`).not.toContain(leaked);
  }
  await expect(page.locator('canvas')).toHaveCount(0);
}

test('alice shares a view with bob; carol is told whom to ask; bob cannot log', async ({ allowConsole, browser, page, context, baseURL, seed }) => {
  allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/, /status of 403 \(Forbidden\) \(http[^)]*\/api\/(v1\/tokens|2\.0\/mlflow\/users\/create)\)/);
  test.setTimeout(120_000);
  const share = seed.share;
  const runId = share.runs['share-lr-0.01'];
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await recordCanvasText(context);

  // alice signs in with the form, opens her experiment and grants bob CAN_READ.
  await page.goto('/');
  await expect(page).toHaveURL(/\/signin/);
  await signInWithForm(page, USERS.alice);
  await page.getByRole('textbox', { name: 'Search experiments' }).fill('e2e-share');
  await page.getByRole('link', { name: share.experiment_name }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: share.experiment_name })).toBeVisible();
  await page.getByRole('button', { name: 'Share' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Add people or groups').fill('bob');
  await dialog.getByRole('combobox', { name: 'Level', exact: true }).selectOption('CAN_READ');
  await dialog.getByRole('button', { name: 'Grant' }).click();
  await expect(dialog.getByLabel('Permission for bob')).toHaveValue('CAN_READ');
  await expect(dialog.getByRole('button', { name: 'Revoke bob' })).toBeEnabled();
  // alice owns the experiment: her row says so and offers no way to lock herself out.
  await expect(dialog.getByRole('button', { name: 'Revoke alice' })).toHaveCount(0);
  await expect(dialog.getByLabel('Permission for alice')).toBeDisabled();
  await expect(dialog.locator('.access-row', { hasText: 'alice' }).getByText('owner', { exact: true })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  // A filtered view; "Copy link" copies exactly the address of this view.
  const filter = page.getByRole('combobox', { name: 'Filter runs' });
  await filter.fill(FILTER);
  await filter.press('Enter');
  await expectFilteredTable(page, share);
  await page.getByRole('button', { name: 'Share' }).click();
  await dialog.getByRole('button', { name: 'Copy link' }).click();
  await expect(dialog.getByText('Link copied')).toBeVisible();
  const tableLink = await page.evaluate(() => navigator.clipboard.readText());
  expect(tableLink).toBe(page.url());
  expect(await dialog.getByLabel('Link to this view').inputValue()).toBe(tableLink);
  expect(new URL(tableLink).searchParams.get('filter')).toBe(FILTER);
  await page.keyboard.press('Escape');

  // A run's Metrics tab with log scale on: its link is the page's address. The loss falls
  // from 2.1 to 0.13, so the tick labels tell a linear axis from a logarithmic one.
  await page.getByRole('link', { name: 'share-lr-0.01', exact: true }).click();
  await page.getByRole('tab', { name: 'Metrics', exact: true }).click();
  const history = await page.request.get('/api/2.0/mlflow/metrics/get-history', { params: { run_id: runId, metric_key: 'loss' } });
  const losses = (await history.json()).metrics.map((m) => m.value);
  const range = { min: Math.min(...losses), max: Math.max(...losses) };
  const aliceChart = page.getByTestId('chart-loss');
  await expect(aliceChart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expectYAxis(aliceChart, { log: false, range });
  await page.getByLabel('Log scale').check();
  await expect(aliceChart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expectYAxis(aliceChart, { log: true, range });
  const runLink = page.url();
  expect(new URL(runLink).searchParams.get('tab')).toBe('metrics');
  expect(new URL(runLink).searchParams.get('log')).toBe('1');
  expect(runLink).toContain(runId);
  await signOut(page, 'alice');
  expect(tableLink.length).toBeLessThan(2000);

  // bob: each link, signed out, goes through sign-in and back to exactly that view.
  const bob = await openLinkSignedOut(browser, baseURL, tableLink, USERS.bob);
  await expectView(bob.page, tableLink);
  await expectFilteredTable(bob.page, share);
  await bob.context.close();
  const bobRun = await openLinkSignedOut(browser, baseURL, runLink, USERS.bob);
  await expectView(bobRun.page, runLink);
  await expect(bobRun.page.getByRole('heading', { level: 1, name: 'share-lr-0.01' })).toBeVisible();
  await expect(bobRun.page.getByRole('tab', { name: 'Metrics', exact: true })).toHaveAttribute('aria-selected', 'true');
  await expect(bobRun.page.getByLabel('Log scale')).toBeChecked();
  await expect(bobRun.page.getByTestId('chart-loss')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  // The link draws the axis logarithmic, not only the checkbox ticked.
  await expectYAxis(bobRun.page.getByTestId('chart-loss'), { log: true, range });
  // Read-only: the Share dialog shows bob's access but does not let him change it.
  await bobRun.page.goto(tableLink);
  await bobRun.page.getByRole('button', { name: 'Share' }).click();
  await expect(bobRun.page.getByLabel('Add people or groups')).toBeDisabled();
  expect(bob.errors.concat(bobRun.errors)).toEqual([]);
  await bobRun.context.close();

  // carol: the same links end on the permission message, with no data.
  for (const link of [tableLink, runLink]) {
    const carol = await openLinkSignedOut(browser, baseURL, link, USERS.carol);
    await expectView(carol.page, link);
    await expectDenied(carol.page, share);
    expect(carol.errors).toEqual([]);
    await carol.context.close();
  }
});

test("bob's API token reads alice's shared experiment but cannot log to it", async ({ playwright, baseURL, seed }) => {
  const share = seed.share;
  const runId = share.runs['share-lr-0.1'];
  // An API token made the way the Settings page makes one: bob's session plus its CSRF token.
  const session = await playwright.request.newContext({ baseURL });
  const me = await signInByApi(session, USERS.bob);
  const refused = await session.post('/api/v1/tokens', { data: { name: 'no-csrf' } });
  expect(refused.status(), 'a cookie-authenticated write without X-CSRF-Token').toBe(403);
  const created = await session.post('/api/v1/tokens', { data: { name: 'e2e' }, headers: { 'X-CSRF-Token': me.csrf_token } });
  expect(created.status(), await created.text()).toBe(201);
  const { token } = await created.json();
  const listed = await session.get('/api/v1/tokens');
  expect(await listed.text()).not.toContain(token);
  await session.dispose();

  // Independent of the test above: alice (re)grants bob CAN_READ through the sharing API.
  const owner = await playwright.request.newContext({ baseURL });
  const alice = await signInByApi(owner, USERS.alice);
  const granted = await owner.put(`/api/v1/experiments/${share.experiment_id}/access`, {
    data: { principal: { kind: 'user', name: 'bob' }, level: 'CAN_READ' },
    headers: { 'X-CSRF-Token': alice.csrf_token },
  });
  expect(granted.ok(), `${granted.status()} ${await granted.text()}`).toBe(true);
  await owner.dispose();

  const api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  const read = await api.get('/api/2.0/mlflow/runs/get', { params: { run_id: runId } });
  expect(read.status(), await read.text()).toBe(200);
  const log = await api.post('/api/2.0/mlflow/runs/log-metric', {
    data: { run_id: runId, key: 'bob_was_here', value: 1, timestamp: Date.now(), step: 0 },
  });
  expect(log.status(), await log.text()).toBe(403);
  expect((await log.json()).error_code).toBe('PERMISSION_DENIED');
  const after = await (await api.get('/api/2.0/mlflow/runs/get', { params: { run_id: runId } })).json();
  expect(after.run.data.metrics?.some((m) => m.key === 'bob_was_here') ?? false).toBe(false);
  await api.dispose();
});

test('a link whose filter holds & = + comes back intact after sign-in', async ({ allowConsole, page, seed }) => {
  allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/);
  // Characters that are syntax in a query string must survive the trip through /signin?next=.
  // (MLflow's grammar has AND only; the != clause matches every run and carries the syntax.)
  const tricky = "params.lr = '0.01' AND attributes.run_name != 'a&b=c+d'";
  const link = `/experiments/${seed.share.experiment_id}?filter=${encodeURIComponent(tricky)}`;
  await page.goto(link);
  await expect(page).toHaveURL(/\/signin\?next=/);
  await signInWithForm(page, USERS.alice);
  await expect(page.getByRole('combobox', { name: 'Filter runs' })).toHaveValue(tricky);
  await expect.poll(() => new URL(page.url()).searchParams.get('filter')).toBe(tricky);
  await expect(page.getByRole('link', { name: 'share-lr-0.01', exact: true })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});
