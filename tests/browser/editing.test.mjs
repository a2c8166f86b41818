// The page as a first-time user meets it: typing into its fields while answers arrive, a
// refused question's error in the first screen, the controls explained, the provenance tags,
// a phone's layout and labels that do not overlap. Expected values come from `tld4 explain`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { here, UPDATE, base, context, useServer, explain, load, pageState, sameAsExplain } from './harness.mjs';

useServer();

const ARRAY = 'insn=TLD4.B+R10,+R8,+R20,+R24,+UR4,+ARRAY_2D&texture=4x4x3&coord=0.3,0.6';

// Replaces a field's text by typing `text` key by key, `delay` ms apart (long enough for
// answers to arrive between keys), then waits for the page to settle.
async function typeInto(page, selector, text, delay) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text, { delay });
  await page.waitForTimeout(700);
  await page.waitForFunction(() => document.body.dataset.ready !== undefined);
}

test('a fractional layer typed key by key while answers arrive reads the layer explain reads', async () => {
  const page = await context.newPage();
  await load(page, ARRAY + '&layer=0');
  // GLSL's float layer: floor(layer + 0.5), as explain converts it.
  for (const [typed, layer] of [['1.6', '2'], ['0.5', '1'], ['-0.4', '0'], ['1.4', '1']]) {
    await typeInto(page, '#layer', typed, 450);
    assert.equal(await page.inputValue('#layer'), typed, 'the field keeps what was typed');
    await page.waitForFunction((t) => new URL(location.href).searchParams.get('layer') === t, typed);
    await page.waitForFunction((l) => / layer (\d+)$/.exec(document.querySelector('[data-testid="layer-used"]').textContent)?.[1] === l, layer);
    const q = new URL(page.url()).search.slice(1);
    const want = explain(q);
    sameAsExplain(await pageState(page), want, q);
    assert.equal(want.texels.x.layer, layer, typed);
  }
  await page.close();
});

test('a typed coordinate, texture and PTP offsets stay as typed, and the mouse does not overwrite the coordinate', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.G.PTP+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.5,0.5&offsets=0,1,1,1,1,0,0,0');
  await typeInto(page, '#texture', '5x3', 400);
  assert.equal(await page.inputValue('#texture'), '5x3');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('texture') === '5x3');
  await typeInto(page, '#ptp', '1,0,-1,2,0,-3,2,2', 120);
  assert.equal(await page.inputValue('#ptp'), '1,0,-1,2,0,-3,2,2');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('offsets') === '1,0,-1,2,0,-3,2,2');
  await typeInto(page, '#coord', '0.31,0.77', 400);
  assert.equal(await page.inputValue('#coord'), '0.31,0.77');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('coord') === '0.31,0.77');
  // The mouse over the texture afterwards: the typed coordinate stays (the point is pinned).
  const cell = await page.locator('[data-testid="grid"] rect[data-value]').nth(5).boundingBox();
  await page.mouse.move(cell.x + 3, cell.y + 3, { steps: 4 });
  await page.mouse.move(cell.x + cell.width - 3, cell.y + cell.height / 2, { steps: 4 });
  await page.waitForTimeout(500);
  assert.equal(new URL(page.url()).searchParams.get('coord'), '0.31,0.77');
  assert.equal(await page.inputValue('#coord'), '0.31,0.77');
  assert.match(await page.textContent('[data-testid="pin-state"]'), /pinned/);
  const q = new URL(page.url()).search.slice(1);
  sameAsExplain(await pageState(page), explain(q), q);
  await page.close();
});

test('a refused instruction shows its error beside the SASS box in the first screen, the picture marked stale, and partial text asks nothing', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const refused = [];
  page.on('response', (r) => { if (r.status() >= 400) refused.push(r.url()); });
  const console400 = [];
  page.on('console', (m) => { if (/status of 4\d\d/.test(m.text())) console400.push(m.text()); });
  await load(page, 'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.5,0.5');
  const values = (await pageState(page)).values;
  // Key by key, 60 ms apart: no partial instruction is sent.
  const bad = 'TLD4.G.AOFFI R8, R20, R24, UR4, 2D';
  await typeInto(page, '#insn', bad, 60);
  await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden);
  assert.equal(refused.length, 1, refused.join('\n'));
  assert.equal(console400.length, 1, console400.join('\n'));
  // The API's own error, in the first screen, next to the box, which keeps the typed text.
  const r = await fetch(`${base}/api/explain?insn=${encodeURIComponent(bad)}`);
  assert.equal(r.status, 400);
  const err = (await r.json()).error;
  const shown = await page.textContent('[data-testid="error"]');
  assert.ok(shown.includes(err), `${shown} / ${err}`);
  assert.equal(await page.inputValue('#insn'), bad);
  const e = await page.locator('[data-testid="error"]').boundingBox();
  const box = await page.locator('#insn').boundingBox();
  assert.ok(e.y + e.height <= 800 && e.y >= 0, `error at y ${e.y}`);
  assert.ok(e.y - (box.y + box.height) < 40 && e.y > box.y, `error ${e.y}, box ${box.y}`);
  // The earlier answer below is marked as not this question's.
  assert.equal(await page.getAttribute('#view', 'data-stale'), 'true');
  assert.ok(await page.isVisible('[data-testid="stale-note"]'));
  assert.deepEqual((await pageState(page)).values, values);
  // A partial instruction, left in the box: the page says so and asks nothing.
  await typeInto(page, '#insn', 'TLD4.R R10, R8, R2', 30);
  assert.ok(await page.isVisible('[data-testid="incomplete"]'));
  assert.equal(refused.length, 1, refused.join('\n'));
  // A good one clears the error and the stale mark.
  await typeInto(page, '#insn', 'TLD4.A R10, R8, R20, R24, UR4, 2D', 10);
  await page.waitForFunction(() => document.querySelector('[data-testid="error"]').hidden);
  assert.equal(await page.getAttribute('#view', 'data-stale'), 'false');
  const q = new URL(page.url()).search.slice(1);
  sameAsExplain(await pageState(page), explain(q), q);
  await page.close();
});

