// tld4 serve's page: the zoom on the main grid. Nothing of the gather changes with it: the
// grid is drawn in content units (the unzoomed layout's pixels) and the zoom only sets the
// SVG's viewBox; sizes that must stay readable (text, radii, stroke widths) are divided by the
// zoom once drawn (keepScreenSizes). The view is kept in the page's URL as `zoom` and `at` (the
// view's centre in texels, u*W and v*H of the drawn texture or cube face), beside the query
// named as explain's flags, which the API and the command line alone see.
'use strict';

// The view: the zoom (1 = the whole texture) and its centre in texels (null: the middle).
const view = { zoom: 1, at: null };
// The most screen pixels one 1/256-texel step may take: the zoom's upper bound.
const ZOOM_MAX_STEP_PX = 48;
// The 1/256-texel lattice is drawn once its steps are this many screen pixels apart.
const LATTICE_MIN_PX = 6;
// The sub-texel lattice: 8 fractional bits (docs/sources.md, Sub-texel model: rounding to nearest
// measured on NVIDIA hardware by a third party; the tie rule unmeasured).
const LATTICE = 256;
// A press that moves further than this (screen pixels) pans instead of pinning.
const PAN_SLOP_PX = 4;

function readView(p) {
  const z = Number(p.get('zoom'));
  view.zoom = Number.isFinite(z) && z > 1 ? z : 1;
  const at = (p.get('at') || '').split(',').map(Number);
  view.at = at.length === 2 && at.every(Number.isFinite) ? at : null;
}

// The view's part of the page's query string ('' for the whole texture).
function viewQuery() {
  if (view.zoom <= 1 || !view.at) return '';
  // (the digits viewBox rounds to)
  const n = (x, d) => String(+x.toFixed(d));
  return '&zoom=' + n(view.zoom, 3) + '&at=' + n(view.at[0], 6) + ',' + n(view.at[1], 6);
}

function maxZoom(L) {
  return Math.max(1, (LATTICE * ZOOM_MAX_STEP_PX) / L.cell);
}

// Screen pixels between two lattice lines.
function latticeStepPx(L) {
  return (L.cell * view.zoom) / LATTICE;
}

// The rectangle of content the SVG shows (its viewBox). The centre is clamped so the view stays
// inside the drawing, and the zoom and centre are rounded to the digits the URL keeps
// (viewQuery) and written back to `view`, so a link shows exactly this rectangle.
function viewBox(L) {
  view.zoom = +Math.min(Math.max(1, view.zoom), maxZoom(L)).toFixed(3);
  const w = L.width / view.zoom, h = L.height / view.zoom;
  let cx = L.width / 2, cy = L.height / 2;
  if (view.at) { cx = L.x0 + view.at[0] * L.cell; cy = L.y0 + view.at[1] * L.cell; }
  cx = Math.min(Math.max(cx, w / 2), L.width - w / 2);
  cy = Math.min(Math.max(cy, h / 2), L.height - h / 2);
  view.at = [+((cx - L.x0) / L.cell).toFixed(6), +((cy - L.y0) / L.cell).toFixed(6)];
  cx = L.x0 + view.at[0] * L.cell;
  cy = L.y0 + view.at[1] * L.cell;
  return { x: cx - w / 2, y: cy - h / 2, w, h };
}

// The cells [a, b) of n cells from `origin`, `cell` wide, that meet the span [lo, lo + len]
// of the view.
function inView(lo, len, origin, cell, n) {
  const a = Math.max(0, Math.floor((lo - origin) / cell));
  const b = Math.min(n, Math.ceil((lo + len - origin) / cell));
  return [a, Math.max(a, b)];
}

// A point of the window (clientX, clientY) in the grid's content units.
function toContent(svg, x, y) {
  const p = svg.createSVGPoint();
  p.x = x; p.y = y;
  return p.matrixTransform(svg.getScreenCTM().inverse());
}

// Zooms to z, keeping the content point `anchor` where it is on the screen (the view's
// centre when none is given).
function zoomTo(L, z, anchor) {
  const vb = viewBox(L);
  const c = { x: vb.x + vb.w / 2, y: vb.y + vb.h / 2 };
  const a = anchor || c;
  const nz = Math.min(Math.max(1, z), maxZoom(L));
  const f = view.zoom / nz;
  view.at = [(a.x - (a.x - c.x) * f - L.x0) / L.cell, (a.y - (a.y - c.y) * f - L.y0) / L.cell];
  view.zoom = nz;
}

// Moves the view by (dx, dy) screen pixels from the centre `from` (texels).
function panBy(L, from, dx, dy) {
  const s = L.cell * view.zoom;
  view.at = [from[0] - dx / s, from[1] - dy / s];
}

function resetView() {
  view.zoom = 1;
  view.at = null;
}

