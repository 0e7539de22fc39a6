// Reading what a metric chart drew. The charts are canvases painted by plotters, so their
// tick labels are not in the DOM: `recordCanvasText` wraps `fillText` before the app loads
// and keeps each canvas' labels of its latest drawing (with where they were drawn), and
// `canvasSummary` reads the canvas' pixels.
import { expect } from '@playwright/test';

/**
 * Makes every canvas of `target` (a page or a browser context) remember the text of its
 * latest drawing as `canvas.__texts`: `{ text, x, y, align, baseline }` in canvas pixels.
 * Call before the page loads.
 */
export async function recordCanvasText(target) {
  await target.addInitScript(() => {
    const proto = CanvasRenderingContext2D.prototype;
    const reset = (canvas) => {
      canvas.__texts = [];
    };
    const width = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width');
    Object.defineProperty(HTMLCanvasElement.prototype, 'width', {
      ...width,
      set(v) {
        reset(this);
        width.set.call(this, v);
      },
    });
    const fillRect = proto.fillRect;
    proto.fillRect = function (x, y, w, h) {
      // A drawing starts by filling the whole canvas with the background.
      if (x <= 0 && y <= 0 && w >= this.canvas.width && h >= this.canvas.height) reset(this.canvas);
      return fillRect.call(this, x, y, w, h);
    };
    const fillText = proto.fillText;
    proto.fillText = function (text, x, y, ...rest) {
      const m = this.getTransform();
      (this.canvas.__texts ||= []).push({
        text: String(text),
        x: m.a * x + m.c * y + m.e,
        y: m.b * x + m.d * y + m.f,
        align: this.textAlign,
        baseline: this.textBaseline,
        rotated: m.b !== 0,
      });
      return fillText.call(this, text, x, y, ...rest);
    };
  });
}

/** The number an axis label shows (`0.5`, `12.2k`, `1.5M`, `3.16e-4`), or NaN. */
export function labelValue(text) {
  const m = /^(-?\d+(?:\.\d+)?(?:e-?\d+)?)([kMG]?)$/.exec(text.trim());
  if (!m) return NaN;
  return Number(m[1]) * { '': 1, k: 1e3, M: 1e6, G: 1e9 }[m[2]];
}

/**
 * The tick labels of a chart's latest drawing: `y` (right-aligned, left of the plot) as
 * `{ text, value, pos }` sorted top to bottom, `x` (centred under the plot) sorted left to
 * right.
 */
export async function axisLabels(chart) {
  const texts = await chart.evaluate((el) => el.__texts || []);
  const y = texts
    .filter((t) => !t.rotated && (t.align === 'end' || t.align === 'right'))
    .map((t) => ({ text: t.text, value: labelValue(t.text), pos: t.y }))
    .sort((a, b) => a.pos - b.pos);
  const x = texts
    .filter((t) => !t.rotated && t.align === 'center')
    .map((t) => ({ text: t.text, value: labelValue(t.text), pos: t.x }))
    .sort((a, b) => a.pos - b.pos);
  return { x, y, all: texts.map((t) => t.text) };
}

/**
 * How far `labels` are from lying on a straight line when their values are mapped by `f`:
 * the largest residual of a least-squares fit of f(value) against the label's pixel
 * position, as a fraction of the range of f(value). Small (< 0.02) when the axis is
 * linear in f.
 */
export function misfit(labels, f) {
  const pts = labels.map((l) => [l.pos, f(l.value)]).filter(([, v]) => Number.isFinite(v));
  const n = pts.length;
  const mx = pts.reduce((s, [x]) => s + x, 0) / n;
  const my = pts.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = pts.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = pts.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const slope = sxy / sxx;
  const ys = pts.map(([, y]) => y);
  const range = Math.max(...ys) - Math.min(...ys);
  return Math.max(...pts.map(([x, y]) => Math.abs(y - (my + slope * (x - mx))))) / range;
}

/**
 * Asserts the chart's y axis as drawn is logarithmic (`log` true) or linear, from where
 * the drawing put things: the y tick labels (value at a pixel row) fix the axis' mapping
 * under each hypothesis, and the line's highest and lowest pixels must sit where that
 * mapping puts the series' largest and smallest values (`range: { min, max }`), within a
 * few pixels for the right hypothesis and far off for the other. With three or more
 * labels, they must also be evenly spaced in log10(value) or in value.
 */