test('a changed control keeps the registers the user typed', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.R+R12,+R6,+R28,+R30,+UR6,+2D&texture=4x4&coord=0.5,0.5');
  const ready = await page.getAttribute('body', 'data-ready');
  await page.selectOption('#component', 'G');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, ready);
  assert.match(await page.textContent('[data-testid="sass"]'), /^TLD4\.G R12, R6, R28, R30, UR6, 2D/);
  const r2 = await page.getAttribute('body', 'data-ready');
  await page.selectOption('#dimension', 'ARRAY_2D');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, r2);
  assert.match(await page.textContent('[data-testid="sass"]'), /^TLD4\.G R12, R6, R28, R30, UR6, ARRAY_2D/);
  assert.equal(await page.inputValue('#insn'), 'TLD4.G R12, R6, R28, R30, UR6, ARRAY_2D');
  await page.close();
});

test('the controls are explained: the index pattern, AOFFI and PTP, all-zero PTP offsets', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.A.PTP+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.5,0.5&offsets=0,0,0,0,0,0,0,0');
  const hint = await page.textContent('[data-testid="pattern-hint"]');
  assert.match(hint, /R = its column x, G = its row y, B = its layer, A = its number/);
  const off = await page.textContent('[data-testid="offsets-hint"]');
  assert.match(off, /AOFFI[\s\S]*textureGatherOffset\b/);
  assert.match(off, /PTP[\s\S]*textureGatherOffsets/);
  // All-zero PTP offsets: explain reads one texel four times, and the page says why.
  const q = new URL(page.url()).search.slice(1);
  const want = explain(q);
  const at = new Set(Object.values(want.texels).map((t) => t.i + ',' + t.j));
  assert.equal(at.size, 1, want.out);
  assert.ok(await page.isVisible('[data-testid="ptp-note"]'));
  assert.match(await page.textContent('[data-testid="ptp-note"]'), /collapses onto it/);
  // Other offsets: the note goes.
  await typeInto(page, '#ptp', '0,1,1,1,1,0,0,0', 20);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('offsets') === '0,1,1,1,1,0,0,0');
  await page.waitForTimeout(300);
  assert.equal(await page.isVisible('[data-testid="ptp-note"]'), false);
  await page.close();
});

