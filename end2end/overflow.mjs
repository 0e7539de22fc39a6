// What sticks out of the viewport on the right in a screenshot (shared by screenshots.mjs and
// screenshots-issue10.mjs).

/** Elements that stick out of the viewport on the right, and the page's scroll width. */
export async function overflow(page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 1) {
        // Skip elements inside a horizontally scrolling box (tables are meant to scroll).
        let p = el.parentElement;
        let scrolls = false;
        while (p && p !== document.body) {
          const s = getComputedStyle(p);
          if (/(auto|scroll|hidden)/.test(s.overflowX) && p.getBoundingClientRect().right <= vw + 1) {
            scrolls = true;
            break;
          }
          p = p.parentElement;
        }
        if (!scrolls) wide.push(`${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''} right=${Math.round(r.right)}`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, viewport: vw, wide: wide.slice(0, 8) };
  });
}
