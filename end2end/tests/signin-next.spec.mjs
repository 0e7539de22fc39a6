// `/signin?next=` with dot segments that a browser resolves to another host
// (`/..//evil.example` -> `//evil.example`): after signing in the browser must stay on
// runlens, on `/`, with the app alive (no panic, the experiments list renders), and never
// ask for evil.example.
import { test, expect, USERS, signInWithForm } from './fixtures.mjs';

test.use({ user: null });

// The query as typed in the address bar. The app decodes `next` once, so the last two make
// it see the percent-encoded dots themselves.
const CASES = [
  'next=/..//evil.example',
  'next=/%2e%2e//evil.example',
  'next=/.//evil.example',
  'next=%2F%252e%252e%2F%2Fevil.example',
  'next=%2F.%2F%2Fevil.example%2Fpath%3Fq%3D1',
];

for (const query of CASES) {
  test(`signing in from /signin?${query} lands on runlens' own start page`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
    page.on('console', (m) => {
      // Signed out, the app's session probe gets a 401: the browser logs that load as an error.
      if (m.type() === 'error' && !/Failed to load resource: .*401/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
    const foreign = [];
    page.on('request', (r) => {
      if (new URL(r.url()).hostname.endsWith('evil.example')) foreign.push(r.url());
    });
    await page.route((url) => url.hostname.endsWith('evil.example'), (route) => route.abort());

    await page.goto(`/signin?${query}`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await signInWithForm(page, USERS.bob);

    // Where the browser is, unless the page died on the way (then: why).
    const where = () => (errors.length ? errors.join('\n') : `${new URL(page.url()).origin}${new URL(page.url()).pathname}`);
    await expect.poll(where).toBe(`${new URL(baseURL).origin}/`);
    // Alive: the experiments list renders and its links work.
    await expect(page.getByRole('textbox', { name: 'Search experiments' })).toBeVisible();
    await expect(page.getByRole('link', { name: /e2e-other/ })).toBeVisible();
    await page.getByRole('link', { name: /e2e-other/ }).first().click();
    await expect(page.getByRole('heading', { level: 1, name: /e2e-other/ })).toBeVisible();
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
}
