// tld4 serve's page: the state lives in the URL's query string, named as `tld4 explain`'s
// flags; every number comes from /api/explain (the project's own texture unit).
'use strict';

const MODES = ['clamp_to_edge', 'repeat', 'mirrored_repeat', 'clamp_to_border', 'mirror_clamp_to_edge'];
const NAMES = ['insn', 'arch', 'lane', 'texture', 'format', 'pattern', 'coord', 'address', 'border',
  'offset', 'offsets', 'dref', 'compare', 'layer', 'precision', 'non_seamless'];
const DEFAULT_INSN = 'TLD4.R R10, R8, R20, R24, UR4, 2D';
const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

let state = {};
let answer = null;
// A pasted scenario document being shown in place of the question (null: the question), and
// whether the answer on screen is one of it.
let scenarioText = null;
// The instruction of the answer the picture shows (kept while a later question is refused).
let shownSass = null;
let inFlight = false;
let pending = false;
// Pinned: the sample point stays where a click put it (so footprint texels can be dragged).
let pinned = false;
// A PTP offset being dragged: which texel, where the drag began, the offsets then.
let drag = null;
// A press on the zoomed grid: where it began and the view's centre then; it pans once it
// moves, and pins or unpins the sample point if it does not (see startDrag).
let press = null;

function readUrl() {
  const p = new URLSearchParams(location.search);
  state = {};
  for (const n of NAMES) if (p.has(n)) state[n] = p.get(n);
  if (!state.insn) state.insn = DEFAULT_INSN;
  if (!state.texture) state.texture = '4x4';
  readView(p);
}

// The page's own URL: the question (explain's flags) and the view (zoom, at).
function writeUrl() {
  // (a pasted scenario is not in the URL: the link stays the last question's)
  if (scenarioText !== null) return;
  const url = '/?' + query() + viewQuery();
  history.replaceState(null, '', url);
  $('permalink').href = url;
}

function query() {
  const p = new URLSearchParams();
  for (const n of NAMES) if (state[n] !== undefined && state[n] !== '') p.set(n, state[n]);
  return p.toString();
}

// The instruction text the controls describe: the modifiers and the dimension from the
// controls, the registers as the current instruction names them (a register the user typed
// stays), the default's registers where the current text has none to reuse.
function insnFromControls() {
  let m = 'TLD4.' + $('component').value;
  if ($('f16').value) m += '.' + $('f16').value;
  if ($('offsets').value) m += '.' + $('offsets').value;
  if ($('dc').checked) m += '.DC';
  // (written in the base table's spelling, which the server writes for the chosen
  // architecture: an architecture's own immediates are its to add)
  const text = answer && answer.arch ? answer.arch.base_sass : state.insn;
  return m + ' ' + operandsOf(text) + ', ' + $('dimension').value;
}

// The operands of a TLD4 line before its dimension ('R10, R8, R20, R24, UR4'), with a
// predicate guard kept in front; the default's when the text is not such a line.
function operandsOf(text) {
  const m = /^\s*(?:@!?U?P\w+\s+)?TLD4\S*\s+(.*?),\s*[A-Z0-9_]+\s*;?\s*$/.exec(text || '');
  return m ? m[1] : 'R10, R8, R20, R24, UR4';
}

// Whether a text field's content is a whole value worth asking the server about: while it is
// not (a partial instruction, '1.', '-', '4x'), a pause in typing asks nothing and the page
// says what is missing; Enter or leaving the field asks anyway (the server's error is then
// shown). The server stays the judge of every value.
const NUM = '-?(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:e-?\\d+)?';
const COMPLETE = {
  insn: [new RegExp('^\\s*(?:(?:@!?U?P\\w+\\s+)?TLD4(?:\\.\\w+)*\\s+(?:[^,]+,\\s*){3,}(?:1D|2D|3D|ARRAY_1D|ARRAY_2D|CUBE|ARRAY_CUBE)\\s*;?|[0-9a-fA-F]{32})\\s*$'),
    'an instruction ends with its dimension (2D, ARRAY_2D, CUBE, ARRAY_CUBE), or is 32 hex digits'],
  texture: [/^\s*\d+x\d+(?:x\d+)?\s*$/, 'a size is WxH or WxHxL'],
  coord: [new RegExp('^\\s*' + NUM + '(?:\\s*,\\s*' + NUM + '){1,2}\\s*$'), 'a coordinate is u,v (2D) or x,y,z (cube)'],
  layer: [new RegExp('^\\s*' + NUM + '\\s*$'), 'a layer is a number: 2, or a float as GLSL\'s 1.6'],
  offsets: [/^\s*-?\d+(?:\s*,\s*-?\d+){7}\s*$/, 'PTP offsets are eight whole numbers x0,y0,...,x3,y3'],
};

// The question's parameters the current instruction reads (others are dropped).
function fitState(decoded) {
  if (decoded.offsets !== 'AOFFI') delete state.offset;
  if (decoded.offsets !== 'PTP') delete state.offsets;
  if (!decoded.dc) { delete state.dref; delete state.compare; }
  if (!decoded.dimension.startsWith('ARRAY')) delete state.layer;
  const cube = decoded.dimension.includes('CUBE');
  const n = (state.coord || '').split(',').length;
  if (cube && n !== 3) state.coord = '1,0.25,-0.5';
  if (!cube && n !== 2) state.coord = '0.5,0.5';
}

// Sets a control's value, unless the user is in it: a field with the focus (typing 1.6 into
// the layer, a coordinate being edited) keeps what is typed while answers arrive.
function setValue(id, v) {
  const e = $(id);
  if (document.activeElement === e) return;
  if (e.type === 'checkbox') e.checked = v;
  else e.value = v;
}

