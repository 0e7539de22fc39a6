// The GPU resources panel against two simulated agents (runlens-agent serve
// --simulate-gpus 4, one sample a second), registered by the admin with a server of this
// spec's own, started with --embed-origin for a page on another origin that frames the
// panel: both nodes' GPUs shown and updating, Refresh, the idle pause and the back-fill on
// Resume, the hidden-tab pause, the run page's side panel, the page of every node, an
// unknown node, the embed link in a cross-origin iframe, and one agent killed while the
// other keeps updating (last, since it kills).
import http from 'node:http';
import { test, expect } from './fixtures.mjs';
import { freePort, startRunlens } from '../server.mjs';
import { ADMIN } from '../users.mjs';
import { adminApi, createTaggedRun, createToken, registerAgent, startAgent } from '../agents.mjs';

const NODES = ['gpu-node-a', 'gpu-node-b'];
const GPUS = 4;

test.describe.configure({ mode: 'serial' });
test.use({ user: null });

let runlens;
let admin;
let agents = [];
let runId;
let framePort;
let frameServer;
let frameSrc = '';

test.beforeAll(async ({ playwright }) => {
  test.setTimeout(90_000);
  framePort = await freePort();
  runlens = await startRunlens({
    args: ['--embed-origin', `http://localhost:${framePort}`],
    env: { RUNLENS_ADMIN_PASSWORD: ADMIN.password },
  });
  admin = await adminApi(playwright, runlens.url, ADMIN);
  agents = await Promise.all(NODES.map((name, i) => startAgent({ name, gpus: GPUS, interval: 1, seed: i })));
  for (const a of agents) await registerAgent(admin, a);
  const token = await createToken(admin, 'e2e-gpus');
  runId = await createTaggedRun(admin.api, runlens.url, token, { experiment: 'e2e-gpus', runName: 'two-node-job', nodes: NODES });
  // Another origin (localhost, not 127.0.0.1: another site, so no session cookie goes
  // with the framed page) serving a page that frames whatever `frameSrc` is.
  frameServer = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>notebook</title><h1>Notebook</h1><iframe src="${frameSrc}" width="1200" height="800"></iframe>`);
  });
  await new Promise((r) => frameServer.listen(framePort, '127.0.0.1', r));
});

test.afterAll(async () => {
  await Promise.all(agents.map((a) => a.kill()));
  if (frameServer) await new Promise((r) => frameServer.close(r));
  if (admin) await admin.api.dispose();
  if (runlens) await runlens.stop();
});

/** Signs the page in as the admin on this spec's server. */
async function signIn(page) {
  const r = await page.request.post(`${runlens.url}/api/v1/session`, { data: ADMIN });
  expect(r.status()).toBe(200);
}

const panel = (page) => page.getByTestId('gpu-panel');
const fetches = async (page) => Number(await panel(page).getAttribute('data-fetches'));
const samples = async (page) => Number(await panel(page).getAttribute('data-samples'));
const lastAt = async (page, node) => Number(await page.getByTestId(`gpu-chart-${node}-util`).getAttribute('data-last-at'));

/** Both nodes live, each with its GPUs' gauges and drawn history charts. */
async function expectBothNodes(scope) {
  for (const node of NODES) {
    const card = scope.getByTestId(`node-${node}`);
    await expect(card).toHaveAttribute('data-state', 'live');
    await expect(card.getByText('simulated', { exact: true })).toBeVisible();
    for (let i = 0; i < GPUS; i++) await expect(scope.getByTestId(`gpu-${node}-${i}`)).toBeVisible();
    await expect(scope.getByTestId(`gpu-chart-${node}-util`)).toHaveAttribute('data-status', 'drawn');
    await expect(scope.getByTestId(`gpu-chart-${node}-temperature`)).toHaveAttribute('data-status', 'drawn');
  }
}

test('the panel shows both nodes GPUs and keeps updating', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=1`);
  await expectBothNodes(page);
  await expect(page.getByTestId(`gpu-${NODES[0]}-0`)).toContainText('%');
  await expect(page.getByTestId(`gpu-${NODES[0]}-0`)).toContainText('GiB');
  const before = await Promise.all(NODES.map((n) => lastAt(page, n)));
  for (const [i, node] of NODES.entries()) {
    await expect.poll(() => lastAt(page, node), { timeout: 10_000 }).toBeGreaterThan(before[i]);
  }
  await expect(panel(page)).toHaveAttribute('data-activity', 'live');
});

