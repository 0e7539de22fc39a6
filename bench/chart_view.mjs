// Workspace benchmark (issue 9): open a chart view of several runs in headless Chromium
// (fresh profile, cold cache each time) and time it until every metric panel has drawn every
// run's line; count the bytes transferred (CDP encodedDataLength: bodies as sent plus
// headers) until the network has been idle for 1.5 s.
//
// Usage: node bench/chart_view.mjs KIND URL PANELS RUNS REPEAT
//   KIND runlens: URL is `/experiments/<id>?view=charts&sel=...`; a panel is a
//     `section.wchart` whose canvas says data-status="drawn" with data-lines >= RUNS.
//     BENCH_USERNAME/BENCH_PASSWORD sign in first (POST /api/v1/session, before the clock).
//   KIND mlflow: URL is MLflow's experiment page in chart mode; BENCH_MLFLOW_EXPERIMENT is
//     the experiment id whose remembered page state is set (before the page loads) to show
//     every run in the charts instead of the first 10; a panel is a Plotly chart with at
//     least RUNS drawn full-opacity lines (`path.js-line` with a non-empty `d`; MLflow
//     draws each run twice, smoothed over a faint raw line).
// Viewport 1440 x 2400 so that every panel is on screen at once (both UIs draw only the
// panels in view). Prints one JSON line:
// {"drawn_ms": [..], "bytes": [..], "requests": [..], "panels": [..], "lines": [..],
//  "data_requests": [..] (chart data calls), "data_urls": [first three of the first load]}
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'end2end', 'package.json'));
const { chromium } = require('@playwright/test');

const [kind, url, panelsArg, runsArg, repeatArg] = process.argv.slice(2);
const panels = Number(panelsArg);
const runs = Number(runsArg);
const repeat = Number(repeatArg || 3);
const timeout = Number(process.env.BENCH_TIMEOUT_MS || 900_000);

// Runs in the page: how many panels are complete, and how many lines they hold.
function progress([kind, runs]) {
  if (kind === 'runlens') {
    const canvases = [...document.querySelectorAll('section.wchart canvas.chart-canvas')];
    const done = canvases.filter((c) => c.dataset.status === 'drawn' && Number(c.dataset.lines) >= runs);
    return { done: done.length, lines: done.reduce((n, c) => n + Number(c.dataset.lines), 0) };
  }
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  let lines = 0;
  const done = plots.filter((p) => {
    // Each run is a full-opacity line (the smoothed one) over a faint raw one.
    const n = [...p.querySelectorAll('.scatterlayer path.js-line')]
      .filter((l) => (l.getAttribute('d') || '').length > 10 && l.style.strokeOpacity === '1').length;
    if (n >= runs) lines += n;
    return n >= runs;
  });
  return { done: done.length, lines };
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = { drawn_ms: [], bytes: [], requests: [], panels: [], lines: [], data_requests: [], data_urls: [] };
try {
  for (let i = 0; i < repeat; i++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 2400 } });
    if (process.env.BENCH_USERNAME) {
      const signIn = await context.request.post(new URL('/api/v1/session', url).toString(), {
        data: { username: process.env.BENCH_USERNAME, password: process.env.BENCH_PASSWORD },
      });
      if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);
    }
    if (kind === 'mlflow') {
      // MLflow remembers the experiment page's state in localStorage; a new profile shows the
      // first 10 runs in the charts. Show all of them, as a user would with the eye menu.
      const exp = process.env.BENCH_MLFLOW_EXPERIMENT;
      await context.addInitScript(([exp]) => {
        const key = `MLflowLocalStorage-1.1-ExperimentPage-["${exp}"]-ReactComponentState`;
        if (!localStorage.getItem(key)) localStorage.setItem(key, JSON.stringify({ runsHiddenMode: 'SHOW_ALL' }));
      }, [exp]);
    }
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0;
    let requests = 0;
    const dataUrls = [];
    let lastActivity = Date.now();
    cdp.on('Network.requestWillBeSent', (e) => {
      requests++;
      lastActivity = Date.now();
      // The chart data calls: runlens' series batches, MLflow's sampled histories.
      if (/\/experiments\/[^/]+\/series\?|get-history-bulk-interval/.test(e.request.url)) dataUrls.push(e.request.url);
    });
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; lastActivity = Date.now(); });
    cdp.on('Network.dataReceived', () => { lastActivity = Date.now(); });

    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
    // Poll from here (the app's Content-Security-Policy forbids evaluating strings).
    const until = Date.now() + timeout;
    for (;;) {
      const p = await page.evaluate(progress, [kind, runs]).catch(() => ({ done: 0 }));
      if (p.done >= panels) break;
      if (Date.now() > until) throw new Error(`timeout: ${p.done} of ${panels} panels drawn`);
      await new Promise((r) => setTimeout(r, 50));
    }
    out.drawn_ms.push(Math.round(performance.now() - started));
    const p = await page.evaluate(progress, [kind, runs]);
    out.panels.push(p.done);
    out.lines.push(p.lines);
    const deadline = Date.now() + 60_000;
    while (Date.now() - lastActivity < 1500 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    out.bytes.push(bytes);
    out.requests.push(requests);
    out.data_requests.push(dataUrls.length);
    if (i === 0) out.data_urls = dataUrls.slice(0, 3).map((u) => u.slice(0, 300));
    if (process.env.BENCH_SHOT) await page.screenshot({ path: `${process.env.BENCH_SHOT}-${i}.png` });
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
