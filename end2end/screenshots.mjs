// Screenshots of the main pages for a human to look at (not part of the test run):
// experiments list, an experiment, a run's metrics, settings and sign-in, the GPU panel
// (page, run side panel, embed) over two simulated agents, a run's System metrics tab,
// the experiment's chart view with a bar panel (a metric each run logged once), and a
// registered model and one of its versions (as their owner, with the edit controls), at 1440 and 390
// CSS pixels wide, light and dark, into /tmp/shots/ (or the directory given as argument).
// It also prints, per shot, anything wider than the viewport (horizontal overflow).
//
//   cd end2end && node screenshots.mjs [/tmp/shots]
//
// SHOTS_ONLY=model,model-version (shot names, comma-separated) takes only those shots and
// starts no agents unless a GPU shot is among them.
//
// Starts and seeds its own server exactly like the tests (global-setup.mjs), so it needs
// the same RUNLENS_BIN / RUNLENS_DIST / RUNLENS_PYTHON, and RUNLENS_AGENT_BIN (agents.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, request } from '@playwright/test';
import { adminApi, agentBin, createTaggedRun, registerAgent, startAgent } from './agents.mjs';
import { seedArtifacts } from './tests/artifacts-seed.mjs';
import { freePort } from './server.mjs';
import { overflow } from './overflow.mjs';
import globalSetup from './global-setup.mjs';
import { ADMIN, USERS } from './users.mjs';
import config from './playwright.config.mjs';

const out = process.argv[2] || '/tmp/shots';
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];

const GPU_NODES = ['gpu-node-a', 'gpu-node-b'];
const STATE_NODES = ['gpu-node-a', 'cpu-only-node', 'offline-node'];

/**
 * Two simulated agents registered by the admin; alice's run tagged with both (so she may
 * watch them), a run launched by `runlens-agent run` (System metrics with GPUs) and an
 * embed link. Returns `{ tagged, system, embed, stop }`.
 */
async function setupGpus(base) {
  const agents = await Promise.all(GPU_NODES.map((name, i) => startAgent({ name, gpus: 4, interval: 1, seed: i })));
  // The panel's other states: a node without the NVIDIA driver, and one never reachable.
  agents.push(await startAgent({ name: 'cpu-only-node', gpus: 0, interval: 1 }));
  const admin = await adminApi({ request }, base, ADMIN);
  for (const a of agents) await registerAgent(admin, a);
  await registerAgent(admin, { name: 'offline-node', url: `http://127.0.0.1:${await freePort()}`, token: 't', interval: 1 });
  // Alice may watch every node (a run's runlens.nodes tag alone gives no access).
  for (const name of [...GPU_NODES, 'cpu-only-node', 'offline-node']) {
    const r = await admin.api.put(`/api/v1/nodes/${name}/access`, { data: { principal: { kind: 'user', name: 'alice' } }, headers: { 'X-CSRF-Token': admin.csrf } });
    if (r.status() !== 204) throw new Error(`granting ${name}: ${r.status()} ${await r.text()}`);
  }
  await admin.api.dispose();
  const token = JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
  const alice = await adminApi({ request }, base, USERS.alice);
  const tagged = await createTaggedRun(alice.api, base, token, { experiment: '/Users/alice/e2e-gpus', runName: 'two-node-job', nodes: GPU_NODES });
  await createTaggedRun(alice.api, base, token, { experiment: '/Users/alice/e2e-gpu-states', runName: 'states-job', nodes: STATE_NODES });
  execFileSync(agentBin(), ['run', '--server', base, '--experiment', '/Users/alice/e2e-gpus', '--run-name', 'agent-run',
    '--node-name', GPU_NODES[0], '--interval-secs', '1', '--simulate-gpus', '2', '--', 'sleep', '6'],
  { env: { ...process.env, RUNLENS_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] });
  const headers = { Authorization: `Bearer ${token}` };
  const exp = await (await alice.api.get('/api/2.0/mlflow/experiments/get-by-name?experiment_name=/Users/alice/e2e-gpus', { headers })).json();
  const found = await (await alice.api.post('/api/2.0/mlflow/runs/search', { data: { experiment_ids: [exp.experiment.experiment_id], filter: "attributes.run_name = 'agent-run'" }, headers })).json();
  const link = await alice.api.post('/api/v1/nodes/embed-links', { data: { nodes: GPU_NODES }, headers: { 'X-CSRF-Token': alice.csrf } });
  if (link.status() !== 200) throw new Error(`embed link: ${link.status()} ${await link.text()}`);
  const embed = (await link.json()).path;
  await alice.api.dispose();
  return { tagged, system: found.runs[0].info.run_id, embed, stop: () => Promise.all(agents.map((a) => a.kill())) };
}

