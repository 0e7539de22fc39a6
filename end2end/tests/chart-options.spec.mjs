// Chart options kept in the run page's URL beyond the tab and log scale: the x axis
// (`x=step|wall|relative`), smoothing (`smooth=`) and a chart's zoom (`zoom=key:min:max`).
// Each is opened from a link, and the test checks both the control and what the chart drew
// (tick labels read from the canvas' drawing, pixels of the line).
//
// The seeded `spiky-run` logs `spiky` at steps 0..19,999, 10 ms apart (200 s in all), about
// 1.0 everywhere except 100.0 at step 12,345.
import { test, expect } from './fixtures.mjs';
import { axisLabels, canvasSummary, countInBox, recordCanvasText, rgb } from './charts.mjs';

const SPIKE_STEP = 12_345;
const STEPS = 20_000;
const LIGHT_LINE = rgb('#2563eb');
// The raw line under a smoothed one: the line colour at 30% over the white background.
const LIGHT_FAINT = LIGHT_LINE.map((c) => Math.round(255 * 0.7 + c * 0.3));

test.beforeEach(async ({ page }) => {
  await recordCanvasText(page);
});

/** Opens spiky-run's Metrics tab with `query` and waits for the `spiky` chart. */
async function openSpiky(page, seed, query) {
  await page.goto(`/runs/${seed.runs['spiky-run']}?tab=metrics${query ? `&${query}` : ''}`);
  await expect(page.getByRole('tab', { name: 'Metrics', exact: true })).toHaveAttribute('aria-selected', 'true');
  const chart = page.getByTestId('chart-spiky');
  await expect(chart).toHaveAttribute('data-status', 'drawn', { timeout: 30_000 });
  return chart;
}

/** The chart's x tick labels once it has drawn at least three. */
async function xLabels(chart) {
  let labels = [];
  await expect
    .poll(async () => {
      labels = (await axisLabels(chart)).x;
      return labels.length;
    })
    .toBeGreaterThanOrEqual(3);
  return labels;
}

function pressed(page, name) {
  return page.getByRole('group', { name: 'X axis' }).getByRole('button', { name, exact: true });
}

test('x axis from the URL: step, wall time and relative time label the axis', async ({ page, seed }) => {
  // Step (the default): numbers up to 20k.
  let chart = await openSpiky(page, seed, '');
  await expect(pressed(page, 'Step')).toHaveAttribute('aria-pressed', 'true');
  let labels = await xLabels(chart);
  for (const l of labels) expect(Number.isFinite(l.value), JSON.stringify(labels)).toBe(true);
  expect(Math.max(...labels.map((l) => l.value))).toBeGreaterThanOrEqual(10_000);
  expect(Math.max(...labels.map((l) => l.value))).toBeLessThanOrEqual(STEPS);

  // Wall time: clock times (the run spans 200 s, within a day).
  chart = await openSpiky(page, seed, 'x=wall');
  await expect(pressed(page, 'Wall time')).toHaveAttribute('aria-pressed', 'true');
  await expect(pressed(page, 'Step')).toHaveAttribute('aria-pressed', 'false');
  // Ticks at whole 30 s or minutes, as HH:MM:SS or HH:MM (a date at midnight).
  labels = await xLabels(chart);
  for (const l of labels) expect(l.text, JSON.stringify(labels)).toMatch(/^(\d\d:\d\d(:[03]0)?|[A-Z][a-z]{2} \d+)$/);
  expect(new Set(labels.map((l) => l.text)).size).toBe(labels.length);

  // Relative: durations since the run started, from 0 to 3m 20s, at 30 s or whole
  // minutes (`0`, `30s`, `1m 30s`, `2m`).
  chart = await openSpiky(page, seed, 'x=relative');
  await expect(pressed(page, 'Relative')).toHaveAttribute('aria-pressed', 'true');
  labels = await xLabels(chart);
  for (const l of labels) expect(l.text, JSON.stringify(labels)).toMatch(/^(0|30s|\d+m( [03]0s)?)$/);
  expect(labels.some((l) => /^\d+m/.test(l.text)), JSON.stringify(labels)).toBe(true);
  expect(new Set(labels.map((l) => l.text)).size).toBe(labels.length);

  // Clicking an axis writes it into the URL.
  await pressed(page, 'Step').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('x')).toBeNull();
  await pressed(page, 'Wall time').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('x')).toBe('wall');
});