test('each GPU shows the values its agent reported for the newest sample', async ({ page }) => {
  await signIn(page);
  // One fetch, then none for a minute: what is shown stays put while the agent is asked.
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=60`);
  await expectBothNodes(page);
  for (const [n, node] of NODES.entries()) {
    const at = await lastAt(page, node);
    const r = await fetch(`${agents[n].url}/v1/gpus?since=0`, { headers: { Authorization: `Bearer ${agents[n].token}` } });
    expect(r.ok).toBe(true);
    const snapshot = await r.json();
    const sample = snapshot.history.find((s) => s.at_ms === at);
    expect(sample, `the agent's sample at ${at}`).toBeTruthy();
    expect(sample.gpus).toHaveLength(GPUS);
    for (const gpu of sample.gpus) {
      const card = page.getByTestId(`gpu-${node}-${gpu.index}`);
      const value = (label) => card.locator('.gauge', { hasText: label }).locator('.gauge-value');
      await expect(value('Util')).toHaveText(`${gpu.utilization_percent} %`);
      await expect(value('Temp')).toHaveText(`${gpu.temperature_celsius} °C`);
    }
  }
});

test('Refresh fetches at once', async ({ page }) => {
  await signIn(page);
  // A minute between polls: any fetch after the first is the button's.
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=60`);
  await expectBothNodes(page);
  const n = await fetches(page);
  const at = await lastAt(page, NODES[0]);
  await page.waitForTimeout(1_500);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect.poll(() => fetches(page), { timeout: 5_000 }).toBe(n + 1);
  expect(await lastAt(page, NODES[0])).toBeGreaterThan(at);
});

test('pauses after the idle time, and Resume back-fills the gap', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=60&idle=3`);
  await expectBothNodes(page);
  await expect(page.getByText('Paused after 3 seconds of inactivity')).toBeVisible({ timeout: 10_000 });
  await expect(panel(page)).toHaveAttribute('data-activity', 'idle');
  const n = await fetches(page);
  const held = await samples(page);
  // Both agents keep sampling once a second while the panel is paused.
  await page.waitForTimeout(5_000);
  expect(await fetches(page), 'no fetch while paused').toBe(n);
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(panel(page)).toHaveAttribute('data-activity', 'live');
  await expect.poll(() => fetches(page), { timeout: 5_000 }).toBe(n + 1);
  // One fetch brought every sample of the pause, for both nodes (not just the latest).
  expect(await samples(page) - held).toBeGreaterThanOrEqual(2 * 4);
});

test('pauses while the tab is hidden and catches up when it is shown again', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=1`);
  await expectBothNodes(page);
  const setVisibility = (state) => page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
    Object.defineProperty(document, 'hidden', { value: s === 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
  await setVisibility('hidden');
  await expect(panel(page)).toHaveAttribute('data-activity', 'hidden');
  await expect(page.getByText('Paused while this tab is hidden')).toBeVisible();
  const n = await fetches(page);
  const held = await samples(page);
  await page.waitForTimeout(3_000);
  expect(await fetches(page), 'no fetch while hidden').toBe(n);
  await setVisibility('visible');
  await expect(panel(page)).toHaveAttribute('data-activity', 'live');
  await expect.poll(() => fetches(page), { timeout: 5_000 }).toBeGreaterThan(n);
  expect(await samples(page) - held).toBeGreaterThanOrEqual(2 * 3);
});

test('the run page opens the panel of the run\'s nodes as a side panel', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/runs/${runId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'two-node-job' })).toBeVisible();
  await page.getByRole('button', { name: 'GPUs', exact: true }).click();
  const side = page.getByRole('complementary', { name: 'GPUs' });
  await expectBothNodes(side);
  expect(new URL(page.url()).searchParams.get('gpus')).toBe('1');
  await page.reload();
  await expectBothNodes(page.getByRole('complementary', { name: 'GPUs' }));
  await page.getByRole('button', { name: 'Close the GPU panel' }).click();
  await expect(page.getByRole('complementary', { name: 'GPUs' })).toHaveCount(0);
  expect(new URL(page.url()).searchParams.get('gpus')).toBeNull();
});

test('without ?nodes= the page shows every node the user may watch', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/`);
  await page.getByRole('link', { name: 'GPUs', exact: true }).click();
  await expect(page).toHaveURL(/\/gpus$/);
  await expectBothNodes(page);
});

test('a node without the NVIDIA driver says so instead of showing empty charts', async ({ page }) => {
  // This machine has no GPU: an agent reading NVML finds no driver (skip where one exists).
  const plain = await startAgent({ name: 'cpu-only-node', gpus: 0, interval: 1 });
  try {
    await registerAgent(admin, plain);
    const probe = await (await fetch(`${plain.url}/v1/gpus`, { headers: { Authorization: `Bearer ${plain.token}` } })).json();
    test.skip(probe.driver.status !== 'missing', 'this machine has an NVIDIA driver');
    await signIn(page);
    await page.goto(`${runlens.url}/gpus?nodes=cpu-only-node`);
    const card = page.getByTestId('node-cpu-only-node');
    await expect(card).toHaveAttribute('data-state', 'live');
    await expect(card.getByText('No NVIDIA driver on node cpu-only-node')).toBeVisible();
    await expect(card.getByText('simulated', { exact: true })).toHaveCount(0);
    await expect(card.locator('canvas')).toHaveCount(0);
  } finally {
    await plain.kill();
  }
});

