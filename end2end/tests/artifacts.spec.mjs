// The run page's Artifacts tab over files logged by the stock mlflow client: the lazy tree
// (a folder logged with log_artifacts; a mocked folder of 1,005 entries for paging),
// previews of text (a large file paged by Range requests), JSON, CSV, an image and the
// MLmodel file, downloads of a file and of a folder as a zip, the empty state, and
// uploaded SVG / HTML files whose scripts never run in runlens' origin (neither in the
// preview nor when their URL is opened).
import { test, expect } from './fixtures.mjs';
import { seedArtifacts } from './artifacts-seed.mjs';

let seeded;

test.beforeAll(() => {
  seeded = seedArtifacts(process.env.RUNLENS_E2E_URL, '/Users/alice/e2e-artifacts', 'e2e-artifacts-model');
});

const tree = (page) => page.getByRole('navigation', { name: 'Artifact files' });
const row = (page, name) => tree(page).getByRole('button', { name, exact: true });

/** Opens the run's Artifacts tab. */
async function openTab(page, runId = seeded.run_id) {
  await page.goto(`/runs/${runId}`);
  await page.getByRole('tab', { name: 'Artifacts' }).click();
  await expect(page.getByRole('tab', { name: 'Artifacts' })).toHaveAttribute('aria-selected', 'true');
  expect(new URL(page.url()).searchParams.get('tab')).toBe('artifacts');
}

/** Records alert() dialogs and whether a script set `window.__pwned`. */
function watchScripts(page) {
  const dialogs = [];
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  return dialogs;
}

test('the tree lists the root, and a logged folder opens level by level', async ({ page }) => {
  await openTab(page);
  for (const name of ['config', 'data', 'logs', 'model', 'plots', 'evil.svg', 'page.html']) {
    await expect(row(page, name)).toBeVisible();
  }
  // Folders come first, then files.
  const names = await tree(page).locator(':scope > ul > li > .tree-row .tree-name .truncate').allTextContents();
  expect(names.map((n) => n.trim())).toEqual(['config', 'data', 'logs', 'model', 'plots', 'evil.svg', 'page.html']);
  await expect(row(page, 'train.csv')).toHaveCount(0);
  await row(page, 'data').click();
  await expect(row(page, 'data')).toHaveAttribute('aria-expanded', 'true');
  await expect(row(page, 'train.csv')).toBeVisible();
  await row(page, 'nested').click();
  await expect(row(page, 'readme.md')).toBeVisible();
  // Sizes are shown per file; the folder has a zip link.
  await expect(tree(page).locator('.tree-row', { has: page.getByRole('button', { name: 'train.csv', exact: true }) }).locator('.tree-size')).toHaveText(/\d+(\.\d)? (B|KiB)/);
  await expect(page.getByRole('link', { name: 'Download folder data (zip)' })).toHaveAttribute('href', /\/artifacts\/zip\?path=data$/);
  // Closing a folder hides its entries.
  await row(page, 'data').click();
  await expect(row(page, 'train.csv')).toHaveCount(0);
});

test('a text file previews, and the preview is in the URL', async ({ page }) => {
  await openTab(page);
  await row(page, 'logs').click();
  await row(page, 'train.log').click();
  const text = page.getByTestId('artifact-text');
  await expect(text).toContainText('epoch 0 loss 2.0000');
  await expect(text).toContainText('epoch 199 loss');
  expect(new URL(page.url()).searchParams.get('file')).toBe('logs/train.log');
  await page.reload();
  await expect(page.getByTestId('artifact-text')).toContainText('epoch 0 loss 2.0000');
  // The folder on the way to the file starts open.
  await expect(row(page, 'logs')).toHaveAttribute('aria-expanded', 'true');
  await expect(row(page, 'train.log')).toHaveAttribute('aria-current', 'true');
});