/** A registered model of alice's with a description, tags and an alias on version 1. */
async function setupModel(base) {
  const name = 'iris-classifier';
  seedArtifacts(base, '/Users/alice/shots-models', name);
  const token = JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
  const alice = await request.newContext({ baseURL: base, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  const calls = [
    ['PATCH', 'registered-models/update', { name, description: 'Classifies **iris** flowers from sepal and petal sizes.' }],
    ['POST', 'registered-models/set-tag', { name, key: 'team', value: 'vision' }],
    ['POST', 'registered-models/set-tag', { name, key: 'dataset', value: 'iris-v2' }],
    ['POST', 'registered-models/alias', { name, alias: 'champion', version: '1' }],
    ['POST', 'model-versions/set-tag', { name, version: '1', key: 'validated', value: 'true' }],
    ['PATCH', 'model-versions/update', { name, version: '1', description: 'First version, trained on the full set.' }],
  ];
  for (const [method, endpoint, data] of calls) {
    const r = await alice.fetch(`/api/2.0/mlflow/${endpoint}`, { method, data });
    if (r.status() !== 200) throw new Error(`${endpoint}: ${r.status()} ${await r.text()}`);
  }
  await alice.dispose();
  return name;
}

/** Logs `test_accuracy` once in three seeded runs (a bar panel); returns their ids. */
async function logFinalAccuracy(base, seed) {
  const token = JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];
  const api = await request.newContext({ baseURL: base, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  const names = ['baseline', 'adam-0.001', 'sweep-lr-0.1'];
  for (const [i, name] of names.entries()) {
    const metrics = [{ key: 'test_accuracy', value: 0.82 + i * 0.05 + 0.00123, timestamp: Date.now(), step: 200 }];
    const r = await api.post('/api/2.0/mlflow/runs/log-batch', { data: { run_id: seed.runs[name], metrics } });
    if (!r.ok()) throw new Error(`logging test_accuracy: ${r.status()} ${await r.text()}`);
  }
  await api.dispose();
  return names.map((n) => seed.runs[n]);
}

/** Waits until every GPU chart on the page is drawn. */
async function gpuChartsDrawn(page) {
  await page.locator('.gpu-chart-canvas').first().waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('.node-card')].every((c) => c.dataset.state !== 'loading'), null, { timeout: 30_000 });
  await page.waitForFunction(() => [...document.querySelectorAll('.gpu-chart-canvas')].every((c) => c.dataset.status === 'drawn'), null, { timeout: 30_000 });
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const teardown = await globalSetup();
  const base = process.env.RUNLENS_E2E_URL;
  const seed = JSON.parse(process.env.RUNLENS_E2E_SEED);
  const only = process.env.SHOTS_ONLY ? process.env.SHOTS_ONLY.split(',') : null;
  const gpuShots = ['gpus', 'run-gpus', 'embed-gpus', 'gpus-states', 'run-system'];
  const gpus = !only || only.some((n) => gpuShots.includes(n)) ? await setupGpus(base) : { stop: async () => {} };
  const model = await setupModel(base);
  const barRuns = await logFinalAccuracy(base, seed);
  const browser = await chromium.launch(config.use.launchOptions);
  const all = [
    { name: 'gpus', path: `/gpus?nodes=${GPU_NODES.join(',')}&poll=2`, gpus: true },
    { name: 'run-gpus', path: `/runs/${gpus.tagged}?gpus=1`, gpus: true },
    { name: 'embed-gpus', path: gpus.embed, gpus: true, signedIn: false },
    { name: 'gpus-states', path: `/gpus?nodes=${STATE_NODES.join(',')}`, gpus: true },
    { name: 'run-system', path: `/runs/${gpus.system}?tab=system`, system: true },
    { name: 'signin', path: '/signin', signedIn: false },
    { name: 'experiments', path: '/' },
    { name: 'experiment', path: `/experiments/${seed.experiment_id}` },
    { name: 'experiment-share', path: `/experiments/${seed.experiment_id}`, share: true },
    { name: 'experiment-filter', path: `/experiments/${seed.experiment_id}`, filter: 'metrics.' },
    { name: 'experiment-charts-bars', path: `/experiments/${seed.experiment_id}?view=charts&sel=${barRuns.join(',')}`, bars: true },
    { name: 'experiment-compare', path: `/experiments/${seed.experiment_id}?view=compare&sel=${barRuns.join(',')}&pcc=params.lr&brush=params.lr:0.05:0.11`, compare: true },
    { name: 'run-metrics', path: `/runs/${seed.runs['spiky-run']}?tab=metrics`, chart: true },
    { name: 'run-overview', path: `/runs/${seed.runs['spiky-run']}` },
    { name: 'settings', path: '/settings' },
    { name: 'model', path: `/models/${model}` },
    { name: 'model-version', path: `/models/${model}/versions/1` },
  ];
  const pages = only ? all.filter((p) => only.includes(p.name)) : all;
  const findings = [];
  try {
    for (const size of WIDTHS) {
      for (const theme of THEMES) {
        const context = await browser.newContext({ baseURL: base, viewport: { width: size.width, height: size.height }, colorScheme: theme });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        for (const p of pages) {
          if (p.signedIn !== false && !(await context.cookies()).some((c) => c.name === 'runlens_session')) {
            const r = await page.request.post('/api/v1/session', { data: USERS.alice });
            if (r.status() !== 200) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
          }
          await page.goto(p.path);
          await page.waitForLoadState('networkidle');
          if (p.chart) {
            await page.getByTestId('chart-spiky').waitFor();
            await page.waitForFunction(() => document.querySelector('[data-testid="chart-spiky"]')?.dataset.status === 'drawn', null, { timeout: 30_000 });
          }
          if (p.bars) {
            // Panels fetch once on screen: bring the bar panel in, then back to the top.
            const bars = page.getByTestId('chart-test_accuracy');
            await bars.scrollIntoViewIfNeeded();
            await page.waitForFunction(() => document.querySelector('[data-testid="chart-test_accuracy"]')?.dataset.kind === 'bars', null, { timeout: 30_000 });
            await page.waitForFunction(() => [...document.querySelectorAll('.chart-canvas')].every((c) => c.dataset.status !== 'loading'), null, { timeout: 30_000 });
            await page.evaluate(() => window.scrollTo(0, 0));
          }
          if (p.compare) {
            await page.waitForFunction(() => document.querySelector('[data-testid="parallel-coordinates"]')?.dataset.status === 'drawn', null, { timeout: 30_000 });
          }
          if (p.gpus) await gpuChartsDrawn(page);
          if (p.system) {
            await page.getByTestId(`chart-system/${GPU_NODES[0]}/gpu_*_utilization_percentage`).waitFor();
            await page.waitForFunction(() => [...document.querySelectorAll('.chart-canvas')].every((c) => c.dataset.status === 'drawn'), null, { timeout: 30_000 });
          }
          if (p.share) {
            await page.getByRole('button', { name: 'Share' }).click();
            await page.getByRole('dialog', { name: 'Share' }).getByText('Who has access').waitFor();
          }
          if (p.filter) {
            await page.getByRole('combobox', { name: 'Filter runs' }).fill(p.filter);
            await page.getByRole('listbox', { name: 'Completions' }).waitFor();
          }
          await page.waitForTimeout(300);
          const file = path.join(out, `${p.name}-${size.width}-${theme}.png`);
          await page.screenshot({ path: file, fullPage: true });
          const o = await overflow(page);
          const note = o.scrollWidth > o.viewport || o.wide.length ? ` OVERFLOW scrollWidth=${o.scrollWidth} > ${o.viewport}: ${o.wide.join(', ')}` : '';
          console.log(`${file}${note}`);
          if (note) findings.push(`${p.name} @${size.width} ${theme}:${note}`);
        }
        if (errors.length) findings.push(`page errors @${size.width} ${theme}: ${errors.join(' | ')}`);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await gpus.stop();
    await teardown();
  }
  console.log(findings.length ? `\nfindings:\n${findings.join('\n')}` : '\nno overflow or page errors found');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