test('an unknown node is said plainly', async ({ allowConsole, page }) => {
  allowConsole(/status of 404 \(Not Found\) \(http[^)]*\/api\/v1\/nodes\/gpus\?nodes=[^)]*no-such-node/);
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES[0]},no-such-node`);
  await expect(page.getByTestId('gpu-error')).toContainText('Unknown node');
  await expect(page.getByTestId('gpu-error')).toContainText('no-such-node');
});

test('the embed link opens the panel inside an iframe of another origin', async ({ allowConsole, page }) => {
  allowConsole(/status of 403 \(Forbidden\) \(http[^)]*\/api\/v1\/embed\/gpus\?/);
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}`);
  await expectBothNodes(page);
  await page.getByRole('button', { name: 'Copy embed link' }).click();
  const link = page.getByRole('textbox', { name: 'Embed link' });
  await expect(link).toHaveValue(new RegExp(`^${runlens.url}/embed/gpus\\?`));
  const url = await link.inputValue();
  expect(new URL(url).searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
  await expect(page.getByTestId('embed-frame')).toContainText(`Notebooks served from http://localhost:${framePort} can show it`);
  // Only the embed origin may frame it.
  const resp = await page.request.get(url);
  expect(resp.headers()['content-security-policy']).toContain(`frame-ancestors http://localhost:${framePort}`);

  frameSrc = `${url}&poll=1`;
  await page.goto(`http://localhost:${framePort}/`);
  const frame = page.frameLocator('iframe');
  await expectBothNodes(frame);
  await expect(frame.getByRole('banner')).toHaveCount(0);
  await expect(frame.getByRole('button', { name: 'Copy embed link' })).toHaveCount(0);

  // A tampered signature shows why instead of a panel: the error alone, no empty cards.
  frameSrc = url.replace(/sig=([0-9a-f])/, (_, c) => `sig=${c === '0' ? '1' : '0'}`);
  await page.goto(`http://localhost:${framePort}/`);
  const tampered = page.frameLocator('iframe');
  await expect(tampered.getByTestId('gpu-error')).toContainText('not valid');
  await expect(tampered.getByTestId(`node-${NODES[0]}`)).toBeHidden();
  await expect(tampered.getByRole('button', { name: 'Refresh' })).toBeHidden();
});

test('without --embed-origin the embed link says embedding is off and how to turn it on', async ({ page, playwright }) => {
  const plain = await startRunlens({ env: { RUNLENS_ADMIN_PASSWORD: ADMIN.password } });
  const api = await adminApi(playwright, plain.url, ADMIN);
  try {
    await registerAgent(api, agents[0]);
    const r = await page.request.post(`${plain.url}/api/v1/session`, { data: ADMIN });
    expect(r.status()).toBe(200);
    await page.goto(`${plain.url}/gpus?nodes=${NODES[0]}`);
    await expect(page.getByTestId(`node-${NODES[0]}`)).toHaveAttribute('data-state', 'live');
    await page.getByRole('button', { name: 'Copy embed link' }).click();
    const note = page.getByTestId('embed-frame');
    await expect(note).toContainText('Embedding is off on this server');
    await expect(note).toContainText('--embed-origin');
    // The page says so because the server refuses to be framed anywhere.
    const url = await page.getByRole('textbox', { name: 'Embed link' }).inputValue();
    expect((await page.request.get(url)).headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  } finally {
    await api.api.dispose();
    await plain.stop();
  }
});

test('a killed agent shows unreachable while the other node keeps updating', async ({ page }) => {
  await signIn(page);
  await page.goto(`${runlens.url}/gpus?nodes=${NODES.join(',')}&poll=1`);
  await expectBothNodes(page);
  await agents[1].kill();
  const dead = page.getByTestId(`node-${NODES[1]}`);
  await expect(dead).toHaveAttribute('data-state', 'unreachable', { timeout: 15_000 });
  await expect(dead.getByTestId('node-state')).toContainText('Unreachable — last seen');
  // The other node is unaffected.
  const live = page.getByTestId(`node-${NODES[0]}`);
  await expect(live).toHaveAttribute('data-state', 'live');
  const at = await lastAt(page, NODES[0]);
  await expect.poll(() => lastAt(page, NODES[0]), { timeout: 10_000 }).toBeGreaterThan(at);
  await expect(live).toHaveAttribute('data-state', 'live');
  await expect(dead).toHaveAttribute('data-state', 'unreachable');
});