function setControls() {
  const d = answer ? answer.decoded : null;
  // (the question's instruction, as the server printed it once it answered: a refused one stays
  // as typed, beside its error)
  setValue('insn', state.insn);
  setArches();
  if (d) {
    setValue('component', d.component);
    setValue('dimension', d.dimension);
    setValue('offsets', d.offsets);
    setValue('dc', d.dc);
    setValue('f16', d.f16);
    $('aoffi-row').hidden = d.offsets !== 'AOFFI';
    $('ptp-row').hidden = d.offsets !== 'PTP';
    $('dc-row').hidden = !d.dc;
    $('layer-label').hidden = !d.dimension.startsWith('ARRAY');
    $('face-row').hidden = !d.dimension.includes('CUBE');
  }
  setValue('texture', state.texture || '4x4');
  setValue('format', state.format || 'rgba32_float');
  setValue('pattern', state.pattern || 'index');
  setValue('precision', state.precision || 'default');
  const a = (state.address || 'clamp_to_edge').split(',');
  setValue('address_u', a[0]);
  setValue('address_v', a[1] || a[0]);
  setValue('border', state.border || 'float_transparent_black');
  const o = (state.offset || '0,0').split(',');
  setValue('dx', o[0]); setValue('dy', o[1]);
  $('dx-out').textContent = o[0]; $('dy-out').textContent = o[1];
  setValue('ptp', state.offsets || '0,0,0,0,0,0,0,0');
  setValue('dref', state.dref || '0.5');
  $('dref-out').textContent = state.dref || '0.5';
  setValue('compare', state.compare || 'less_or_equal');
  setValue('coord', state.coord || '0.5,0.5');
  setValue('layer', state.layer || '0');
  showPtpNote();
  // The layer the unit read (a float layer converted, a layer past the last clamped).
  const lane = answer && answer.lane;
  $('layer-out').textContent = lane && d && d.dimension.startsWith('ARRAY')
    ? ' reads ' + (d.dimension.includes('CUBE') ? 'cube ' + Math.floor(lane.storage_layer / 6) : 'layer ' + lane.storage_layer)
    : '';
  showPin();
}

// The architecture choice: every architecture the server names (its answer lists them), the
// answer's own selected.
function setArches() {
  const sel = $('arch');
  const names = answer ? answer.arches : [];
  if (names.length && sel.options.length !== names.length) {
    sel.innerHTML = '';
    for (const n of names) { const o = document.createElement('option'); o.textContent = n; sel.appendChild(o); }
  }
  const want = answer ? answer.arch.name : (state.arch || 'SM100');
  if (![...sel.options].some((o) => o.value === want)) { const o = document.createElement('option'); o.textContent = want; sel.appendChild(o); }
  setValue('arch', want);
}

function showPin() {
  $('pin-state').textContent = pinned
    ? 'pinned: the sample point stays (click the texture to follow the mouse again)'
    : 'the sample point follows the mouse (click the texture to pin it)';
}

async function update() {
  if (inFlight) { pending = true; return; }
  inFlight = true;
  const q = query();
  writeUrl();
  try {
    // A pasted scenario is sent as a JSON body (a document does not fit a URL).
    const r = scenarioText !== null
      ? await fetch('/api/explain', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ scenario: scenarioText, lane: state.lane || '0' }) })
      : await fetch('/api/explain?' + q);
    const j = await r.json();
    if (!r.ok) {
      // (a refused pasted scenario: the page stays on its question, the error shown)
      scenarioText = null;
      showError(j.error || ('error ' + r.status));
    } else {
      showError('');
      answer = j;
      state.insn = j.sass.replace(/ ?;$/, '');
      if (scenarioText !== null || state.arch !== undefined) state.arch = j.arch.name;
      render();
    }
  } catch (e) {
    showError(String(e));
  }
  setControls();
  showScenarioNote();
  document.body.dataset.ready = String(Date.now());
  inFlight = false;
  if (pending) { pending = false; update(); }
}

// The server's refusal, shown beside the SASS box (the first screen); while one stands, the
// picture, values and text below are the last answer's, and are marked so.
function showError(message) {
  $('error').textContent = message ? 'refused: ' + message : '';
  $('error').hidden = !message;
  $('view').classList.toggle('stale', Boolean(message));
  $('view').dataset.stale = message ? 'true' : 'false';
  $('stale-note').hidden = !message;
  if (message && shownSass) $('stale-note').textContent = 'not the question above: the picture, values and text below still show the last answer (' + shownSass + ')';
  else if (message) $('stale-note').textContent = 'no answer yet: the question above was refused';
}

// Whether the page shows a pasted scenario, said under the SASS box.
function showScenarioNote() {
  const on = scenarioText !== null && answer !== null && $('error').hidden;
  $('scenario-note').hidden = !on;
  // (the link holds a question; a pasted document is not in it)
  $('link').hidden = on;
  $('scenario-note').textContent = on
    ? 'showing the pasted scenario (' + answer.arch.name + ', lane ' + (state.lane || '0') + '): its own texture, sampler and registers; change any control to return to a question'
    : '';
}

// Leaves a pasted scenario for the question the controls describe.
function leaveScenario() {
  if (scenarioText === null) return;
  scenarioText = null;
  answer = null;
}

// A field's text that is not yet a whole value: said beside the SASS box, nothing asked.
function showIncomplete(message) {
  $('incomplete').textContent = message ? 'still typing? ' + message : '';
  $('incomplete').hidden = !message;
}

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// Layout: a margin of two cells around the texture, so ghost texels outside it show.
// Cubes: the sampled face unfolded with its four neighbours (reach texels of each).
function layout() {
  const [W, H] = answer.size;
  const reach = answer.ring_reach || 0;
  const room = reach ? 480 : 240;
  const cell = Math.max(8, Math.floor(Math.min(room / (W + 2 * reach), room / (H + 2 * reach))));
  const ring = reach * cell;
  // (two cells of margin, so ghosts of wrapped and offset texels stay in view; the indices and
  // ticks go outside the margin, clear of the ghosts: `edge`, the margin's width)
  const edge = reach ? ring + 14 : 2 * cell;
  const pad = reach ? 70 + ring : 2 * cell + 44;
  return { W, H, cell, ring, reach, edge, x0: pad, y0: pad, width: W * cell + 2 * pad, height: H * cell + 2 * pad };
}