// Text, radii, strokes and dashes drawn in content units, divided by the zoom so they keep
// their size on the screen (a marker, sized by its line's stroke width, follows).
function keepScreenSizes(svg, k) {
  if (k === 1) return;
  for (const e of svg.querySelectorAll('*')) {
    if (e.closest('marker')) continue;
    for (const a of ['font-size', 'r']) {
      if (e.hasAttribute(a)) e.setAttribute(a, Number(e.getAttribute(a)) * k);
    }
    const stroke = e.getAttribute('stroke');
    if (stroke && stroke !== 'none') e.setAttribute('stroke-width', Number(e.getAttribute('stroke-width') || 1) * k);
    const dash = e.getAttribute('stroke-dasharray');
    if (dash) e.setAttribute('stroke-dasharray', dash.split(/[ ,]+/).map((d) => Number(d) * k).join(' '));
  }
}

// The 1/256-texel lattice over the part of the grid in view, once its steps are at least
// LATTICE_MIN_PX apart: every 16th line darker, the lines through texel centres (where i0 or
// j0 changes) in magenta. Each line carries its axis and its lattice index k (at k/256 texels).
function renderLattice(svg, L, vb) {
  if (latticeStepPx(L) < LATTICE_MIN_PX || state.precision === 'exact') return;
  const g = el('g', { 'data-testid': 'lattice' }, svg);
  const s = L.cell / LATTICE;
  const colour = (k) => {
    const m = ((k % LATTICE) + LATTICE) % LATTICE;
    return m === LATTICE / 2 ? '#e0e' : m % 16 === 0 ? '#99a' : '#d4d4e0';
  };
  for (let k = Math.ceil((vb.x - L.x0) / s); L.x0 + k * s <= vb.x + vb.w; k++) {
    const x = L.x0 + k * s;
    el('line', { 'data-axis': 'u', 'data-k': k, x1: x, y1: vb.y, x2: x, y2: vb.y + vb.h, stroke: colour(k) }, g);
  }
  for (let k = Math.ceil((vb.y - L.y0) / s); L.y0 + k * s <= vb.y + vb.h; k++) {
    const y = L.y0 + k * s;
    el('line', { 'data-axis': 'v', 'data-k': k, x1: vb.x, y1: y, x2: vb.x + vb.w, y2: y, stroke: colour(k) }, g);
  }
}

// Zoomed in, the texel indices along the view's top and left edges once the grid's own
// labels are out of view, each at the middle of the part of its column or row in view, on an
// opaque band (what it covers hides cleanly). Drawn in screen units after keepScreenSizes.
function renderEdgeIndices(svg, L, vb) {
  if (view.zoom <= 1) return;
  const k = 1 / view.zoom;
  const span = L.cell * view.zoom;
  const every = Math.max(1, Math.ceil(36 / span));
  // The middle of the part of [a, a + cell] within [lo, hi], or null when none is.
  const middle = (a, lo, hi) => {
    const p = Math.max(a, lo), q = Math.min(a + L.cell, hi);
    return q - p > 20 * k ? (p + q) / 2 : null;
  };
  if (L.y0 - L.ring - 16 < vb.y) {
    const g = el('g', { 'data-testid': 'edge-i', 'pointer-events': 'none' }, svg);
    el('rect', { x: vb.x, y: vb.y, width: vb.w, height: 16 * k, fill: 'rgba(255,255,255,0.95)' }, g);
    for (let i = 0; i < L.W; i += every) {
      const x = middle(L.x0 + i * L.cell, vb.x + 30 * k, vb.x + vb.w);
      if (x !== null) el('text', { x, y: vb.y + 12 * k, 'font-size': 10 * k, 'text-anchor': 'middle' }, g, 'i=' + i);
    }
  }
  if (L.x0 - L.ring - 40 < vb.x) {
    const g = el('g', { 'data-testid': 'edge-j', 'pointer-events': 'none' }, svg);
    el('rect', { x: vb.x, y: vb.y, width: 30 * k, height: vb.h, fill: 'rgba(255,255,255,0.95)' }, g);
    for (let j = 0; j < L.H; j += every) {
      const y = middle(L.y0 + j * L.cell, vb.y + 16 * k, vb.y + vb.h);
      if (y !== null) el('text', { x: vb.x + 2 * k, y: y + 3 * k, 'font-size': 10 * k }, g, 'j=' + j);
    }
  }
}

// The zoom's readout beside its buttons.
function showZoom(L) {
  const lattice = latticeStepPx(L) >= LATTICE_MIN_PX && state.precision !== 'exact';
  $('zoom-level').textContent = String(+view.zoom.toFixed(2)) + 'x' + (lattice
    ? '; lattice 1/256 texel (ties unmeasured: see the tags) = ' + latticeStepPx(L).toFixed(1) + ' px: ring = exact u*W, v*H, dot = rounded'
    : state.precision === 'exact' ? '; exact precision: no lattice'
    : view.zoom > 1 ? '; the 1/256 lattice shows from ' + Math.ceil((LATTICE * LATTICE_MIN_PX) / L.cell) + 'x' : '');
  $('zoom-in').disabled = view.zoom >= maxZoom(L);
  $('zoom-out').disabled = view.zoom <= 1;
  $('zoom-reset').disabled = view.zoom <= 1;
  $('grid').classList.toggle('zoomed', view.zoom > 1);
}