test('the tags say what was measured by what, that no GPU has been, and show the gather order\'s tag', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.5,0.5&address=repeat');
  assert.match(await page.textContent('[data-testid="tags-note"]'), /No GPU has been measured yet/);
  const tags = await page.locator('[data-testid="tags"] li').allTextContents();
  assert.ok(tags.some((t) => /^\[measured on lavapipe.*gather order.*address modes/.test(t)), tags.join('\n'));
  // A tool's measurement says it was not a GPU; a third party's names its published test.
  assert.ok(tags.every((t) => !/^\[measured/.test(t) || /not on a GPU/.test(t) ||
    /^\[measured on NVIDIA hardware by a third party \(vkd3d-proton's test_sampler_rounding\)/.test(t)), tags.join('\n'));
  assert.match(await page.textContent('[data-testid="tags-note"]'), /tld4 itself was not run there/);
  // Each tag is explain's own line.
  const out = explain(new URL(page.url()).search.slice(1)).out;
  for (const t of tags) assert.ok(out.includes(t), t);
  await page.close();
});

// Fraction of pixels whose channels differ by more than 48 out of 255.
function diffFraction(a, b) {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let bad = 0;
  for (let k = 0; k < a.data.length; k += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(a.data[k + c] - b.data[k + c]) > 48) { bad++; break; }
    }
  }
  return bad / (a.width * a.height);
}

test('a phone (390 x 844): nothing wider than the screen, the grid and the values on it, as the committed screenshot', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await load(page, 'insn=TLD4.A.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.1,0.1&address=repeat&offset=1,-1');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  for (const sel of ['[data-testid="grid"]', '#values', '[data-testid="registers"]', '#insn', '[data-testid="text"]']) {
    const b = await page.locator(sel).boundingBox();
    assert.ok(b.x >= 0 && b.x + b.width <= 390, `${sel}: ${b.x} + ${b.width}`);
  }
  const g = await page.locator('[data-testid="grid"]').boundingBox();
  assert.ok(g.width >= 300, `grid ${g.width} px wide`);
  // The values the grid's footprint gathered, as explain says.
  const q = new URL(page.url()).search.slice(1);
  sameAsExplain(await pageState(page), explain(q), q);
  await page.evaluate(() => window.scrollTo(0, 0));
  const shot = PNG.sync.read(await page.screenshot({ fullPage: false }));
  const golden = join(here, 'golden', 'phone.png');
  if (UPDATE || !existsSync(golden)) writeFileSync(golden, PNG.sync.write(shot));
  const f = diffFraction(shot, PNG.sync.read(readFileSync(golden)));
  assert.ok(f < 0.03, `${(f * 100).toFixed(2)}% of the pixels differ from golden/phone.png`);
  await page.close();
});

// The window boxes of the grid's texts and of its ghost cells (dashed outlines).
async function gridBoxes(page) {
  return page.evaluate(() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, t: e.textContent }; };
    const svg = document.querySelector('[data-testid="grid"]');
    return {
      texts: [...svg.querySelectorAll('text')].filter((e) => e.textContent.trim()).map(box),
      ghosts: [...svg.querySelectorAll('rect[stroke-dasharray]')].map(box),
      arrows: [...svg.querySelectorAll('line[data-testid^="face-arrow"]')].map(box),
    };
  });
}

// Two boxes overlapping by more than a pixel each way.
const overlap = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;

test('at 1280 x 800 no label overlaps another, a ghost cell or a face arrow, and explain\'s lines are not cut', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const q of [
    'insn=TLD4.A.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.1,0.1&address=repeat&offset=1,-1',
    'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=5x3&coord=0.02,0.9&address=clamp_to_border&border=float_opaque_white',
    'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.4,0.6&pattern=random:1',
    'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+CUBE&texture=4x4&coord=1,0.1,0.97',
  ]) {
    await load(page, q);
    const { texts, ghosts, arrows } = await gridBoxes(page);
    for (let a = 0; a < texts.length; a++) {
      for (let b = a + 1; b < texts.length; b++) {
        assert.ok(!overlap(texts[a], texts[b]), `${q}: "${texts[a].t}" overlaps "${texts[b].t}"`);
      }
    }
    // The edge labels (i=, j=, u=, v=, s=, t=) lie clear of the ghost cells; no text under a face arrow.
    for (const t of texts.filter((x) => /^[ijuvst]=/.test(x.t))) {
      for (const g of ghosts) assert.ok(!overlap(t, g), `${q}: "${t.t}" over a ghost cell`);
    }
    for (const t of texts.filter((x) => /^\(\d+,\d+\)$|^-?\d/.test(x.t))) {
      for (const ar of arrows) {
        // (a line's box: a thin one is the line itself)
        if (ar.w < 4 || ar.h < 4) assert.ok(!overlap(t, { ...ar, x: ar.x - 1, y: ar.y - 1, w: ar.w + 2, h: ar.h + 2 }), `${q}: "${t.t}" under a face arrow`);
      }
    }
    const cut = await page.evaluate(() => { const e = document.querySelector('[data-testid="text"]'); return e.scrollWidth - e.clientWidth; });
    assert.ok(cut <= 0, `${q}: explain's text is cut by ${cut} px`);
  }
  await page.close();
});

test('the registers panel lists the registers F16 output writes, as explain does', async () => {
  const page = await context.newPage();
  for (const [insn, regs] of [['TLD4.A.F16.RN+R10,+R8,+R20,+R24,+UR4,+2D', ['R8', 'R10']],
    ['TLD4.A.F16.RZ+R12,+R6,+R20,+R24,+UR4,+2D', ['R6', 'R12']],
    ['TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D', ['R8', 'R9', 'R10', 'R11']]]) {
    const q = `insn=${insn}&texture=4x4&format=rgba8_unorm&coord=0.4,0.6`;
    await load(page, q);
    const rows = await page.locator('[data-testid="registers"] tr').allTextContents();
    const out = explain(q).out;
    // explain's registers written, after `writes:` (`    R8    = 0x29052885 ...`)
    const writes = out.slice(out.indexOf('\n  writes:'));
    const want = [...writes.matchAll(/^ {4}(R\d+) +=\s+(0x[0-9a-f]{8})/gm)].map((m) => [m[1], m[2]]);
    assert.deepEqual(want.map((w) => w[0]), regs, out);
    assert.equal(rows.length, regs.length, rows.join('|'));
    rows.forEach((r, k) => assert.ok(r.startsWith(want[k][0] + want[k][1]), `${r} vs ${want[k]}`));
  }
  await page.close();
});
