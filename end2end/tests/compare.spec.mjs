// The compare view: three runs selected through the URL (`sel=`, with colours
// picked in `color=`) are diffed side by side, "Only differing rows" hides the equal rows,
// the parallel-coordinates canvas draws one line per run in its colour, and the scatter
// draws one point per run whose hover names the run. Uses alice's seeded e2e-share
// experiment (three runs: lr differs, optimizer is the same, metrics loss and accuracy).
import { test, expect } from './fixtures.mjs';

const COLORS = ['e41a1c', '377eb8', '4daf4a'];
const rgb = (hex) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * Reads a canvas' pixels: how many differ from the background (the top-left pixel), and for
 * each colour how many pixels are close to it and where the first one is (device pixels).
 */
async function canvasPixels(canvas, colors) {
  return canvas.evaluate((c, cols) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const near = (i, col, tol) => Math.abs(d[i] - col[0]) + Math.abs(d[i + 1] - col[1]) + Math.abs(d[i + 2] - col[2]) <= tol;
    const bg = [d[0], d[1], d[2]];
    let nonBackground = 0;
    const counts = cols.map(() => 0);
    const first = cols.map(() => null);
    for (let i = 0; i < d.length; i += 4) {
      if (!near(i, bg, 30)) nonBackground++;
      cols.forEach((col, k) => {
        if (near(i, col, 24)) {
          counts[k]++;
          if (!first[k]) first[k] = { x: (i / 4) % c.width, y: Math.floor(i / 4 / c.width) };
        }
      });
    }
    return { nonBackground, counts, first, scale: c.width / c.clientWidth, total: d.length / 4 };
  }, colors);
}

test('compare view: diff table, only differing rows, parallel coordinates and scatter', async ({ page, seed }) => {
  const share = seed.share;
  const names = Object.keys(share.runs);
  const ids = names.map((n) => share.runs[n]);
  const colors = ids.map((id, i) => `color=${id}:${COLORS[i]}`).join('&');
  await page.goto(`/experiments/${share.experiment_id}?view=compare&sel=${ids.join(',')}&${colors}`);
  await expect(page.getByRole('tab', { name: /Compare/ })).toHaveAttribute('aria-selected', 'true');

  // The diff table: one column per run, named, in selection order.
  const table = page.getByTestId('diff-table');
  await expect(table).toBeVisible();
  const heads = table.locator('thead th.diff-run');
  await expect(heads).toHaveText(names);
  for (let i = 0; i < ids.length; i++) {
    await expect(heads.nth(i).locator('.swatch')).toHaveAttribute('style', `background:#${COLORS[i]}`);
  }
  const lr = table.locator('tr[data-key="lr"]');
  const optimizer = table.locator('tr[data-key="optimizer"]');
  await expect(lr).toHaveClass(/differs/);
  await expect(lr.locator('td')).toHaveText(names.map((n) => n.replace('share-lr-', '')));
  // Cells that differ from the first run's value are highlighted; the first is not.
  await expect(lr.locator('td.cell-differs')).toHaveCount(2);
  await expect(optimizer).not.toHaveClass(/differs/);
  await expect(optimizer.locator('td')).toHaveText(['adamw', 'adamw', 'adamw']);
  await expect(table.locator('tr[data-key="loss"]')).toHaveClass(/differs/);

  // Only differing rows: the equal optimizer row goes, lr stays; the choice is in the URL.
  await page.getByLabel('Only differing rows').check();
  await expect(optimizer).toHaveCount(0);
  await expect(lr).toBeVisible();
  expect(new URL(page.url()).searchParams.get('diff')).toBe('1');
  await page.reload();
  await expect(page.getByLabel('Only differing rows')).toBeChecked();
  await expect(table.locator('tr[data-key="optimizer"]')).toHaveCount(0);

  // Parallel coordinates: default axes are the differing param (lr) and the first metric;
  // every run is drawn, in its colour.
  const pc = page.getByTestId('parallel-coordinates');
  await expect(pc).toHaveAttribute('data-status', 'drawn');
  await expect(pc).toHaveAttribute('data-lines', '3');
  await expect(pc).toHaveAttribute('data-axes', '2');
  const pcPixels = await canvasPixels(pc, COLORS.map(rgb));
  expect(pcPixels.nonBackground).toBeGreaterThan(2000);
  for (let i = 0; i < COLORS.length; i++) {
    expect(pcPixels.counts[i], `pixels of run ${names[i]}'s colour`).toBeGreaterThan(100);
  }
  // Choosing the metric axis keeps it in the URL.
  await expect(page.getByLabel('Metric axis')).toHaveValue('accuracy');
  await page.getByLabel('Metric axis').selectOption('loss');
  await expect.poll(() => new URL(page.url()).searchParams.get('pcm')).toBe('loss');
  await expect(pc).toHaveAttribute('data-status', 'drawn');

  // Scatter: one point per run; hovering a point names its run.
  const scatter = page.getByTestId('scatter');
  await expect(scatter).toHaveAttribute('data-status', 'drawn');
  await expect(scatter).toHaveAttribute('data-points', '3');
  await expect(page.getByLabel('Scatter x')).toHaveValue('params.lr');
  await expect(page.getByLabel('Scatter y')).toHaveValue('metrics.accuracy');
  const sc = await canvasPixels(scatter, COLORS.map(rgb));
  for (let i = 0; i < COLORS.length; i++) {
    expect(sc.counts[i], `scatter pixels of ${names[i]}`).toBeGreaterThan(20);
    const p = sc.first[i];
    await scatter.hover({ position: { x: p.x / sc.scale, y: p.y / sc.scale + 3 } });
    await expect(page.locator('.scatter-tip')).toHaveText(names[i]);
  }
  await page.getByLabel('Scatter y').selectOption('metrics.loss');
  await expect.poll(() => new URL(page.url()).searchParams.get('sy')).toBe('metrics.loss');
  await expect(scatter).toHaveAttribute('data-points', '3');
});

