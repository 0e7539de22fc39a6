// Run page: overview, Metrics tab, the `spiky` chart drawn with its single spike visible,
// and a deep link (?tab=metrics) that reloads to the same view.
import { test, expect, openExperiment } from './fixtures.mjs';

const SPIKE_STEP = 12_345;
const STEPS = 20_000;

/**
 * Reads the chart canvas: finds the pixels drawn in the line colour (the plot's data extent
 * is their bounding box), then counts those in the top 10% of that box near the spike's x.
 */
async function inspectChart(canvas) {
  return canvas.evaluate((el, { spikeFrac }) => {
    const hex = el.dataset.lineColor || '';
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const { width, height } = el;
    const data = el.getContext('2d').getImageData(0, 0, width, height).data;
    const close = (i) => Math.abs(data[i] - want[0]) + Math.abs(data[i + 1] - want[1]) + Math.abs(data[i + 2] - want[2]) <= 60 && data[i + 3] > 128;
    let nonBlank = 0;
    let minX = width, maxX = -1, minY = height, maxY = -1;
    const line = [];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        if (data[i + 3] > 0 && !(data[i] > 245 && data[i + 1] > 245 && data[i + 2] > 245)) nonBlank++;
        if (close(i)) {
          line.push([x, y]);
          minX = Math.min(minX, x); maxX = Math.max(maxX, x);
          minY = Math.min(minY, y); maxY = Math.max(maxY, y);
        }
      }
    }
    const plotW = maxX - minX, plotH = maxY - minY;
    const spikeX = minX + spikeFrac * plotW;
    const top = line.filter(([, y]) => y <= minY + 0.1 * plotH);
    const topNearSpike = top.filter(([x]) => Math.abs(x - spikeX) <= 0.02 * plotW + 2);
    return { hex, width, height, nonBlank, linePixels: line.length, plotW, plotH, spikeX, top: top.length, topNearSpike: topNearSpike.length };
  }, { spikeFrac: SPIKE_STEP / (STEPS - 1) });
}

async function expectSpikyChart(page) {
  const chart = page.getByTestId('chart-spiky');
  await expect(chart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  expect(Number(await chart.getAttribute('data-y-max'))).toBeGreaterThanOrEqual(100);
  expect(Number(await chart.getAttribute('data-y-min'))).toBeLessThan(1.0);
  expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(0);
  await expect(chart).toHaveAttribute('data-line-color', /^#[0-9a-fA-F]{6}$/);
  const seen = await inspectChart(chart);
  expect(seen.nonBlank, JSON.stringify(seen)).toBeGreaterThan(1000);
  expect(seen.linePixels, JSON.stringify(seen)).toBeGreaterThan(200);
  expect(seen.plotH, JSON.stringify(seen)).toBeGreaterThan(50);
  // The spike reaches the top of the plot, exactly where step 12,345 lies, and nothing else does.
  expect(seen.topNearSpike, JSON.stringify(seen)).toBeGreaterThan(0);
  expect(seen.top - seen.topNearSpike, JSON.stringify(seen)).toBeLessThanOrEqual(seen.top * 0.2);
}

test('run page shows overview and a drawn metrics chart with the spike', async ({ page }) => {
  await openExperiment(page);
  await page.getByRole('link', { name: 'spiky-run', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'spiky-run' })).toBeVisible();

  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
  await expect(page.getByText('optimizer', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('adamw', { exact: true }).first()).toBeVisible();

  await page.getByRole('tab', { name: 'Metrics', exact: true }).click();
  await expect(page.getByRole('tab', { name: 'Metrics', exact: true })).toHaveAttribute('aria-selected', 'true');
  await expectSpikyChart(page);
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-status', 'drawn');
  expect(new URL(page.url()).searchParams.get('tab')).toBe('metrics');
});

test('deep link to the metrics tab reloads to the same view', async ({ page, seed }) => {
  const runId = seed.runs['spiky-run'];
  await openExperiment(page);
  await page.getByRole('link', { name: 'spiky-run', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'spiky-run' })).toBeVisible();
  expect(page.url()).toContain(runId);

  const deep = new URL(page.url());
  deep.searchParams.set('tab', 'metrics');
  const resp = await page.goto(deep.toString());
  expect(resp.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'spiky-run' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Metrics', exact: true })).toHaveAttribute('aria-selected', 'true');
  await expectSpikyChart(page);

  await page.reload();
  await expectSpikyChart(page);
});
