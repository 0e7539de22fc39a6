// Security checks against the live server: session cookie flags, security headers (CSP
// that lets the wasm app run, nosniff, no framing), no CSP violations while using the app,
// the sign-in rate limit, and secrets (passwords, tokens) never in response bodies or the
// server's log. (Cross-site forms: csrf.spec.mjs; `next=` after sign-in: signin-next.spec.mjs.)
//
// Framing of the embed route by the configured `--embed-origin` is checked in gpus.spec.mjs,
// which starts its own server with that flag.
import fs from 'node:fs';
import { test, expect, USERS, EXPERIMENT, openExperiment, signInByApi } from './fixtures.mjs';
import { ADMIN, SECRETS } from '../users.mjs';

/** Splits a Set-Cookie value into its attributes, lower-cased names. */
function cookieAttributes(setCookie) {
  const [pair, ...attrs] = setCookie.split(';').map((s) => s.trim());
  return { pair, attrs: Object.fromEntries(attrs.map((a) => a.split('=')).map(([k, v]) => [k.toLowerCase(), v ?? true])) };
}

function expectSecurityHeaders(resp, what) {
  const h = resp.headers();
  const csp = h['content-security-policy'] || '';
  expect(csp, `${what}: CSP`).toContain("'wasm-unsafe-eval'");
  expect(csp, `${what}: CSP`).toContain("default-src 'self'");
  expect(csp, `${what}: CSP`).toContain("object-src 'none'");
  const scriptSrc = (csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src')) || '').split(/\s+/);
  expect(scriptSrc, `${what}: script-src`).not.toContain("'unsafe-eval'");
  expect(scriptSrc, `${what}: script-src`).not.toContain("'unsafe-inline'");
  expect(h['x-content-type-options'], `${what}: nosniff`).toBe('nosniff');
  return csp;
}

test.describe('session cookie', () => {
  test.use({ user: null });

  test('is HttpOnly and SameSite=Lax, and Secure only over https', async ({ playwright, baseURL }) => {
    const api = await playwright.request.newContext({ baseURL });
    const plain = await api.post('/api/v1/session', { data: USERS.carol });
    expect(plain.status()).toBe(200);
    const { pair, attrs } = cookieAttributes(plain.headers()['set-cookie']);
    expect(pair).toMatch(/^runlens_session=[A-Za-z0-9]{20,}$/);
    expect(attrs.httponly).toBe(true);
    expect(String(attrs.samesite).toLowerCase()).toBe('lax');
    expect(attrs.path).toBe('/');
    expect(attrs.secure, 'no Secure over plain http').toBeUndefined();
    expect(Number(attrs['max-age'])).toBeGreaterThan(0);

    const proxied = await api.post('/api/v1/session', { data: USERS.carol, headers: { 'X-Forwarded-Proto': 'https' } });
    expect(cookieAttributes(proxied.headers()['set-cookie']).attrs.secure).toBe(true);
    await api.dispose();
  });

  test('the browser holds it as HttpOnly; signing out clears it', async ({ allowConsole, page, context }) => {
    allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/);
    await page.goto('/');
    await page.getByLabel('Username').fill(USERS.carol.username);
    await page.getByLabel('Password').fill(USERS.carol.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: 'carol' })).toBeVisible();
    const cookie = (await context.cookies()).find((c) => c.name === 'runlens_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    expect(await page.evaluate(() => document.cookie)).not.toContain('runlens_session');
    await page.getByRole('button', { name: 'carol' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    expect((await context.cookies()).find((c) => c.name === 'runlens_session')).toBeUndefined();
    const after = await page.request.get('/api/v1/experiments');
    expect(after.status()).toBe(401);
  });
});

test('security headers on the app, the APIs and their errors', async ({ page, playwright, baseURL }) => {
  const index = await page.request.get('/');
  expect(index.status()).toBe(200);
  const csp = expectSecurityHeaders(index, '/');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(index.headers()['x-frame-options']).toBe('DENY');
  for (const path of ['/api/v1/experiments', '/api/2.0/mlflow/experiments/search?max_results=10', '/ajax-api/2.0/mlflow/experiments/search?max_results=10']) {
    const r = await page.request.get(path);
    expect(r.status(), path).toBe(200);
    expect(expectSecurityHeaders(r, path)).toContain("frame-ancestors 'none'");
  }
  const anon = await playwright.request.newContext({ baseURL });
  const denied = await anon.get('/api/v1/experiments');
  expect(denied.status()).toBe(401);
  expectSecurityHeaders(denied, '401');
  await anon.dispose();
});

test('using the app logs no CSP violation', async ({ page, seed }) => {
  const console = [];
  page.on('console', (m) => console.push(m.text()));
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await openExperiment(page, EXPERIMENT);
  await page.getByRole('link', { name: 'spiky-run', exact: true }).click();
  await page.getByRole('tab', { name: 'Metrics', exact: true }).click();
  await expect(page.getByTestId('chart-spiky')).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await page.goto(`/experiments/${seed.experiment_id}`);
  await page.getByRole('button', { name: 'Share' }).click();
  await expect(page.getByRole('dialog', { name: 'Share' })).toBeVisible();
  await page.goto('/settings');
  await expect(page.getByLabel('Token name')).toBeVisible();
  const violations = await page.evaluate(() => window.__csp);
  expect(violations).toEqual([]);
  expect(console.filter((t) => /Content Security Policy|Refused to/i.test(t))).toEqual([]);
});

test.describe('sign-in rate limit', () => {
  test.use({ user: null });

  test('five failures lock the account out with 429, even for the right password', async ({ allowConsole, page, playwright, baseURL }) => {
    allowConsole(/status of 401 \(Unauthorized\) \(http[^)]*\/api\/v1\/session\)/, /status of 429 \(Too Many Requests\) \(http[^)]*\/api\/v1\/session\)/, /status of 403 \(Forbidden\) \(http[^)]*\/api\/v1\/session\)/);
    const api = await playwright.request.newContext({ baseURL });
    for (let i = 0; i < 5; i++) {
      const r = await api.post('/api/v1/session', { data: { username: USERS.dave.username, password: `wrong-${i}` } });
      expect(r.status(), `attempt ${i + 1}`).toBe(401);
      expect((await r.json()).code).toBe('UNAUTHENTICATED');
    }
    const limited = await api.post('/api/v1/session', { data: USERS.dave });
    expect(limited.status()).toBe(429);
    const body = await limited.json();
    expect(body.code).toBe('TOO_MANY_REQUESTS');
    expect(body.message).toMatch(/try again/i);
    expect(limited.headers()['set-cookie']).toBeUndefined();
    await api.dispose();

    await page.goto('/signin');
    await page.getByLabel('Username').fill(USERS.dave.username);
    await page.getByLabel('Password').fill(USERS.dave.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('Too many sign-in attempts');
    await expect(page).toHaveURL(/\/signin/);
  });
});

