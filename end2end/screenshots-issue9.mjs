// Screenshots of issue 9's pages for a human to look at (not part of the test run): the
// experiments list (and its New experiment form refusing a taken name), the experiment
// page's Runs, Charts and Compare views (three runs selected), the run page's overview and
// metrics (a narrow-range metric, for the tick labels; long param and tag values; a run
// still RUNNING, for the live header), at 1440 and 390 CSS pixels wide, light and dark,
// into /tmp/shots-issue9/ (or the directory given, or $SHOTS_DIR). Prints, per shot,
// horizontal overflow.
//
//   cd end2end && node screenshots-issue9.mjs [/tmp/shots-issue9]
//
// Starts and seeds its own server like the tests (global-setup.mjs), so it needs the same
// RUNLENS_BIN / RUNLENS_DIST / RUNLENS_PYTHON.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, request as pwRequest } from '@playwright/test';
import globalSetup from './global-setup.mjs';
import { overflow } from './overflow.mjs';
import { USERS } from './users.mjs';
import config from './playwright.config.mjs';

const out = process.argv[2] || process.env.SHOTS_DIR || '/tmp/shots-issue9';
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];

/** A session for alice and MLflow writes through `/ajax-api/` with its CSRF token. */
async function mlflowAs(base, user) {
  const api = await pwRequest.newContext({ baseURL: base });
  const me = await (await api.post('/api/v1/session', { data: user })).json();
  const post = async (endpoint, data) => {
    const r = await api.post(`/ajax-api/2.0/mlflow/${endpoint}`, { data, headers: { 'X-CSRF-Token': me.csrf_token } });
    if (!r.ok()) throw new Error(`${endpoint}: ${r.status()} ${await r.text()}`);
    return r.json();
  };
  return { post, dispose: () => api.dispose() };
}

/** An experiment with a run whose metric barely moves around 80,800 (ticks must differ), still RUNNING. */
async function seedNarrow(base) {
  const m = await mlflowAs(base, USERS.alice);
  const { experiment_id } = await m.post('experiments/create', { name: '/Users/alice/screenshots-issue9' });
  const t0 = Date.now() - 600_000;
  const { run } = await m.post('runs/create', { experiment_id, run_name: 'narrow-and-running', start_time: t0 });
  const metrics = [];
  for (let s = 0; s < 300; s += 1) {
    metrics.push({ key: 'tokens_per_s', value: 80_800 + 40 * Math.sin(s / 20), timestamp: t0 + s * 1000, step: s });
    metrics.push({ key: 'loss', value: 2 * Math.exp(-s / 80) + 0.1, timestamp: t0 + s * 1000, step: s });
  }
  // Long unbroken values (a path, a JSON blob): the overview must not get wider than a phone.
  const params = [
    { key: 'data_path', value: `s3://bucket/${'very-long-directory-name/'.repeat(8)}train.parquet` },
    { key: 'a_rather_long_parameter_name_for_the_layout', value: '0.001' },
  ];
  const tags = [{ key: 'mlflow.source.name', value: `/home/alice/${'project/'.repeat(10)}train.py` }, { key: 'team', value: 'x'.repeat(120) }];
  await m.post('runs/log-batch', { run_id: run.info.run_id, metrics, params, tags });
  await m.dispose();
  return run.info.run_id;
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const teardown = await globalSetup();
  const base = process.env.RUNLENS_E2E_URL;
  const seed = JSON.parse(process.env.RUNLENS_E2E_SEED);
  const narrow = await seedNarrow(base);
  const exp = `/experiments/${seed.experiment_id}`;
  const sel = ['baseline', 'adam-0.001', 'sweep-lr-0.01'].map((n) => seed.runs[n]).join(',');
  const run = `/runs/${seed.runs.baseline}`;
  const pages = [
    { name: 'experiments', path: '/' },
    {
      name: 'experiments-new-taken',
      path: '/',
      act: async (page) => {
        await page.getByRole('button', { name: 'New experiment' }).click();
        await page.getByRole('textbox', { name: 'Experiment name' }).fill('/Users/alice/e2e-demo');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('alert').waitFor();
      },
    },
    { name: 'experiment-runs', path: `${exp}?sel=${sel}` },
    { name: 'experiment-charts', path: `${exp}?view=charts&sel=${sel}` },
    { name: 'experiment-compare', path: `${exp}?view=compare&sel=${sel}` },
    { name: 'run-overview', path: run },
    { name: 'run-metrics', path: `${run}?tab=metrics` },
    { name: 'run-live-metrics', path: `/runs/${narrow}?tab=metrics`, wait: 'run-live' },
    { name: 'run-live-overview', path: `/runs/${narrow}`, wait: 'run-live' },
  ];
  const browser = await chromium.launch(config.use.launchOptions);
  const findings = [];
  try {
    for (const size of WIDTHS) {
      for (const theme of THEMES) {
        const context = await browser.newContext({ baseURL: base, viewport: { width: size.width, height: size.height }, colorScheme: theme });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        const r = await page.request.post('/api/v1/session', { data: USERS.alice });
        if (r.status() !== 200) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
        for (const p of pages) {
          await page.goto(p.path);
          // A live page keeps its stream open: wait for the page, not for an idle network.
          await page.locator('main h1').first().waitFor({ timeout: 30_000 });
          if (p.wait) await page.getByTestId(p.wait).waitFor({ timeout: 15_000 });
          if (p.act) await p.act(page);
          await page.locator('.state-loading, canvas[data-status="loading"]').first().waitFor({ state: 'detached', timeout: 15_000 }).catch(() => {});
          await page.waitForTimeout(800);
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
    await teardown();
  }
  console.log(findings.length ? `\nfindings:\n${findings.join('\n')}` : '\nno overflow or page errors found');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