test('a large text file loads 256 KiB at a time with Range requests', async ({ page }) => {
  const ranges = [];
  page.on('request', (r) => {
    if (r.url().includes('/artifacts/file?path=logs%2Fbig.log') || r.url().includes('/artifacts/file?path=logs/big.log')) {
      ranges.push(r.headers().range);
    }
  });
  await page.goto(`/runs/${seeded.run_id}?tab=artifacts&file=logs/big.log`);
  const text = page.getByTestId('artifact-text');
  await expect(text).toContainText('line 000001 ');
  await expect(text).not.toContainText('line 010000');
  await expect(page.getByText('256 KiB of 625 KiB shown')).toBeVisible();
  const more = page.getByRole('button', { name: 'Load more' });
  await more.click();
  await expect(page.getByText('512 KiB of 625 KiB shown')).toBeVisible();
  await more.click();
  await expect(text).toContainText('line 010000 ');
  await expect(more).toHaveCount(0);
  expect(ranges).toEqual(['bytes=0-262143', 'bytes=262144-524287', 'bytes=524288-786431']);
  // Pages join without a lost or doubled byte.
  const all = await text.textContent();
  expect(all.length).toBe(640_000);
});

test('a folder of more than 1,000 entries pages with "Load more"', async ({ page }) => {
  // The server's paging is its own test; here a folder of 1,005 entries is mocked.
  const entry = (i) => ({ path: `many/f${String(i).padStart(4, '0')}.txt`, is_dir: false, size: 3 });
  await page.route(/\/artifacts\?path=many(&|$)/, (route) => {
    const token = new URL(route.request().url()).searchParams.get('page_token');
    const entries = token ? [1000, 1001, 1002, 1003, 1004].map(entry) : [...Array(1000).keys()].map(entry);
    route.fulfill({ json: { root_uri: 'mlflow-artifacts:/x', path: 'many', entries, next_page_token: token ? null : 'p2' } });
  });
  await page.route(/\/artifacts\?path=(&|$)/, (route) => {
    route.fulfill({ json: { root_uri: 'mlflow-artifacts:/x', path: '', entries: [{ path: 'many', is_dir: true, size: null }], next_page_token: null } });
  });
  await openTab(page);
  await row(page, 'many').click();
  await expect(row(page, 'f0999.txt')).toBeVisible();
  await expect(row(page, 'f1000.txt')).toHaveCount(0);
  await page.getByRole('button', { name: /^Load more \(1,000 shown/ }).click();
  await expect(row(page, 'f1004.txt')).toBeVisible();
  await expect(page.getByRole('button', { name: /^Load more/ })).toHaveCount(0);
  await expect(tree(page).locator('.tree-row')).toHaveCount(1006);
});

test('JSON is pretty-printed and coloured, CSV shows as a grid', async ({ page }) => {
  await openTab(page);
  await row(page, 'config').click();
  await row(page, 'params.json').click();
  const json = page.getByTestId('artifact-json');
  await expect(json).toBeVisible();
  await expect(json.locator('.tok-key', { hasText: '"layers"' })).toBeVisible();
  await expect(json.locator('.tok-num', { hasText: '0.001' })).toBeVisible();
  await expect(json.locator('.tok-lit', { hasText: 'true' })).toBeVisible();
  expect(await json.locator('.json-line').count()).toBeGreaterThan(8);

  await row(page, 'data').click();
  await row(page, 'train.csv').click();
  const grid = page.getByTestId('artifact-grid');
  await expect(grid.getByRole('columnheader', { name: 'accuracy' })).toBeVisible();
  await expect(grid.getByRole('row')).toHaveCount(51);
  await expect(grid.getByRole('cell', { name: '2.0000' })).toBeVisible();
});

test('an image previews through an <img>, and MLmodel as a summary', async ({ page }) => {
  await openTab(page);
  await row(page, 'plots').click();
  await row(page, 'loss.png').click();
  const img = page.getByTestId('artifact-image');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el) => el.complete && el.naturalWidth)).toBe(64);

  await row(page, 'model').click();
  await row(page, 'MLmodel').click();
  const card = page.getByTestId('mlmodel-card');
  await expect(card.getByText('python_function', { exact: true })).toBeVisible();
  await expect(card.getByText('sklearn', { exact: true })).toBeVisible();
  await expect(card.getByText('sepal_length: double')).toBeVisible();
  await expect(card.getByText('scikit-learn==1.5.1')).toBeVisible();
});

