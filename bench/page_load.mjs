// Workload (3): open a runs page in headless Chromium (fresh profile, cold cache) and time it
// until the first run row shows; count the bytes transferred (CDP encodedDataLength: bodies
// as sent on the wire plus headers) until the network has been idle for a moment.
//
// Usage: [BENCH_USERNAME=u BENCH_PASSWORD=p] node bench/page_load.mjs URL ROW_TEXT_REGEX REPEAT
// With BENCH_USERNAME each fresh context first signs in (POST /api/v1/session, which sets
// the session cookie) before the clock starts: runlens answers nothing anonymously.
// Prints one JSON line: {"first_row_ms": [..], "bytes": [..], "requests": [..], "compressed": [..]}
// (compressed = responses that carried a Content-Encoding).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'end2end', 'package.json'));
const { chromium } = require('@playwright/test');

const [url, rowPattern, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 3);
const rowText = new RegExp(rowPattern);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = { first_row_ms: [], bytes: [], requests: [], compressed: [] };
try {
  for (let i = 0; i < repeat; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    if (process.env.BENCH_USERNAME) {
      const signIn = await context.request.post(new URL('/api/v1/session', url).toString(), {
        data: { username: process.env.BENCH_USERNAME, password: process.env.BENCH_PASSWORD },
      });
      if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);
    }
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0;
    let requests = 0;
    let compressed = 0;
    let lastActivity = Date.now();
    cdp.on('Network.requestWillBeSent', () => { requests++; lastActivity = Date.now(); });
    cdp.on('Network.responseReceived', (e) => {
      const h = Object.fromEntries(Object.entries(e.response.headers || {}).map(([k, v]) => [k.toLowerCase(), v]));
      if (h['content-encoding']) compressed++;
    });
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; lastActivity = Date.now(); });
    cdp.on('Network.dataReceived', () => { lastActivity = Date.now(); });

    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
    await page.getByText(rowText).first().waitFor({ state: 'visible', timeout: 120_000 });
    out.first_row_ms.push(Math.round(performance.now() - started));
    // Let the rest of the page load finish: 1.5 s without network activity.
    const deadline = Date.now() + 60_000;
    while (Date.now() - lastActivity < 1500 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    out.bytes.push(bytes);
    out.requests.push(requests);
    out.compressed.push(compressed);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
