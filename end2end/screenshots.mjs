// Screenshots of the main pages for a human to look at (not part of the test run):
// experiments list, an experiment, a run's metrics, settings and sign-in, at 1440 and 390
// CSS pixels wide, light and dark, into /tmp/shots/ (or the directory given as argument).
// It also prints, per shot, anything wider than the viewport (horizontal overflow).
//
//   cd end2end && node screenshots.mjs [/tmp/shots]
//
// Starts and seeds its own server exactly like the tests (global-setup.mjs), so it needs
// the same RUNLENS_BIN / RUNLENS_DIST / RUNLENS_PYTHON.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import globalSetup from './global-setup.mjs';
import { USERS } from './users.mjs';
import config from './playwright.config.mjs';

const out = process.argv[2] || '/tmp/shots';
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];

/** Elements that stick out of the viewport on the right, and the page's scroll width. */
async function overflow(page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 1) {
        // Skip elements inside a horizontally scrolling box (tables are meant to scroll).
        let p = el.parentElement;
        let scrolls = false;
        while (p && p !== document.body) {
          const s = getComputedStyle(p);
          if (/(auto|scroll|hidden)/.test(s.overflowX) && p.getBoundingClientRect().right <= vw + 1) {
            scrolls = true;
            break;
          }
          p = p.parentElement;
        }
        if (!scrolls) wide.push(`${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''} right=${Math.round(r.right)}`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, viewport: vw, wide: wide.slice(0, 8) };
  });
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const teardown = await globalSetup();
  const base = process.env.RUNLENS_E2E_URL;
  const seed = JSON.parse(process.env.RUNLENS_E2E_SEED);
  const browser = await chromium.launch(config.use.launchOptions);
  const pages = [
    { name: 'signin', path: '/signin', signedIn: false },
    { name: 'experiments', path: '/' },
    { name: 'experiment', path: `/experiments/${seed.experiment_id}` },
    { name: 'run-metrics', path: `/runs/${seed.runs['spiky-run']}?tab=metrics`, chart: true },
    { name: 'run-overview', path: `/runs/${seed.runs['spiky-run']}` },
    { name: 'settings', path: '/settings' },
  ];
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
