// A journey over every page of the app at 1440 and 390 px, in the light and the dark theme:
// each page shows its content, nothing sticks out sideways, and the page raises no error
// (the fixtures fail a test on any page error or unexpected console error).
import { test, expect } from './fixtures.mjs';
import { overflow } from '../overflow.mjs';
import { seedArtifacts } from './artifacts-seed.mjs';

const MODEL = 'e2e-journey-model';

let models;
/** A run with artifacts, a logged model and a registered model with version 1, once. */
function modelsSeed() {
  models ??= seedArtifacts(process.env.RUNLENS_E2E_URL, '/Users/alice/e2e-journey', MODEL);
  return models;
}

/** Every page a signed-in user can open, each with what shows that it is there. */
function pages(seed, m) {
  const runs = Object.values(seed.runs).slice(0, 3).join(',');
  const run = seed.runs['spiky-run'];
  const exp = `/experiments/${seed.experiment_id}`;
  return [
    { path: '/', ready: (p) => p.getByRole('heading', { name: 'Experiments' }) },
    { path: exp, ready: (p) => p.locator('tbody tr.run-row').first() },
    { path: `${exp}?view=charts&sel=${runs}`, ready: (p) => p.locator('.chart-canvas[data-status="drawn"]').first() },
    { path: `${exp}?view=compare&sel=${runs}`, ready: (p) => p.getByRole('tab', { name: /Compare/, selected: true }) },
    { path: `/runs/${run}`, ready: (p) => p.getByRole('tab', { name: 'Overview', selected: true }) },
    { path: `/runs/${run}?tab=metrics`, ready: (p) => p.getByTestId('chart-spiky') },
    { path: `/runs/${run}?tab=system`, ready: (p) => p.getByRole('tab', { name: /System/, selected: true }) },
    { path: `/runs/${run}?tab=logs`, ready: (p) => p.getByRole('tab', { name: 'Logs', selected: true }) },
    { path: `/runs/${m.run_id}?tab=artifacts`, ready: (p) => p.getByRole('tab', { name: 'Artifacts', selected: true }) },
    { path: '/models', ready: (p) => p.getByRole('link', { name: MODEL }) },
    { path: `/models/${MODEL}`, ready: (p) => p.getByRole('heading', { name: MODEL }) },
    { path: `/models/${MODEL}/versions/1`, ready: (p) => p.getByRole('heading', { name: `${MODEL} v1` }) },
    { path: `/logged-models/${m.model_id}`, ready: (p) => p.getByText(m.model_id).first() },
    { path: '/gpus', ready: (p) => p.getByRole('heading', { name: /GPU/ }).first() },
    { path: '/settings', ready: (p) => p.getByRole('heading', { name: 'Settings' }) },
  ];
}

for (const [label, viewport] of [['1440', { width: 1440, height: 900 }], ['390', { width: 390, height: 844 }]]) {
  for (const colorScheme of ['light', 'dark']) {
    test.describe(`at ${label} px, ${colorScheme}`, () => {
      test.use({ viewport, colorScheme });

      test('every page shows its content without errors or sideways overflow', async ({ page, seed }) => {
        test.setTimeout(120_000);
        const m = modelsSeed();
        const wide = [];
        for (const p of pages(seed, m)) {
          await page.goto(p.path);
          await expect(p.ready(page), p.path).toBeVisible({ timeout: 15_000 });
          await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);
          const o = await overflow(page);
          if (o.scrollWidth > o.viewport || o.wide.length) wide.push(`${p.path}: ${o.scrollWidth} > ${o.viewport} ${o.wide.join(', ')}`);
        }
        expect(wide).toEqual([]);
      });
    });
  }
}

test.describe('signed out', () => {
  // No credential, so the app asks nobody who is signed in: no request fails, none is logged.
  test.use({ user: null });

  test('the sign-in page at both widths and themes', async ({ page }) => {
    const sessionChecks = [];
    const dataRequests = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/v1/session') sessionChecks.push(r.method());
      else if (path.startsWith('/api/')) dataRequests.push(path);
    });
    for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
      for (const colorScheme of ['light', 'dark']) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme });
        await page.goto('/signin');
        await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
        await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);
        const o = await overflow(page);
        expect(o.scrollWidth, o.wide.join(', ')).toBeLessThanOrEqual(o.viewport);
      }
    }
    await page.goto('/experiments');
    await expect(page).toHaveURL(/\/signin\?next=\/experiments$/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    // Nor does an experiment's address start its data requests early (index.html's script).
    await page.goto('/experiments/1');
    await expect(page).toHaveURL(/\/signin\?next=\/experiments\/1$/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(sessionChecks).toEqual([]);
    expect(dataRequests).toEqual([]);
  });
});