test('passwords and tokens never appear in responses or in the log', async ({ page, playwright, baseURL }) => {
  const bodies = [];
  const me = await signInByApi(page.request, USERS.alice);
  expect(JSON.stringify(me)).not.toContain(USERS.alice.password);

  // A token made in Settings is shown once, then never again.
  await page.goto('/settings');
  await page.getByLabel('Token name').fill('shown-once');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = await page.getByLabel('New token secret').inputValue();
  expect(secret.length).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await expect(page.getByText('shown-once').first()).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  const list = await page.request.get('/api/v1/tokens');
  bodies.push(await list.text());
  expect(JSON.parse(bodies.at(-1)).some((t) => t.name === 'shown-once')).toBe(true);

  const admin = await playwright.request.newContext({ baseURL });
  await signInByApi(admin, ADMIN);
  for (const path of ['/api/2.0/mlflow/users/list', '/api/2.0/mlflow/users/get?username=alice', '/api/v1/session', '/api/v1/principals?q=a']) {
    const r = await admin.get(path);
    expect(r.status(), path).toBe(200);
    bodies.push(await r.text());
  }
  await admin.dispose();

  const known = [...SECRETS, secret, ...JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS || '[]')];
  for (const body of bodies) {
    expect(body).not.toMatch(/argon2|password_hash|\$2[aby]\$/i);
    for (const s of known) expect(body).not.toContain(s);
  }
  const log = fs.readFileSync(process.env.RUNLENS_E2E_LOG, 'utf8');
  expect(log.length, 'the server log is being written').toBeGreaterThan(0);
  for (const s of known) expect(log.includes(s), 'a secret in the server log').toBe(false);
});
