// Live latency to the pixel (issue 9), the browser half of `bench/live_bench.py --pixel`:
// opens a runlens page in headless Chromium (signed in first) and records when the chart
// `data-testid="chart-<KEY>"` redraws with more points: a MutationObserver on its
// `data-points` attribute takes the wall clock (Date.now(), the same clock as the Python
// writer on this host) at the next animation frame after the canvas was drawn, i.e. when
// the new pixels are painted.
//
// Usage: node bench/live_pixel.mjs URL KEY   (BENCH_USERNAME / BENCH_PASSWORD sign in)
// Prints `ready <points>` once the chart has drawn, then waits for a line on stdin; at
// `done` prints one JSON line `[{"points": n, "t": ms}, ...]` and exits.
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'end2end', 'package.json'));
const { chromium } = require('@playwright/test');

const [url, key] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const signIn = await context.request.post(new URL('/api/v1/session', url).toString(), {
    data: { username: process.env.BENCH_USERNAME, password: process.env.BENCH_PASSWORD },
  });
  if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);
  const page = await context.newPage();
  await page.goto(url);
  const canvas = page.getByTestId(`chart-${key}`);
  await canvas.waitFor({ timeout: 60_000 });
  // Polled from here: the app's Content-Security-Policy forbids the page evaluating strings.
  const until = Date.now() + 60_000;
  while ((await canvas.getAttribute('data-status')) !== 'drawn') {
    if (Date.now() > until) throw new Error(`chart-${key} was not drawn`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const points = await page.evaluate((k) => {
    const el = document.querySelector(`[data-testid="chart-${k}"]`);
    window.__seen = [];
    // The chart canvas may be replaced (a new key, a refetch): watch the whole body.
    new MutationObserver(() => {
      const c = document.querySelector(`[data-testid="chart-${k}"]`);
      const n = Number(c?.dataset.points || 0);
      const last = window.__seen.length ? window.__seen[window.__seen.length - 1].points : 0;
      if (c?.dataset.status === 'drawn' && n > last) {
        window.__seen.push({ points: n, t: 0 });
        const rec = window.__seen[window.__seen.length - 1];
        requestAnimationFrame(() => { rec.t = Date.now(); });
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-points', 'data-status'] });
    return Number(el.dataset.points);
  }, key);
  console.log(`ready ${points}`);
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.trim() === 'done') break;
  }
  const seen = await page.evaluate(() => window.__seen);
  console.log(JSON.stringify(seen));
  await context.close();
} finally {
  await browser.close();
}
