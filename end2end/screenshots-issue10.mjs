// Screenshots of issue 10's pages for a human to look at (not part of the test run): the run's
// Artifacts tab (tree with a folder open, and a preview of text, JSON, CSV, an image and
// MLmodel), the run overview (models, datasets), the logged model page, the Models page and
// a registered model, at 1440 and 390 CSS pixels wide, light and dark, into
// /tmp/shots-issue10/ (or the directory given). Prints, per shot, horizontal overflow.
//
//   cd end2end && node screenshots-issue10.mjs [/tmp/shots-issue10]
//
// Starts and seeds its own server like the tests (global-setup.mjs + seed_artifacts.py), so
// it needs the same RUNLENS_BIN / RUNLENS_DIST / RUNLENS_PYTHON.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import globalSetup from './global-setup.mjs';
import { overflow } from './overflow.mjs';
import { seedArtifacts } from './tests/artifacts-seed.mjs';
import { USERS } from './users.mjs';
import config from './playwright.config.mjs';

const out = process.argv[2] || '/tmp/shots-issue10';
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const teardown = await globalSetup();
  const base = process.env.RUNLENS_E2E_URL;
  const s = seedArtifacts(base, '/Users/alice/screenshots-artifacts', 'iris-classifier');
  const run = `/runs/${s.run_id}`;
  const pages = [
    { name: 'artifacts-text', path: `${run}?tab=artifacts&file=logs/train.log`, wait: 'artifact-text' },
    { name: 'artifacts-json', path: `${run}?tab=artifacts&file=config/params.json`, wait: 'artifact-json' },
    { name: 'artifacts-csv', path: `${run}?tab=artifacts&file=data/train.csv`, wait: 'artifact-grid' },
    { name: 'artifacts-image', path: `${run}?tab=artifacts&file=plots/loss.png`, wait: 'artifact-image' },
    { name: 'artifacts-mlmodel', path: `${run}?tab=artifacts&file=model/MLmodel`, wait: 'mlmodel-card' },
    { name: 'artifacts-empty', path: `/runs/${s.empty_run_id}?tab=artifacts` },
    { name: 'run-overview-models', path: run },
    { name: 'logged-model', path: `/logged-models/${s.model_id}?file=MLmodel`, wait: 'mlmodel-card' },
    { name: 'models', path: '/models' },
    { name: 'registered-model', path: `/models/${s.model_name}` },
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
          await page.waitForLoadState('networkidle');
          if (p.wait) await page.getByTestId(p.wait).waitFor({ timeout: 15_000 });
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
    await teardown();
  }
  console.log(findings.length ? `\nfindings:\n${findings.join('\n')}` : '\nno overflow or page errors found');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