test('compare view asks for two runs when fewer are shown', async ({ page, seed }) => {
  const share = seed.share;
  const [a, b] = Object.values(share.runs);
  await page.goto(`/experiments/${share.experiment_id}?view=compare&sel=${a}`);
  await expect(page.getByText('Select at least two runs to compare')).toBeVisible();
  await expect(page.getByTestId('diff-table')).toHaveCount(0);
  // Two selected, one hidden: still fewer than two shown.
  await page.goto(`/experiments/${share.experiment_id}?view=compare&sel=${a},${b}&hide=${b}`);
  await expect(page.getByText('Select at least two runs to compare')).toBeVisible();
  await expect(page.getByTestId('parallel-coordinates')).toHaveCount(0);
});

// Viridis' ends: the lowest and highest value of the colour-by column.
const VIRIDIS_LOW = [0x44, 0x01, 0x54];
const VIRIDIS_HIGH = [0xfd, 0xe7, 0x25];

async function openCompare(page, seed, extra = '') {
  const share = seed.share;
  const ids = Object.values(share.runs);
  const colors = ids.map((id, i) => `color=${id}:${COLORS[i]}`).join('&');
  await page.goto(`/experiments/${share.experiment_id}?view=compare&sel=${ids.join(',')}&${colors}${extra}`);
  const pc = page.getByTestId('parallel-coordinates');
  await expect(pc).toHaveAttribute('data-status', 'drawn');
  await expect(pc).toHaveAttribute('data-lines', '3');
  return pc;
}

