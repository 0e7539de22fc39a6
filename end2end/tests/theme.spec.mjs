// Theme toggle: <html data-theme="dark">, a dark page background, and charts drawn in the
// dark palette (canvas pixels).
import { test, expect } from './fixtures.mjs';
import { canvasSummary, rgb } from './charts.mjs';

function luminance(rgb) {
  const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

async function background(page) {
  return page.evaluate(() => {
    for (const el of [document.body, document.documentElement]) {
      const c = getComputedStyle(el).backgroundColor;
      if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
    }
    return 'rgb(255, 255, 255)';
  });
}

test('toggle theme switches to dark and back', async ({ page }) => {
  await page.goto('/');
  const toggle = page.getByRole('button', { name: 'Toggle theme' });
  await expect(toggle).toBeVisible();
  const html = page.locator('html');
  // The OS preference is light (config), so one or two clicks reach dark.
  for (let i = 0; i < 2 && (await html.getAttribute('data-theme')) !== 'dark'; i++) {
    await toggle.click();
  }
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect.poll(async () => luminance(await background(page))).toBeLessThan(0.25);

  await toggle.click();
  await expect(html).not.toHaveAttribute('data-theme', 'dark');
  await expect.poll(async () => luminance(await background(page))).toBeGreaterThan(0.6);
});

// Chart colours follow the theme (palettes of app/src/theme.rs, matching style/main.css).
const LIGHT = { background: rgb('#ffffff'), line: rgb('#2563eb') };
const DARK = { background: rgb('#171a21'), line: rgb('#60a5fa') };

/** What the spiky chart drew: its corner (background) and the pixels of each palette. */
async function chartColours(chart) {
  const s = await canvasSummary(chart, { lightLine: LIGHT.line, darkLine: DARK.line, lightBg: LIGHT.background, darkBg: DARK.background }, 30);
  return {
    corner: s.corner.slice(0, 3),
    lightLine: s.colours.lightLine.count,
    darkLine: s.colours.darkLine.count,
    lightBg: s.colours.lightBg.count,
    darkBg: s.colours.darkBg.count,
    pixels: s.width * s.height,
  };
}

function expectPalette(c, theme) {
  const [own, other] = theme === 'dark' ? ['dark', 'light'] : ['light', 'dark'];
  const want = theme === 'dark' ? DARK : LIGHT;
  expect(c.corner, JSON.stringify(c)).toEqual(want.background);
  expect(c[`${own}Line`], JSON.stringify(c)).toBeGreaterThan(200);
  expect(c[`${other}Line`], JSON.stringify(c)).toBe(0);
  // The background is the theme's: most of the canvas, none of the other theme's.
  expect(c[`${own}Bg`], JSON.stringify(c)).toBeGreaterThan(c.pixels / 2);
  expect(c[`${other}Bg`], JSON.stringify(c)).toBe(0);
}

test('charts are drawn in the dark palette in dark theme, and redrawn on toggle', async ({ page, seed }) => {
  await page.goto(`/runs/${seed.runs['spiky-run']}?tab=metrics`);
  const chart = page.getByTestId('chart-spiky');
  await expect(chart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  await expect(chart).toHaveAttribute('data-line-color', '#2563eb');
  expectPalette(await chartColours(chart), 'light');

  const toggle = page.getByRole('button', { name: 'Toggle theme' });
  await toggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(chart).toHaveAttribute('data-line-color', '#60a5fa');
  await expect.poll(async () => (await chartColours(chart)).corner).toEqual(DARK.background);
  expectPalette(await chartColours(chart), 'dark');

  await toggle.click();
  await expect(chart).toHaveAttribute('data-line-color', '#2563eb');
  await expect.poll(async () => (await chartColours(chart)).corner).toEqual(LIGHT.background);
  expectPalette(await chartColours(chart), 'light');
});

test.describe('with the OS in dark mode', () => {
  test.use({ colorScheme: 'dark' });

  test('a chart opened from a link is drawn dark', async ({ page, seed }) => {
    await page.goto(`/runs/${seed.runs['spiky-run']}?tab=metrics`);
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    const chart = page.getByTestId('chart-spiky');
    await expect(chart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
    expectPalette(await chartColours(chart), 'dark');
  });
});