export async function expectYAxis(chart, { log, range }) {
  let seen;
  await expect
    .poll(
      async () => {
        const { y } = await axisLabels(chart);
        const labels = y.filter((l) => l.value > 0);
        const hex = (await chart.getAttribute('data-line-color')) || '#000000';
        const { colours } = await canvasSummary(chart, { line: rgb(hex) }, 40);
        if (labels.length < 2 || colours.line.count < 50) return `not drawn yet: ${JSON.stringify({ y, line: colours.line })}`;
        // The stroke is 2 px wide: its centre is 1 px inside the extreme pixels.
        const top = colours.line.minY + 1;
        const bottom = colours.line.maxY - 1;
        const offBy = (f) => {
          const { a, b } = fit(labels.map((l) => [f(l.value), l.pos]));
          return Math.max(Math.abs(a + b * f(range.max) - top), Math.abs(a + b * f(range.min) - bottom));
        };
        seen = { labels: labels.map((l) => `${l.text}@${l.pos}`), top, bottom, linearOff: offBy((v) => v), logOff: offBy(Math.log10) };
        if (labels.length >= 3) {
          seen.linearMisfit = misfit(labels, (v) => v);
          seen.logMisfit = misfit(labels, Math.log10);
        }
        const [right, wrong] = log ? [seen.logOff, seen.linearOff] : [seen.linearOff, seen.logOff];
        const spacing = labels.length < 3 || (log ? seen.logMisfit < 0.02 : seen.linearMisfit < 0.02);
        return right <= 4 && wrong >= 15 && spacing ? 'ok' : JSON.stringify(seen);
      },
      { message: `the y axis is drawn ${log ? 'logarithmic' : 'linear'}`, timeout: 15_000 },
    )
    .toBe('ok');
  return seen;
}

/** Least-squares line y = a + b·x through `pts` ([x, y] pairs). */
function fit(pts) {
  const n = pts.length;
  const mx = pts.reduce((s, [x]) => s + x, 0) / n;
  const my = pts.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = pts.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const b = pts.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
  return { a: my - b * mx, b };
}

/** `#rrggbb` -> [r, g, b]. */
export function rgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

/**
 * Reads a chart canvas' pixels: the top-left pixel, and for each named colour
 * (`{ name: [r, g, b] }`) how many opaque pixels lie within `tolerance` (sum of channel
 * differences) of it and their bounding box.
 */
export async function canvasSummary(chart, colours, tolerance = 40) {
  return chart.evaluate(
    (el, { colours, tolerance }) => {
      const { width, height } = el;
      const data = el.getContext('2d').getImageData(0, 0, width, height).data;
      const out = { width, height, corner: [data[0], data[1], data[2], data[3]], colours: {} };
      for (const [name, want] of Object.entries(colours)) {
        let count = 0;
        let minX = width, maxX = -1, minY = height, maxY = -1;
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const i = (y * width + x) * 4;
            const d = Math.abs(data[i] - want[0]) + Math.abs(data[i + 1] - want[1]) + Math.abs(data[i + 2] - want[2]);
            if (d <= tolerance && data[i + 3] > 200) {
              count++;
              minX = Math.min(minX, x); maxX = Math.max(maxX, x);
              minY = Math.min(minY, y); maxY = Math.max(maxY, y);
            }
          }
        }
        out.colours[name] = { count, minX, maxX, minY, maxY };
      }
      return out;
    },
    { colours, tolerance },
  );
}

/**
 * Pixels of `colour` in a box of the canvas (canvas pixels, inclusive), counted with the
 * same tolerance as `canvasSummary`.
 */
export async function countInBox(chart, colour, box, tolerance = 40) {
  return chart.evaluate(
    (el, { colour, box, tolerance }) => {
      const data = el.getContext('2d').getImageData(0, 0, el.width, el.height).data;
      let n = 0;
      for (let y = Math.max(0, box.y0); y <= Math.min(el.height - 1, box.y1); y++) {
        for (let x = Math.max(0, box.x0); x <= Math.min(el.width - 1, box.x1); x++) {
          const i = (y * el.width + x) * 4;
          const d = Math.abs(data[i] - colour[0]) + Math.abs(data[i + 1] - colour[1]) + Math.abs(data[i + 2] - colour[2]);
          if (d <= tolerance && data[i + 3] > 200) n++;
        }
      }
      return n;
    },
    { colour, box, tolerance },
  );
}
