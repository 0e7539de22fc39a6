// Cross-site forms are refused. A page on another site (served here on http://localhost:PORT,
// while runlens is http://127.0.0.1:PORT: another site to the browser) auto-submits an HTML
// form with enctype="text/plain", which browsers send cross-site without a CORS preflight,
// and whose body can be made to parse as JSON:
//
//   <input name='{"username":"x","password":"y","pad":"' value='"}'>  ->  {"username":"x","password":"y","pad":"="}
//
// (a) Behind an SSO proxy (`--trusted-user-header X-Forwarded-User`) the browser's requests
//     carry the admin's identity by themselves: the form must not create a user or a token.
//     The proxy is a few lines of node in front of a runlens of this spec's own.
// (b) Login CSRF: a form posting bob's credentials to `/api/v1/session` must not sign the
//     victim's browser in as bob.
import http from 'node:http';
import { test, expect, USERS } from './fixtures.mjs';
import { freePort, startRunlens } from '../server.mjs';

test.use({ user: null });

/** HTML of a page that posts `fields` to `action` as text/plain as soon as it loads. */
function evilForm(action, json) {
  // Split the JSON so that text/plain's `name=value` puts the `=` inside a string.
  const body = JSON.stringify({ ...json, pad: '' });
  const cut = body.length - 2; // before the closing `"}`
  const attr = (s) => s.replace(/&/g, '&amp;').replace(/'/g, '&#39;');
  return `<!doctype html><title>cute cats</title>
<form id="f" method="POST" action="${attr(action)}" enctype="text/plain">
<input type="hidden" name='${attr(body.slice(0, cut))}' value='${attr(body.slice(cut))}'>
</form><script>document.getElementById('f').submit()</script>`;
}

/** An HTTP server on 127.0.0.1 answering each path with the page `pages[path]`. */
async function startEvilSite(pages) {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const html = pages[new URL(req.url, 'http://x').pathname];
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html || 'not here');
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  // `localhost`, not 127.0.0.1: a different site from runlens for the browser.
  return { origin: `http://localhost:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * A stand-in for an authenticating reverse proxy: forwards everything to `upstream`, with
 * the client's own X-Forwarded-User removed and `X-Forwarded-User: <user>` added (the user
 * the proxy signed in). Keeps the client's Host, Origin and Sec-Fetch-* headers.
 */
async function startSsoProxy(upstream, user) {
  const target = new URL(upstream);
  const port = await freePort();
  const seen = [];
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers['x-forwarded-user'];
    headers['x-forwarded-user'] = user;
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(up);
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

/** Loads `evilUrl` in `page` and waits for the form's POST to `path` to be answered. */
async function submitFrom(page, evilUrl, path) {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === path);
  await page.goto(evilUrl);
  const resp = await answered;
  return { status: resp.status(), body: await resp.text().catch(() => '') };
}

test.describe('behind an SSO proxy', () => {
  let runlens;
  let proxy;
  let evil;
  const admin = 'admin';

  test.beforeAll(async () => {
    runlens = await startRunlens({ args: ['--trusted-user-header', 'X-Forwarded-User'] });
    proxy = await startSsoProxy(runlens.url, admin);
    const pages = {
      '/user': evilForm(`${proxy.url}/api/2.0/mlflow/users/create`, { username: 'evil-user', password: 'evil-pw-1234567' }),
      '/token': evilForm(`${proxy.url}/api/v1/tokens`, { name: 'evil-token' }),
    };
    evil = await startEvilSite(pages);
  });

  test.afterAll(async () => {
    await evil?.close();
    await proxy?.close();
    await runlens?.stop();
  });

  test('a cross-site text/plain form creates no user and no token', async ({ allowConsole, page, playwright }) => {
    allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/, /status of 403 \(Forbidden\) \(http[^)]*\/api\/(v1\/tokens|2\.0\/mlflow\/users\/create)\)/);
    // The proxy works: a program's JSON request through it acts as the admin.
    const api = await playwright.request.newContext({ baseURL: proxy.url });
    const legit = await api.post('/api/2.0/mlflow/users/create', { data: { username: 'legit-user', password: 'legit-pw-1234567' } });
    expect(legit.status(), await legit.text()).toBe(200);
    const got = await api.get('/api/2.0/mlflow/users/get', { params: { username: 'legit-user' } });
    expect(got.status()).toBe(200);

    const user = await submitFrom(page, `${evil.origin}/user`, '/api/2.0/mlflow/users/create');
    const token = await submitFrom(page, `${evil.origin}/token`, '/api/v1/tokens');
    // The browser really sent the forms as a cross-site browser would.
    const posts = proxy.seen.filter((r) => r.method === 'POST' && r.headers['content-type']?.startsWith('text/plain'));
    expect(posts.map((r) => r.url)).toEqual(['/api/2.0/mlflow/users/create', '/api/v1/tokens']);
    for (const r of posts) {
      expect(r.headers.origin).toBe(evil.origin);
      expect(r.headers['sec-fetch-site']).toBe('cross-site');
    }

    // Refused, and nothing happened.
    expect(user.status, `users/create answered ${user.status} ${user.body}`).toBeGreaterThanOrEqual(400);
    expect(user.status).toBeLessThan(500);
    expect(token.status, `tokens answered ${token.status} ${token.body}`).toBeGreaterThanOrEqual(400);
    expect(token.status).toBeLessThan(500);
    const evilUser = await api.get('/api/2.0/mlflow/users/get', { params: { username: 'evil-user' } });
    expect(evilUser.status(), 'the evil form created a user').toBe(404);
    const tokens = await api.get('/api/v1/tokens');
    expect(tokens.status()).toBe(200);
    expect((await tokens.json()).map((t) => t.name)).not.toContain('evil-token');
    await api.dispose();
  });
});

test.describe('login CSRF', () => {
  let evil;

  test.beforeAll(async () => {
    const target = process.env.RUNLENS_E2E_URL;
    evil = await startEvilSite({ '/login': evilForm(`${target}/api/v1/session`, { username: USERS.bob.username, password: USERS.bob.password }) });
  });

  test.afterAll(async () => {
    await evil?.close();
  });

  test("a cross-site text/plain form does not sign the browser in", async ({ allowConsole, page, context }) => {
    allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/, /status of 403 \(Forbidden\) \(http[^)]*\/api\/v1\/session\)/);
    const resp = await submitFrom(page, `${evil.origin}/login`, '/api/v1/session');
    expect(resp.status, `session answered ${resp.status} ${resp.body}`).toBeGreaterThanOrEqual(400);
    expect(resp.status).toBeLessThan(500);
    expect((await context.cookies()).find((c) => c.name === 'runlens_session')).toBeUndefined();
    // The app still asks to sign in.
    await page.goto('/');
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByRole('button', { name: USERS.bob.username })).toHaveCount(0);
  });
});

test("an API 401 to the browser does not ask for Basic credentials (no prompt to cache them)", async ({ allowConsole, page }) => {
  allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/, /status of 401 \(Unauthorized\) \(http[^)]*\/api\/2\.0\/mlflow\/experiments\/search/);
  // A navigation to the MLflow API, signed out: a `WWW-Authenticate: Basic` here would make
  // the browser prompt, cache what the user types, and send it with cross-site forms later.
  const nav = await page.goto('/api/2.0/mlflow/experiments/search?max_results=1');
  expect(nav.status()).toBe(401);
  expect(nav.headers()['www-authenticate']).toBeUndefined();
  // The same from the app's own fetch.
  await page.goto('/signin');
  const fromApp = await page.evaluate(async () => {
    const r = await fetch('/api/2.0/mlflow/experiments/search?max_results=1');
    return { status: r.status, auth: r.headers.get('www-authenticate') };
  });
  expect(fromApp).toEqual({ status: 401, auth: null });
});
