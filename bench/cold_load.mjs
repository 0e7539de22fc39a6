// Time to the runs page's first table row (`tr.run-row` visible) in headless Chromium, cold
// (a fresh browser context: empty HTTP cache) and then warm (a second page in the same
// context, the app's files in its cache), with what the app's wasm cost on the wire.
//
// Usage: BENCH_USERNAME=u BENCH_PASSWORD=p node bench/cold_load.mjs URL REPEAT
// Each of REPEAT rounds signs in a fresh context (before the clock starts), loads URL cold,
// then warm. Prints one JSON line: {"cold_ms": [..], "warm_ms": [..], "wasm": [{encoding,
// wire_bytes, from_cache}, ..], "timeline": [..]} (per load, cold then warm: the wasm's
// fetch, and when the HTML, the app's files and the API calls ended, ms from navigation).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'end2end', 'package.json'));
const { chromium } = require('@playwright/test');

const [url, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 5);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Loads `url` in a new page of `context`; ms to the first run row, and the wasm's fetch. */
async function load(context) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const wasm = {};
  const ids = new Set();
  cdp.on('Network.responseReceived', (e) => {
    if (!e.response.url.endsWith('.wasm')) return;
    ids.add(e.requestId);
    const h = Object.fromEntries(Object.entries(e.response.headers || {}).map(([k, v]) => [k.toLowerCase(), v]));
    wasm.encoding = h['content-encoding'] || 'identity';
    wasm.status = e.response.status;
    wasm.from_cache = Boolean(e.response.fromDiskCache || e.response.fromPrefetchCache);
  });
  cdp.on('Network.requestServedFromCache', (e) => { if (ids.has(e.requestId)) wasm.from_cache = true; });
  cdp.on('Network.loadingFinished', (e) => { if (ids.has(e.requestId)) wasm.wire_bytes = e.encodedDataLength; });
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
  await page.locator('tr.run-row').first().waitFor({ state: 'visible', timeout: 120_000 });
  const ms = Math.round(performance.now() - started);
  // Where the time went, from the page's own clock (ms since navigation start).
  const timeline = await page.evaluate(() => {
    const r = (x) => Math.round(x);
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource')
      .filter((e) => /\.(wasm|js)$|\/api\//.test(e.name))
      .map((e) => [new URL(e.name).pathname.slice(0, 60), r(e.startTime), r(e.responseEnd)]);
    return { html: nav ? r(nav.responseEnd) : null, resources: res, row: r(performance.now()) };
  });
  await page.waitForLoadState('networkidle').catch(() => {});
  await page.close();
  return { ms, wasm, timeline };
}

const out = { cold_ms: [], warm_ms: [], wasm: [], timeline: [] };
try {
  for (let i = 0; i < repeat; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    if (process.env.BENCH_USERNAME) {
      const signIn = await context.request.post(new URL('/api/v1/session', url).toString(), {
        data: { username: process.env.BENCH_USERNAME, password: process.env.BENCH_PASSWORD },
      });
      if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);
    }
    const cold = await load(context);
    const warm = await load(context);
    out.cold_ms.push(cold.ms);
    out.warm_ms.push(warm.ms);
    out.wasm.push(cold.wasm, warm.wasm);
    out.timeline.push(cold.timeline, warm.timeline);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