test('zoom from the URL: the chart shows only that range, and Reset zoom clears it', async ({ page, seed }) => {
  const card = page.locator('section.chart-card', { has: page.getByTestId('chart-spiky') });

  // Steps 0..5,000 leave the spike at 12,345 out: nothing near 100 is drawn.
  let chart = await openSpiky(page, seed, `zoom=${encodeURIComponent('spiky:0:5000')}`);
  await expect(card.getByRole('button', { name: 'Reset zoom' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reset zoom' })).toHaveCount(1);
  await expect(card.locator('.chart-legend')).toContainText('in range');
  expect(Number(await chart.getAttribute('data-y-max'))).toBeLessThan(2);
  let labels = await xLabels(chart);
  for (const l of labels) expect(l.value, JSON.stringify(labels)).toBeLessThanOrEqual(5000);

  // Steps 12,000..13,000 hold it.
  chart = await openSpiky(page, seed, `zoom=${encodeURIComponent('spiky:12000:13000')}`);
  await expect.poll(async () => Number(await chart.getAttribute('data-y-max'))).toBeGreaterThanOrEqual(100);
  labels = await xLabels(chart);
  for (const l of labels) {
    expect(l.value, JSON.stringify(labels)).toBeGreaterThanOrEqual(12_000);
    expect(l.value, JSON.stringify(labels)).toBeLessThanOrEqual(13_000);
  }

  // Reset zoom: the whole run again, and no zoom in the URL.
  await card.getByRole('button', { name: 'Reset zoom' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.getAll('zoom')).toEqual([]);
  await expect(page.getByRole('button', { name: 'Reset zoom' })).toHaveCount(0);
  await expect.poll(async () => Math.max(...(await axisLabels(chart)).x.map((l) => l.value))).toBeGreaterThan(13_000);
});

/**
 * Pixels of the solid line and of the faint (raw, under smoothing) line in the top 10% of
 * the plot around the spike's x.
 */
async function spikeTop(chart) {
  const s = await canvasSummary(chart, { solid: LIGHT_LINE, faint: LIGHT_FAINT }, 30);
  const boxes = Object.values(s.colours).filter((c) => c.count > 0);
  const minX = Math.min(...boxes.map((c) => c.minX));
  const maxX = Math.max(...boxes.map((c) => c.maxX));
  const minY = Math.min(...boxes.map((c) => c.minY));
  const maxY = Math.max(...boxes.map((c) => c.maxY));
  const x = minX + (SPIKE_STEP / (STEPS - 1)) * (maxX - minX);
  const dx = 0.02 * (maxX - minX) + 3;
  const box = { x0: Math.floor(x - dx), x1: Math.ceil(x + dx), y0: minY, y1: Math.round(minY + 0.1 * (maxY - minY)) };
  return {
    summary: s,
    box,
    solid: await countInBox(chart, LIGHT_LINE, box, 30),
    faint: await countInBox(chart, LIGHT_FAINT, box, 30),
  };
}

test('smoothing from the URL: the slider shows it and the drawn line is smoothed', async ({ page, seed }) => {
  // Unsmoothed: the line itself reaches the top at the spike.
  let chart = await openSpiky(page, seed, '');
  await expect(page.getByRole('slider', { name: 'Smoothing' })).toHaveValue('0');
  let top = await spikeTop(chart);
  expect(top.solid, JSON.stringify(top)).toBeGreaterThan(0);

  // smooth=0.9: the smoothed line stays low, only the faint raw line reaches the top.
  chart = await openSpiky(page, seed, 'smooth=0.9');
  await expect(page.getByRole('slider', { name: 'Smoothing' })).toHaveValue('0.9');
  await expect(page.locator('.chart-controls .control-value')).toHaveText('0.90');
  await expect.poll(async () => (await spikeTop(chart)).faint, { message: 'faint raw line at the spike' }).toBeGreaterThan(0);
  top = await spikeTop(chart);
  expect(top.solid, JSON.stringify(top)).toBe(0);

  // Moving the slider writes it into the URL.
  await page.getByRole('slider', { name: 'Smoothing' }).fill('0.5');
  await expect.poll(() => new URL(page.url()).searchParams.get('smooth')).toBe('0.50');
});