// The grid (its viewBox set by the zoom), then the values, registers, panels and text.
function render() {
  shownSass = answer.sass;
  const svg = $('grid');
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const L = layout();
  svg.setAttribute('width', L.width);
  svg.setAttribute('height', L.height);
  const vb = viewBox(L);
  svg.setAttribute('viewBox', `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
  const lane = answer.lane;
  renderTexture(svg, L, vb);
  if (lane) {
    // Cube: the 3x3 unfolding, the four neighbour faces turned as a seamless footprint reads them.
    if (L.reach) renderUnfolding(svg, L, vb);
    renderLattice(svg, L, vb);
    renderFootprint(svg, L, lane);
    renderSample(svg, L, lane);
  }
  keepScreenSizes(svg, 1 / view.zoom);
  renderEdgeIndices(svg, L, vb);
  showZoom(L);
  writeUrl();
  if (!lane) {
    // The lane did not gather (a fault: the text says why): nothing of an earlier answer stays.
    for (const n of 'xyzw') document.querySelector('[data-testid="value-' + n + '"]').textContent = 'none (see the text)';
    $('registers').innerHTML = '';
    const z = $('zoom');
    while (z.firstChild) z.removeChild(z.firstChild);
    $('dc-panel').hidden = true;
    $('f16-panel').hidden = true;
    renderInstruction();
    return;
  }
  // Values, registers, tags, instruction, text.
  for (let k = 0; k < 4; k++) {
    document.querySelector('[data-testid="value-' + 'xyzw'[k] + '"]').textContent = lane.values[k];
  }
  const regs = $('registers');
  regs.innerHTML = '';
  for (const r of lane.registers) {
    const tr = regs.insertRow();
    tr.insertCell().textContent = r.reg;
    tr.insertCell().textContent = r.bits;
    tr.insertCell().textContent = r.shown;
  }
  renderZoom(lane);
  renderPanels(lane);
  renderInstruction();
}

// The texture's cells with their values and texel centres, the indices and u/v ticks. Cells
// too small on the screen for their value's text are shaded by it instead (white = the
// smallest value of the layer, dark = the largest), with the scale's ends written under the
// texture. Zoomed in, only the cells in view are drawn.
function renderTexture(svg, L, vb) {
  const { W, H, cell, x0, y0, edge } = L;
  const lane = answer.lane;
  el('text', { x: 4, y: 14, 'font-size': 11 }, svg,
    'row 0 at the top: v grows down; u grows right' + (lane && lane.face !== null ? '; face ' + lane.face : ''));
  const nums = answer.grid.map(Number);
  const finite = nums.filter(Number.isFinite);
  const lo = Math.min(...finite), hi = Math.max(...finite);
  const shown = cell * view.zoom >= 28;
  const shade = !shown && finite.length > 0;
  const [i0, i1] = inView(vb.x, vb.w, x0, cell, W);
  const [j0, j1] = inView(vb.y, vb.h, y0, cell, H);
  for (let j = j0; j < j1; j++) {
    for (let i = i0; i < i1; i++) {
      const v = nums[j * W + i];
      const g = !shade || !Number.isFinite(v) || hi === lo ? 255 : Math.round(255 - 175 * (v - lo) / (hi - lo));
      el('rect', { x: x0 + i * cell, y: y0 + j * cell, width: cell, height: cell, fill: `rgb(${g},${g},${g})`, stroke: '#bbb',
        'data-value': answer.grid[j * W + i], 'data-cell': i + ',' + j }, svg);
      el('circle', { cx: x0 + (i + 0.5) * cell, cy: y0 + (j + 0.5) * cell, r: 1.5, fill: '#999' }, svg);
      if (shown) {
        // (a value too long for its cell is shortened; the cell's title holds it whole)
        const text = fitText(answer.grid[j * W + i], cell * view.zoom - 6);
        const t = el('text', { x: x0 + (i + 0.5) * cell, y: y0 + (j + 0.5) * cell + 14 / view.zoom, 'font-size': 10, fill: '#555', 'text-anchor': 'middle' }, svg, text);
        if (text !== answer.grid[j * W + i]) el('title', {}, t, answer.grid[j * W + i]);
      }
    }
  }
  // Indices and u/v ticks.
  const step = Math.max(1, Math.ceil(W / 16));
  const [un, vn] = answer.face_axes ? ['s', 't'] : ['u', 'v'];
  for (let i = 0; i < W; i += step) el('text', { x: x0 + (i + 0.5) * cell, y: y0 - edge - 6, 'font-size': 10, 'text-anchor': 'middle' }, svg, 'i=' + i);
  for (let j = 0; j < H; j += step) el('text', { x: x0 - edge - 6, y: y0 + (j + 0.5) * cell + 3, 'font-size': 10, 'text-anchor': 'end' }, svg, 'j=' + j);
  const bottom = y0 + H * cell + edge, right = x0 + W * cell + edge;
  if (shade) {
    el('text', { 'data-testid': 'value-scale', x: x0, y: bottom + 32, 'font-size': 10 }, svg,
      'shade: white = ' + answer.grid[nums.indexOf(lo)] + ', darkest = ' + answer.grid[nums.indexOf(hi)]);
  }
  for (const t of [0, 0.5, 1]) {
    el('line', { x1: x0 + t * W * cell, y1: bottom, x2: x0 + t * W * cell, y2: bottom + 6, stroke: '#000' }, svg);
    el('text', { x: x0 + t * W * cell, y: bottom + 18, 'font-size': 10, 'text-anchor': 'middle' }, svg, un + '=' + t);
    el('line', { x1: right, y1: y0 + t * H * cell, x2: right + 6, y2: y0 + t * H * cell, stroke: '#000' }, svg);
    el('text', { x: right + 8, y: y0 + t * H * cell + 3, 'font-size': 10 }, svg, vn + '=' + t);
  }
}

// A value's text shortened to `px` screen pixels of 10-px monospace (6 px a character): fewer
// significant digits, or '' when not even two fit.
function fitText(text, px) {
  const chars = Math.floor(px / 6);
  if (text.length <= chars) return text;
  const v = Number(text);
  if (!Number.isFinite(v)) return chars >= 2 ? text.slice(0, chars - 1) + '~' : '';
  for (let d = Math.min(8, chars); d >= 1; d--) {
    const t = String(Number(v.toPrecision(d)));
    if (t.length + 1 <= chars) return t + '~';
  }
  return '';
}

// The footprint: ghost (where the footprint lies before redirection) and texel read.
function renderFootprint(svg, L, lane) {
  const { cell, x0, y0 } = L;
  // (offsets inside a cell, in screen pixels at any zoom)
  const k = 1 / view.zoom;
  const defs = el('defs', {}, svg);
  const m = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#c0c' }, m);
  const corner = { x: [2, -4], y: [-4, -4], z: [-4, 2], w: [2, 2] };
  renderOffsetGhosts(svg, L, lane, defs);
  for (const t of lane.texels) {
    const [gi, gj] = t.position;
    const gx = x0 + gi * cell, gy = y0 + gj * cell;
    const ghost = (t.redirected || t.site !== 'texel') && !(answer.ring.length && t.site === 'texel');
    let rx = gx, ry = gy;
    // (a texel on another cube face is drawn where the ring shows it)
    if (t.read && t.read[2] === lane.storage_layer) { rx = x0 + t.read[0] * cell; ry = y0 + t.read[1] * cell; }
    if (ghost) {
      el('rect', { x: gx + 2 * k, y: gy + 2 * k, width: cell - 4 * k, height: cell - 4 * k, fill: 'none', stroke: '#c0c', 'stroke-dasharray': '4 3' }, svg);
      // (a border cell's two lines sit above its middle, clear of the corner letters)
      const top = corner[t.name][1] > 0;
      const up = t.site === 'border' ? (top ? 4 : -8) : 3;
      el('text', { x: gx + cell / 2, y: gy + cell / 2 + up * k, 'font-size': 10, 'text-anchor': 'middle', fill: '#c0c' }, svg,
        t.site === 'border' ? 'border' : t.site === 'corner' ? 'corner' : '(' + gi + ',' + gj + ')');
      // A border texel reads the border colour: its selected component, as explain prints it.
      if (t.site === 'border') {
        el('text', { 'data-testid': 'border-' + t.name, x: gx + cell / 2, y: gy + cell / 2 + (up + 12) * k, 'font-size': 10, 'text-anchor': 'middle', fill: '#c0c' }, svg, '= ' + t.value);
      }
      if (t.read && t.read[2] === lane.storage_layer) {
        el('line', { x1: gx + cell / 2, y1: gy + cell / 2, x2: rx + cell / 2, y2: ry + cell / 2, stroke: '#c0c', 'marker-end': 'url(#arrow)' }, svg);
      }
    }
    const attrs = { 'data-testid': 'texel-' + t.name, x: rx + k, y: ry + k, width: cell - 2 * k, height: cell - 2 * k,
      fill: 'rgba(255,0,255,0.12)', stroke: '#f0f', 'stroke-width': 2 };
    if (t.read) { attrs['data-i'] = t.read[0]; attrs['data-j'] = t.read[1]; attrs['data-layer'] = t.read[2]; }
    else { attrs['data-i'] = gi; attrs['data-j'] = gj; attrs['data-layer'] = t.site; }
    // PTP: each footprint texel can be dragged; its offset follows (see startDrag).
    if (answer.decoded.offsets === 'PTP') attrs['data-drag'] = 'xyzw'.indexOf(t.name);
    el('rect', attrs, svg);
    const c = corner[t.name];
    // (the texel's letter in its corner, 11 px: clear of the value in the cell's middle)
    el('text', { x: rx + (c[0] > 0 ? c[0] : c[0] - 4) * k + (c[0] > 0 ? 0 : cell), y: ry + (c[1] > 0 ? 11 * k : cell - 4 * k), 'font-size': 11, 'font-weight': 'bold', fill: '#a0a' }, svg, t.name);
  }
}

// The sample point: rounded to the lattice (solid) and, when rounding moved it, unrounded
// (faint). Once the lattice is drawn, the unrounded point is always drawn, as a ring.
function renderSample(svg, L, lane) {
  const { cell, x0, y0 } = L;
  const [su, sv] = lane.rounded;
  const [eu, ev] = lane.scaled;
  const ring = latticeStepPx(L) >= LATTICE_MIN_PX;
  if (ring) {
    el('circle', { 'data-testid': 'sample-exact', cx: x0 + eu * cell, cy: y0 + ev * cell, r: 7, fill: 'none', stroke: '#055', 'stroke-width': 2 }, svg);
  } else if (Math.abs(su - eu) > 1e-9 || Math.abs(sv - ev) > 1e-9) {
    el('circle', { 'data-testid': 'sample-exact', cx: x0 + eu * cell, cy: y0 + ev * cell, r: 4, fill: 'rgba(0,160,160,0.35)' }, svg);
  }
  el('circle', { 'data-testid': 'sample', cx: x0 + su * cell, cy: y0 + sv * cell, r: ring ? 3 : 4, fill: '#0aa', stroke: '#055' }, svg);
}

// AOFFI and PTP: where each texel would lie without offsets (a grey dashed ghost) and an
// arrow to where its offset moved it, labelled with the offset. AOFFI moves the 2x2 footprint:
// texel k from (i0, j0) + its corner in gather order; PTP reads each texel k at
// (i0 + dx_k, j0 + dy_k), as explain says, so every arrow starts at (i0, j0).
function renderOffsetGhosts(svg, L, lane, defs) {
  const { cell, x0, y0 } = L;
  const k = 1 / view.zoom;
  const m = el('marker', { id: 'offset-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#c60' }, m);
  const [i0, j0] = lane.origin;
  const ptp = answer.decoded.offsets === 'PTP';
  const base = ptp ? { x: [0, 0], y: [0, 0], z: [0, 0], w: [0, 0] } : { x: [0, 1], y: [1, 1], z: [1, 0], w: [0, 0] };
  for (const t of lane.texels) {
    const bi = i0 + base[t.name][0], bj = j0 + base[t.name][1];
    const [gi, gj] = t.position;
    if (gi === bi && gj === bj) continue;
    el('rect', { 'data-testid': 'offset-ghost-' + t.name, 'data-i': bi, 'data-j': bj, x: x0 + bi * cell + 4 * k, y: y0 + bj * cell + 4 * k,
      width: cell - 8 * k, height: cell - 8 * k, fill: 'none', stroke: '#999', 'stroke-dasharray': '2 2' }, svg);
    const ax = x0 + (bi + 0.5) * cell, ay = y0 + (bj + 0.5) * cell;
    const bx = x0 + (gi + 0.5) * cell, by = y0 + (gj + 0.5) * cell;
    el('line', { x1: ax, y1: ay, x2: bx, y2: by, stroke: '#c60', 'stroke-width': 1.5, 'marker-end': 'url(#offset-arrow)' }, svg);
    el('text', { x: (ax + bx) / 2 + 3 * k, y: (ay + by) / 2 - 3 * k, 'font-size': 10, fill: '#c60' }, svg,
      t.name + ' ' + (gi - bi >= 0 ? '+' : '') + (gi - bi) + ',' + (gj - bj >= 0 ? '+' : '') + (gj - bj));
  }
}

// The neighbour faces of the unfolding: each texel with its face, (x, y) and value; each face's
// name and its s and t arrows (from its texel (0, 0) toward growing x and growing y).
function renderUnfolding(svg, L, vb) {
  const { W, H, cell, x0, y0, reach } = L;
  const k = 1 / view.zoom;
  const row = W + 2 * reach;
  const at = {};
  const labels = [];
  for (let j = -reach; j < H + reach; j++) {
    for (let i = -reach; i < W + reach; i++) {
      if (i >= 0 && i < W && j >= 0 && j < H) continue;
      const c = answer.ring[(j + reach) * row + (i + reach)];
      if (!c.read) continue;
      const x = x0 + i * cell, y = y0 + j * cell;
      at[c.face + ' ' + c.read[1] + ' ' + c.read[2]] = [x + cell / 2, y + cell / 2];
      if (x + cell < vb.x || x > vb.x + vb.w || y + cell < vb.y || y > vb.y + vb.h) continue;
      el('rect', { x, y, width: cell, height: cell, fill: '#e8f0ff', stroke: '#bbb', 'data-face': c.face }, svg);
      if (cell * view.zoom >= 28) labels.push({ x, y, c });
    }
  }
  // Each face's texel (0, 0) has the face's name and arrows in its corner: whether that corner
  // is at the bottom on the screen (the texel's labels then go above its middle).
  const low = {};
  const defs = el('defs', {}, svg);
  const m = el('marker', { id: 'st-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: 'auto' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#36c' }, m);
  const names = new Set(answer.ring.filter((c) => c.read && c.face).map((c) => c.face));
  names.delete(answer.ring[reach * row + reach].face);
  for (const f of names) {
    const o = at[f + ' 0 0'];
    const s = at[f + ' ' + Math.min(1, W - 1) + ' 0'];
    const t = at[f + ' 0 ' + Math.min(1, H - 1)];
    if (!o) continue;
    // The unit steps of s and t on the screen (a 1-texel face: straight on).
    const unit = (p, d) => {
      if (!p || (p[0] === o[0] && p[1] === o[1])) return d;
      const len = Math.hypot(p[0] - o[0], p[1] - o[1]);
      return [(p[0] - o[0]) / len, (p[1] - o[1]) / len];
    };
    const us = unit(s, [1, 0]), ut = unit(t, [-us[1], us[0]]);
    // The face's corner, where its texel (0, 0) lies: the name just inside it and the s and t
    // arrows along the two edges from it, clear of the texel labels in the cells' middles.
    const c = [o[0] - (us[0] + ut[0]) * cell / 2, o[1] - (us[1] + ut[1]) * cell / 2];
    low[f] = us[1] + ut[1] < 0;
    const inset = 8 * k;
    el('text', { x: c[0] + (us[0] + ut[0]) * inset, y: c[1] + (us[1] + ut[1]) * inset + 3 * k, 'font-size': 10, 'font-weight': 'bold', 'text-anchor': 'middle', fill: '#36c', 'data-testid': 'face-name' }, svg, f);
    for (const [p, u, v, name] of [[s, us, ut, 's'], [t, ut, us, 't']]) {
      if (!p || (p[0] === o[0] && p[1] === o[1])) continue;
      const x1 = c[0] + v[0] * 2 * k, y1 = c[1] + v[1] * 2 * k;
      const ex = x1 + u[0] * cell * 0.8, ey = y1 + u[1] * cell * 0.8;
      el('line', { x1, y1, x2: ex, y2: ey, stroke: '#36c', 'stroke-width': 2, 'marker-end': 'url(#st-arrow)', 'data-testid': 'face-arrow-' + name, 'data-face': f }, svg);
      // (its letter beside the arrow's middle, just outside the face's edge)
      el('text', { x: x1 + u[0] * cell * 0.4 - v[0] * 7 * k, y: y1 + u[1] * cell * 0.4 - v[1] * 7 * k + 3 * k, 'font-size': 10, fill: '#36c', 'text-anchor': 'middle' }, svg, name);
    }
  }
  // Each texel's (x, y) and value, below its middle (the face's texel (0, 0) with its corner at
  // the bottom: above it), clear of the face's name and arrows.
  for (const { x, y, c } of labels) {
    const up = c.read[1] === 0 && c.read[2] === 0 && low[c.face] ? -17 : 0;
    el('text', { x: x + cell / 2, y: y + cell / 2 + (up + 3) * k, 'font-size': 9, 'text-anchor': 'middle', fill: '#36c' }, svg,
      '(' + c.read[1] + ',' + c.read[2] + ')');
    el('text', { x: x + cell / 2, y: y + cell / 2 + (up + 13) * k, 'font-size': 9, 'text-anchor': 'middle', fill: '#555' }, svg, fitText(String(c.value), cell * view.zoom - 4));
  }
}

// The 1/256-texel lattice around the sample point: the exact u*W, v*H (hollow) and the
// lattice point the unit rounded it to (filled), 8 lattice steps across.
function renderZoom(lane) {
  const z = $('zoom');
  while (z.firstChild) z.removeChild(z.firstChild);
  const [ru, rv] = lane.rounded;
  const [eu, ev] = lane.scaled;
  const exact = Math.abs(ru - eu) < 1e-12 && Math.abs(rv - ev) < 1e-12 && $('precision').value === 'exact';
  const step = 1 / 256, n = 8, px = 200 / n;
  const cu = Math.round(ru * 256) / 256, cv = Math.round(rv * 256) / 256;
  const X = (u) => 100 + (u - cu) / step * px, Y = (v) => 100 + (v - cv) / step * px;
  for (let k = -n; k <= n; k++) {
    el('line', { x1: X(cu + k * step), y1: 0, x2: X(cu + k * step), y2: 200, stroke: '#ddd' }, z);
    el('line', { x1: 0, y1: Y(cv + k * step), x2: 200, y2: Y(cv + k * step), stroke: '#ddd' }, z);
  }
  // A texel centre (where i0 changes) in view: a thick line.
  for (const [c, horiz] of [[Math.floor(cu - 0.5) + 0.5, false], [Math.ceil(cu - 0.5) + 0.5, false], [Math.floor(cv - 0.5) + 0.5, true], [Math.ceil(cv - 0.5) + 0.5, true]]) {
    const p = horiz ? Y(c) : X(c);
    if (p >= 0 && p <= 200) {
      el('line', horiz ? { x1: 0, y1: p, x2: 200, y2: p, stroke: '#f0f', 'stroke-width': 2 } : { x1: p, y1: 0, x2: p, y2: 200, stroke: '#f0f', 'stroke-width': 2 }, z);
    }
  }
  el('circle', { cx: X(eu), cy: Y(ev), r: 5, fill: 'none', stroke: '#055', 'stroke-width': 2 }, z);
  el('circle', { 'data-testid': 'zoom-rounded', cx: X(ru), cy: Y(rv), r: 4, fill: '#0aa' }, z);
  el('text', { x: 4, y: 12, 'font-size': 10 }, z, exact ? 'exact precision: no lattice' : 'grid: 1/256 texel');
  el('text', { x: 4, y: 196, 'font-size': 10 }, z, 'u*W ' + eu.toFixed(6) + ' -> ' + ru.toFixed(6));
  el('text', { x: 4, y: 184, 'font-size': 10 }, z, 'v*H ' + ev.toFixed(6) + ' -> ' + rv.toFixed(6));
}

// The depth-compare panel (depths, reference, pass or fail) and the F16 panel (both roundings).
function renderPanels(lane) {
  const d = answer.decoded;
  $('dc-panel').hidden = !lane.compare;
  if (lane.compare) {
    const t = $('dc-table');
    t.innerHTML = '<tr><th></th><th>depth</th><th>test</th><th>result</th></tr>';
    for (const x of lane.texels) {
      const tr = t.insertRow();
      const pass = Number(x.value) === 1;
      tr.insertCell().textContent = x.name;
      tr.insertCell().textContent = x.depth === null ? '-' : String(x.depth);
      tr.insertCell().textContent = lane.compare[1] + ' ' + lane.compare[0] + ' ' + x.depth;
      const c = tr.insertCell();
      c.textContent = pass ? 'pass (1.0)' : 'fail (0.0)';
      c.style.background = pass ? '#cfc' : '#fcc';
    }
  }
  $('f16-panel').hidden = !d.f16;
  if (d.f16) {
    const t = $('f16-table');
    t.innerHTML = '<tr><th></th><th>f32</th><th>F16.RN</th><th>F16.RZ</th></tr>';
    lane.f16.forEach((h, k) => {
      const tr = t.insertRow();
      tr.insertCell().textContent = 'xyzw'[k];
      tr.insertCell().textContent = lane.values[k];
      const rn = tr.insertCell(); rn.textContent = h.rn + ' (' + h.rn_value + ')';
      const rz = tr.insertCell(); rz.textContent = h.rz + ' (' + h.rz_value + ')';
      if (h.rn !== h.rz) { rn.style.background = '#ffd'; rz.style.background = '#ffd'; }
      const used = d.f16 === 'F16.RN' ? rn : rz;
      used.style.fontWeight = 'bold';
    });
  }
}

function renderInstruction() {
  const tags = $('tags');
  tags.innerHTML = '';
  for (const t of answer.tags) {
    const li = document.createElement('li');
    li.textContent = t;
    li.className = t.startsWith('[unmeasured') ? 'tag-unmeasured' : t.startsWith('[model') ? 'tag-decision' : 'tag-measured';
    tags.appendChild(li);
  }
  $('sass').textContent = answer.sass;
  $('word').textContent = answer.word + ' (high half first)';
  const f = $('fields');
  f.innerHTML = '<tr><th>field</th><th>bits</th><th>raw</th><th>effect</th><th>meaning</th></tr>';
  for (const r of answer.fields) {
    const tr = f.insertRow();
    for (const v of [r.name, r.bits, '0x' + r.raw.toString(16), r.effect, r.meaning]) tr.insertCell().textContent = v;
  }
  $('text').textContent = answer.text;
  $('scenario').value = JSON.stringify(answer.scenario, null, 1);
  const flags = NAMES.filter((n) => n !== 'insn' && state[n] !== undefined && state[n] !== '')
    .map((n) => '--' + n.replace('_', '-') + ' ' + (n === 'non_seamless' ? '' : state[n]));
  $('command').textContent = scenarioText !== null
    ? 'tld4 explain --scenario pasted.json' + (state.lane ? ' --lane ' + state.lane : '')
    : 'tld4 explain "' + state.insn + '" ' + flags.join(' ');
  const a = answer.arch;
  $('arch-line').textContent = a.name + ': ' + a.sass + '  (word ' + a.word + ', form ' + a.form + ')\n'
    + 'read as the base table\'s ' + a.base_sass + '  (word ' + answer.word + '; the fields below are its fields)\n'
    + 'descriptors in memory read as: ' + a.descriptor_class;
}

function wire() {
  for (const id of ['address_u', 'address_v']) {
    for (const m of MODES) { const o = document.createElement('option'); o.textContent = m; $(id).appendChild(o); }
  }
  const controlsInsn = () => { state.insn = insnFromControls(); leaveScenario(); answer = null; fitStateFromControls(); update(); };
  for (const id of ['component', 'dimension', 'offsets', 'dc', 'f16']) $(id).addEventListener('change', controlsInsn);
  typed('insn', 'insn');
  typed('texture', 'texture');
  typed('ptp', 'offsets');
  typed('coord', 'coord');
  typed('layer', 'layer');
  const bind = (id, name, f) => $(id).addEventListener('input', () => { leaveScenario(); state[name] = f ? f() : $(id).value; update(); });
  // Another architecture: the instruction in the base table's spelling, which the server
  // writes as that architecture's nvdisasm prints it.
  $('arch').addEventListener('change', () => {
    if (answer) state.insn = answer.arch.base_sass;
    state.arch = $('arch').value;
    leaveScenario();
    update();
  });
  $('explain-pasted').addEventListener('click', () => {
    scenarioText = $('paste').value;
    pinned = true;
    update();
  });
  bind('format', 'format');
  bind('pattern', 'pattern');
  bind('precision', 'precision');
  bind('address_u', 'address', () => $('address_u').value + ',' + $('address_v').value);
  bind('address_v', 'address', () => $('address_u').value + ',' + $('address_v').value);
  bind('border', 'border');
  bind('dx', 'offset', () => $('dx').value + ',' + $('dy').value);
  bind('dy', 'offset', () => $('dx').value + ',' + $('dy').value);
  bind('dref', 'dref');
  bind('compare', 'compare');
  $('grid').addEventListener('mousedown', startDrag);
  window.addEventListener('mousemove', moveDrag);
  window.addEventListener('mouseup', endDrag);
  wireZoom();
  for (const b of document.querySelectorAll('[data-face]')) {
    b.addEventListener('click', () => {
      // The face's centre: the major axis at +-1, the others 0.
      const [axis, sign] = b.dataset.face.split(',').map(Number);
      const d = [0, 0, 0];
      d[axis] = sign;
      state.coord = d.join(',');
      leaveScenario();
      update();
    });
  }
  $('grid').addEventListener('mousemove', (ev) => {
    if (!answer || pinned || drag || press || scenarioText !== null) return;
    const L = layout();
    const p = toContent($('grid'), ev.clientX, ev.clientY);
    const u = (p.x - L.x0) / (L.W * L.cell);
    const v = (p.y - L.y0) / (L.H * L.cell);
    // (zoomed in, more digits: the mouse can then move the point by a lattice step)
    const digits = Math.min(8, 4 + Math.ceil(Math.log10(view.zoom)));
    if (answer.face_axes) {
      // A point (s, t) of the sampled face as a direction (the API gives the face's axes).
      const [axis, sign, sa, ss, ta, ts] = answer.face_axes;
      const d = [0, 0, 0];
      d[axis] = sign;
      d[sa] = ss * (2 * u - 1);
      d[ta] = ts * (2 * v - 1);
      state.coord = d.map((x) => x.toFixed(digits)).join(',');
    } else {
      state.coord = u.toFixed(digits) + ',' + v.toFixed(digits);
    }
    update();
  });
  $('copy').addEventListener('click', () => {
    const t = $('scenario');
    t.select();
    if (navigator.clipboard) navigator.clipboard.writeText(t.value).catch(() => document.execCommand('copy'));
    else document.execCommand('copy');
  });
}

// A text field: a pause in typing (TYPING_PAUSE_MS) asks the server once the text is a whole
// value (COMPLETE), Enter or leaving the field asks whatever it holds. A typed coordinate pins
// the sample point, so the mouse does not overwrite it.
const TYPING_PAUSE_MS = 300;
function typed(id, name) {
  let timer = null;
  const send = (always) => {
    clearTimeout(timer);
    const v = $(id).value.trim();
    const [re, what] = COMPLETE[name];
    if (!always && !re.test(v)) { showIncomplete(what); return; }
    showIncomplete('');
    if (v === state[name] && scenarioText === null) return;
    leaveScenario();
    state[name] = v;
    if (name === 'coord') { pinned = true; showPin(); }
    update();
  };
  $(id).addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => send(false), TYPING_PAUSE_MS); });
  $(id).addEventListener('change', () => send(true));
  $(id).addEventListener('keydown', (ev) => { if (ev.key === 'Enter') send(true); });
}

// PTP with every offset 0: texel k reads (i0 + 0, j0 + 0), so all four read the one texel
// (i0, j0) (docs/teaching.md); said beside the offsets.
function showPtpNote() {
  const zero = ptpOffsets().every((o) => o === 0);
  $('ptp-note').hidden = !zero;
}

// The PTP offsets as eight numbers (x0, y0, ..., x3, y3), zeros where none are given.
function ptpOffsets() {
  const o = (state.offsets || '').split(',').map(Number);
  return Array.from({ length: 8 }, (_, k) => (Number.isFinite(o[k]) ? o[k] : 0));
}

// A press on the texture pins the sample point, or lets it follow the mouse again (on press,
// not click: the picture is redrawn under the mouse, and a click needs the same element at
// both ends). Pressing on a footprint texel of a PTP gather instead starts dragging its offset
// (and pins the sample point, so the footprint stays put under the mouse). Zoomed in, a press
// that moves pans the view, and one released where it began pins or unpins (see endDrag).
function startDrag(ev) {
  if (!answer || ev.button !== 0 || scenarioText !== null) return;
  const k = ev.target.dataset ? ev.target.dataset.drag : undefined;
  ev.preventDefault();
  if (k !== undefined) {
    pinned = true;
    showPin();
    drag = { k: Number(k), x: ev.clientX, y: ev.clientY, base: ptpOffsets() };
  } else if (view.zoom > 1) {
    press = { x: ev.clientX, y: ev.clientY, at: view.at.slice(), panning: false };
  } else {
    pinned = !pinned;
    showPin();
  }
}

// Whole texels moved since the drag began, added to the dragged texel's offset (-32..31,
// the offsets' 6-bit range); or the view panned with the mouse.
function moveDrag(ev) {
  if (!answer) return;
  if (press) {
    const dx = ev.clientX - press.x, dy = ev.clientY - press.y;
    if (!press.panning && Math.hypot(dx, dy) <= PAN_SLOP_PX) return;
    press.panning = true;
    $('grid').classList.add('panning');
    panBy(layout(), press.at, dx, dy);
    renderSoon();
    return;
  }
  if (!drag) return;
  const span = layout().cell * view.zoom;
  const di = Math.round((ev.clientX - drag.x) / span);
  const dj = Math.round((ev.clientY - drag.y) / span);
  const o = drag.base.slice();
  const clamp = (v) => Math.max(-32, Math.min(31, v));
  o[2 * drag.k] = clamp(o[2 * drag.k] + di);
  o[2 * drag.k + 1] = clamp(o[2 * drag.k + 1] + dj);
  const text = o.join(',');
  if (text === (state.offsets || '0,0,0,0,0,0,0,0')) return;
  state.offsets = text;
  update();
}

function endDrag() {
  if (press && !press.panning) {
    pinned = !pinned;
    showPin();
  }
  press = null;
  drag = null;
  $('grid').classList.remove('panning');
}

// Redraws the grid for a new view once per frame (the answer is unchanged: no request).
let renderPending = false;
function renderSoon() {
  if (renderPending || !answer) return;
  renderPending = true;
  requestAnimationFrame(() => { renderPending = false; render(); });
}

// The zoom's controls: the mouse wheel (centred on the pointer), the +, - and reset buttons,
// and the keys + (or =), - and 0 anywhere but in a text field; the arrow keys pan the grid
// when it has the focus.
function wireZoom() {
  const grid = $('grid');
  const by = (f, anchor) => { if (!answer) return; zoomTo(layout(), view.zoom * f, anchor); renderSoon(); };
  grid.addEventListener('wheel', (ev) => {
    // (a wheel notch is about 100 pixels; lines and pages are scaled to pixels)
    const px = ev.deltaY * (ev.deltaMode === 1 ? 33 : ev.deltaMode === 2 ? 400 : 1);
    // (the whole texture shown, a wheel turned down scrolls the page as usual)
    if (!answer || (view.zoom <= 1 && px >= 0)) return;
    ev.preventDefault();
    by(Math.min(2, Math.max(0.5, 2 ** (-px / 100))), toContent(grid, ev.clientX, ev.clientY));
  }, { passive: false });
  $('zoom-in').addEventListener('click', () => by(2));
  $('zoom-out').addEventListener('click', () => by(0.5));
  $('zoom-reset').addEventListener('click', () => { resetView(); renderSoon(); });
  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.closest('input, textarea, select')) return;
    const pan = { ArrowLeft: [1, 0], ArrowRight: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[ev.key];
    if (ev.key === '+' || ev.key === '=') by(2);
    else if (ev.key === '-' || ev.key === '_') by(0.5);
    else if (ev.key === '0') { resetView(); renderSoon(); }
    else if (pan && document.activeElement === grid && view.zoom > 1 && answer) {
      // (an eighth of the view a press)
      const L = layout();
      panBy(L, view.at, (pan[0] * L.width) / 8, (pan[1] * L.height) / 8);
      renderSoon();
    } else return;
    ev.preventDefault();
  });
}

function fitStateFromControls() {
  fitState({ offsets: $('offsets').value, dc: $('dc').checked, dimension: $('dimension').value });
}

readUrl();
wire();
setControls();
update();