test('a file downloads with its name and bytes', async ({ page }) => {
  await openTab(page);
  await row(page, 'logs').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download train.log' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('train.log');
  const fs = await import('node:fs');
  const body = fs.readFileSync(await download.path(), 'utf8');
  expect(body.split('\n')[0]).toBe('epoch 0 loss 2.0000 accuracy 0.5000');
  expect(body.split('\n')).toHaveLength(201);
});

test('a folder downloads as a zip', async ({ page }) => {
  await openTab(page);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download folder data (zip)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('data.zip');
  const fs = await import('node:fs');
  const zip = fs.readFileSync(await download.path());
  expect(zip.subarray(0, 2).toString()).toBe('PK');
  expect(zip.includes(Buffer.from('nested/readme.md')) || zip.includes(Buffer.from('data/nested/readme.md'))).toBe(true);
});

test('an uploaded SVG with a script shows as an image and never runs it', async ({ allowConsole, page }) => {
  allowConsole(/Blocked script execution in '[^']*path=evil\.svg' because the document's frame is sandboxed/);
  const dialogs = watchScripts(page);
  await openTab(page);
  await row(page, 'evil.svg').click();
  const img = page.getByTestId('artifact-image');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el) => el.complete && el.naturalWidth)).toBe(120);
  // The markup never enters the page: no <svg> holding its script, no handler ran.
  await expect(page.locator('svg script')).toHaveCount(0);
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

  // Opened directly (a link to it in the same origin), it is sandboxed: still no script.
  const resp = await page.goto(`/api/v1/runs/${seeded.run_id}/artifacts/file?path=evil.svg`);
  expect(resp.status()).toBe(200);
  expect(resp.headers()['content-security-policy']).toContain('sandbox');
  expect(resp.headers()['x-content-type-options']).toBe('nosniff');
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
});

test('an uploaded HTML file shows as its source text and never runs', async ({ allowConsole, page }) => {
  allowConsole(/Blocked script execution in '[^']*path=page\.html' because the document's frame is sandboxed/);
  const dialogs = watchScripts(page);
  await openTab(page);
  await row(page, 'page.html').click();
  const text = page.getByTestId('artifact-text');
  await expect(text).toContainText('<script>window.__pwned');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

  const resp = await page.goto(`/api/v1/runs/${seeded.run_id}/artifacts/file?path=page.html`);
  expect(resp.headers()['content-type']).toMatch(/^text\/plain/);
  expect(resp.headers()['content-security-policy']).toContain('sandbox');
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
});

test('a run without artifacts says how to log them', async ({ page }) => {
  await page.goto(`/runs/${seeded.empty_run_id}?tab=artifacts`);
  await expect(page.getByText('No artifacts', { exact: true })).toBeVisible();
  await expect(page.getByText(/mlflow\.log_artifact\(\.\.\.\)/)).toBeVisible();
});

test('a file that does not exist says so', async ({ allowConsole, page }) => {
  allowConsole(/status of 404 \(Not Found\) \(http[^)]*path=logs\/missing\.log/);
  await page.goto(`/runs/${seeded.run_id}?tab=artifacts&file=logs/missing.log`);
  await expect(page.getByRole('alert')).toContainText('Not found');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the tab is in view, nothing overflows, and a selected file scrolls its preview into view', async ({ page }) => {
    await page.goto(`/runs/${seeded.run_id}?tab=artifacts`);
    const tab = page.getByRole('tab', { name: 'Artifacts' });
    await expect(tab).toBeInViewport();
    await row(page, 'logs').click();
    await row(page, 'train.log').click();
    await expect(page.getByTestId('artifact-text')).toBeVisible();
    await expect(page.getByRole('heading', { level: 2, name: 'train.log' })).toBeInViewport();
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(widths[0]).toBeLessThanOrEqual(widths[1]);
  });
});
