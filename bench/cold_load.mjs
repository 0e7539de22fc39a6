// Time to the runs page's first table row (`tr.run-row` visible) in headless Chromium, cold
// (a new browser profile: empty HTTP cache and code cache) and then warm (a second page in
// the same profile: the app's files in the HTTP cache and the wasm's compiled code in the
// profile's code cache), with what the app's wasm cost on the wire.
//
// Usage: BENCH_USERNAME=u BENCH_PASSWORD=p node bench/cold_load.mjs URL REPEAT [SCROLL_STEPS]
// Each of REPEAT rounds launches Chromium on a new profile directory, a persistent one as a
// person's browser has (an incognito context, Playwright's `newContext`, keeps no compiled
// code, so its warm loads compile the wasm again), signs in (before the clock starts), then
// loads URL cold, then warm. Prints one JSON line: {"cold_ms": [..], "warm_ms": [..],
// "wasm": [{encoding, wire_bytes, from_cache}, ..], "timeline": [..]} (per load, cold then
// warm: the wasm's fetch, and when the HTML, the app's files and the API calls ended, ms
// from navigation). With SCROLL_STEPS, each round then opens the page once more and
// scrolls its table a row at a time (`scroll` below): "scroll_ms" and "scroll_floor_ms".
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'end2end', 'package.json'));
const { chromium } = require('@playwright/test');

const [url, repeatArg, scrollArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 5);
const scrollSteps = Number(scrollArg || 0);
const launchOptions = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

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

/**
 * Scrolls the runs table of a new page in `context` one row (36 px) at a time, `steps`
 * times, and times each step in the page's clock from the scroll to the second frame after
 * it (so the frame that shows the step's rows has been drawn); the same for steps of 1 px,
 * which change no row: the floor, two frames of the browser.
 */
async function scroll(context, steps) {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
  await page.locator('tr.run-row').first().waitFor({ state: 'visible', timeout: 120_000 });
  await page.waitForTimeout(500);
  const times = await page.evaluate(async (n) => {
    const el = document.querySelector('.runs-scroll');
    const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
    const run = async (px, count) => {
      const t = [];
      for (let i = 0; i < count; i++) {
        await frame();
        const t0 = performance.now();
        el.scrollTop += px;
        await frame();
        await frame();
        t.push(Math.round((performance.now() - t0) * 10) / 10);
      }
      return t;
    };
    return { floor: await run(1, 10), row: await run(36, n) };
  }, steps);
  await page.close();
  return times;
}

const out = { cold_ms: [], warm_ms: [], wasm: [], timeline: [], scroll_ms: [], scroll_floor_ms: [] };
for (let i = 0; i < repeat; i++) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runlens-cold-load-'));
  const context = await chromium.launchPersistentContext(dir, launchOptions);
  try {
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
    if (scrollSteps > 0) {
      const s = await scroll(context, scrollSteps);
      out.scroll_ms.push(...s.row);
      out.scroll_floor_ms.push(...s.floor);
    }
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(JSON.stringify(out));