test('parallel coordinates: colour by a metric uses a colour scale and keeps it in the URL', async ({ page, seed }) => {
  const pc = await openCompare(page, seed);
  const before = await canvasPixels(pc, [...COLORS.map(rgb), VIRIDIS_HIGH]);
  expect(before.counts[0]).toBeGreaterThan(100);
  expect(before.counts[3]).toBeLessThan(20);
  await expect(page.getByLabel('Colour by')).toHaveValue('');
  await expect(page.getByTestId('colour-legend')).toHaveCount(0);

  await page.getByLabel('Colour by').selectOption('metrics.accuracy');
  await expect.poll(() => new URL(page.url()).searchParams.get('pcc')).toBe('metrics.accuracy');
  await expect(page.getByTestId('colour-legend')).toBeVisible();
  await expect.poll(async () => (await canvasPixels(pc, [VIRIDIS_HIGH])).counts[0]).toBeGreaterThan(100);
  const after = await canvasPixels(pc, [...COLORS.map(rgb), VIRIDIS_LOW, VIRIDIS_HIGH]);
  for (let i = 0; i < COLORS.length; i++) {
    expect(after.counts[i], `run colour ${COLORS[i]} gone`).toBeLessThan(20);
  }
  expect(after.counts[3], 'lowest value in viridis purple').toBeGreaterThan(100);

  // A shared link opens coloured the same way; back to run colours drops the key.
  await page.reload();
  await expect(page.getByLabel('Colour by')).toHaveValue('metrics.accuracy');
  await expect(page.getByTestId('colour-legend')).toBeVisible();
  await page.getByLabel('Colour by').selectOption('');
  await expect.poll(() => new URL(page.url()).searchParams.get('pcc')).toBe(null);
  await expect.poll(async () => (await canvasPixels(pc, [rgb(COLORS[0])])).counts[0]).toBeGreaterThan(100);
});

test('parallel coordinates: dragging on an axis brushes it, in the URL, and a click clears it', async ({ page, seed }) => {
  const pc = await openCompare(page, seed);
  const count = page.getByTestId('brush-count');
  await expect(count).toHaveText('3 of 3 runs');
  const axisX = (await pc.getAttribute('data-axis-x')).split(',').map(Number);
  const [top, bottom] = (await pc.getAttribute('data-plot-y')).split(',').map(Number);
  const box = await pc.boundingBox();
  // The first axis is lr (0.001 to 0.1): the top quarter holds only lr=0.1.
  const x = box.x + axisX[0];
  await page.mouse.move(x, box.y + top - 2);
  await page.mouse.down();
  await page.mouse.move(x, box.y + top + (bottom - top) * 0.15, { steps: 4 });
  await page.mouse.move(x, box.y + top + (bottom - top) * 0.25, { steps: 4 });
  await page.mouse.up();
  await expect(count).toHaveText('1 of 3 runs');
  await expect.poll(() => new URL(page.url()).searchParams.get('brush')).toMatch(/^params\.lr:0\.07\d*:0\.1$/);
  // Dimmed runs lose their colours: only lr=0.1 (the first) keeps its own.
  await expect.poll(async () => (await canvasPixels(pc, [rgb(COLORS[1])])).counts[0]).toBeLessThan(20);
  expect((await canvasPixels(pc, [rgb(COLORS[0])])).counts[0]).toBeGreaterThan(100);

  // A reload keeps the brush.
  await page.reload();
  await expect(pc).toHaveAttribute('data-status', 'drawn');
  await expect(count).toHaveText('1 of 3 runs');

  // Clear restores every run; a brush on the metric then a click on its axis clears it too.
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(count).toHaveText('3 of 3 runs');
  await expect.poll(() => new URL(page.url()).searchParams.get('brush')).toBe(null);
  const mx = box.x + axisX[1];
  // The whole axis (past both ends, clamped): every run stays in.
  await page.mouse.move(mx, box.y + top - 4);
  await page.mouse.down();
  await page.mouse.move(mx, box.y + bottom + 4, { steps: 6 });
  await page.mouse.up();
  await expect(count).toHaveText('3 of 3 runs');
  await expect.poll(() => new URL(page.url()).searchParams.get('brush')).toMatch(/^metrics\.accuracy:/);
  await page.mouse.click(mx, box.y + (top + bottom) / 2);
  await expect.poll(() => new URL(page.url()).searchParams.get('brush')).toBe(null);
  await expect(page.getByRole('button', { name: 'Clear' })).toHaveCount(0);
});
