// Theme toggle: <html data-theme="dark"> and a dark page background.
import { test, expect } from './fixtures.mjs';

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
