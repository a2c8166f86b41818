// End-to-end tests of `tld4 serve`'s page in Debian's chromium, driven by playwright-core.
// Every expected value comes from `tld4 explain` run on the same question (the page's URL
// query string uses explain's flag names), never from a copy of text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { here, root, BIN, UPDATE, base, context, useServer, explain, load, pageState, sameAsExplain } from './harness.mjs';

useServer();

test('a URL state shows what tld4 explain computes for the same flags', async () => {
  const page = await context.newPage();
  for (const q of [
    'insn=TLD4.A.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&pattern=index&coord=0.1,0.1&address=repeat&offset=1,-1',
    'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&pattern=index&coord=0.5,0.5',
    'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=5x3&coord=0.02,0.9&address=clamp_to_border&border=float_opaque_white',
    'insn=TLD4.B+R10,+R8,+R20,+R24,+UR4,+ARRAY_2D&texture=4x4x3&coord=0.3,0.6&layer=7',
    'insn=TLD4.G.PTP+R10,+R8,+R20,+R24,+UR4,+2D&texture=8x8&coord=0.5,0.5&offsets=1,0,-1,2,0,-3,2,2',
  ]) {
    await load(page, q);
    const got = await pageState(page);
    sameAsExplain(got, explain(q), q);
    // The index pattern names its texels: component A is y*W + x of the texel read.
    if (q.includes('TLD4.A') && q.includes('4x4')) {
      for (const n of 'xyzw') {
        const t = got.texels[n];
        assert.equal(Number(got.values['xyzw'.indexOf(n)]), 4 * Number(t.j) + Number(t.i), n);
      }
    }
  }
  await page.close();
});

test('the mouse sets the coordinate and the controls change the question', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4');
  const before = page.url();
  // Over the texture's top-left quarter: inside texel (1, 0)'s cell, off its centre.
  const t10 = await page.locator('[data-testid="grid"] rect[data-value]').nth(1).boundingBox();
  await page.mouse.move(t10.x + t10.width * 0.3, t10.y + t10.height * 0.7);
  await page.waitForFunction((u) => location.href !== u, before);
  await page.waitForTimeout(300);
  await page.waitForSelector('body[data-ready]');
  const q = new URL(page.url()).search.slice(1);
  assert.match(q, /coord=0\.\d+%2C0\.\d+/);
  sameAsExplain(await pageState(page), explain(q), q);
  // Clamp to border on u: the footprint at u near 0 reads the border.
  await page.goto(`${base}/?insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.05,0.5`);
  await page.waitForSelector('body[data-ready]');
  const ready = await page.getAttribute('body', 'data-ready');
  await page.selectOption('#address_u', 'clamp_to_border');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, ready);
  const q2 = new URL(page.url()).search.slice(1);
  assert.match(q2, /address=clamp_to_border%2Cclamp_to_edge/);
  const got = await pageState(page);
  assert.equal(got.texels.x.layer, 'border');
  sameAsExplain(got, explain(q2), q2);
  // The offset-mode control rewrites the SASS line.
  const r2 = await page.getAttribute('body', 'data-ready');
  await page.selectOption('#offsets', 'AOFFI');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, r2);
  assert.match(await page.textContent('[data-testid="sass"]'), /^TLD4\.A\.AOFFI R10, R8, R20, R24, UR4, 2D/);
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

test('the picture matches the committed screenshot within a tolerance', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.A.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.1,0.1&address=repeat&offset=1,-1');
  const shot = PNG.sync.read(await page.locator('[data-testid="grid"]').screenshot());
  const golden = join(here, 'golden', 'grid.png');
  if (UPDATE || !existsSync(golden)) {
    writeFileSync(golden, PNG.sync.write(shot));
    writeFileSync(join(root, 'docs', 'serve-page.png'), await page.screenshot({ fullPage: false }));
  }
  const want = PNG.sync.read(readFileSync(golden));
  const f = diffFraction(shot, want);
  assert.ok(f < 0.02, `${(f * 100).toFixed(2)}% of the pixels differ`);
  // The footprint is drawn: magenta outlines exist in the picture.
  let magenta = 0;
  for (let k = 0; k < shot.data.length; k += 4) {
    if (shot.data[k] > 200 && shot.data[k + 1] < 60 && shot.data[k + 2] > 200) magenta++;
  }
  assert.ok(magenta > 100, `${magenta} magenta pixels`);
  await page.close();
});

test('the API refuses malformed and oversized requests and stays up', async () => {
  const post = (body) => fetch(`${base}/api/explain`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  let r = await post('{"texture": ');
  assert.equal(r.status, 400);
  assert.match((await r.json()).error, /not JSON/);
  r = await post('[1, 2]');
  assert.equal(r.status, 400);
  r = await post(JSON.stringify({ texture: '4x4', pad: 'x'.repeat(20000) }));
  assert.equal(r.status, 413);
  r = await post(JSON.stringify({ texture: '4096x4096' }));
  assert.equal(r.status, 413);
  r = await post(JSON.stringify({ insn: 'TLD4.R R10, R8, R20, R24, UR4, ARRAY_CUBE', texture: '64x64x8' }));
  assert.equal(r.status, 413);
  assert.match((await r.json()).error, /cube faces counted/);
  r = await post(JSON.stringify({ texture: '4x4', colour: 'red' }));
  assert.equal(r.status, 400);
  r = await post(JSON.stringify({ insn: '/etc/passwd:k:0x10' }));
  assert.equal(r.status, 400);
  assert.match((await r.json()).error, /file reference/);
  r = await fetch(`${base}/api/explain?` + 'x'.repeat(9000));
  assert.equal(r.status, 414);
  r = await fetch(`${base}/nothing`);
  assert.equal(r.status, 404);
  // Still up, and answering concurrent requests with explain's numbers.
  const qs = Array.from({ length: 8 }, (_, k) => `insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=${(k + 0.5) / 8},0.5`);
  const answers = await Promise.all(qs.map((q) => fetch(`${base}/api/explain?${q}`).then((x) => x.json())));
  answers.forEach((a, k) => assert.deepEqual(a.lane.values, explain(qs[k]).values, qs[k]));
  // POST with the same parameters as the query.
  r = await post(JSON.stringify({ insn: 'TLD4.A R10, R8, R20, R24, UR4, 2D', texture: '4x4', coord: `${0.5 / 8},0.5` }));
  assert.deepEqual((await r.json()).lane.values, answers[0].lane.values);
});

test('copy as scenario gives the JSON tld4 explain --scenario reproduces', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.G.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=5x3&coord=0.31,0.77&address=mirrored_repeat&offset=-2,1';
  await load(page, q);
  const doc = await page.inputValue('[data-testid="scenario"]');
  const dir = mkdtempSync(join(tmpdir(), 'tld4-scenario-'));
  const file = join(dir, 's.json');
  writeFileSync(file, doc);
  const out = execFileSync(BIN, ['explain', 'TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D', '--scenario', file], { encoding: 'utf8' });
  // The copied document alone: its own instruction.
  const alone = execFileSync(BIN, ['explain', '--scenario', file], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(alone, out);
  const m = /results \(x, y, z, w\) = \(([^)]*)\)/.exec(out);
  assert.deepEqual((await pageState(page)).values, m[1].split(', '));
  // Exactly: explain's whole text on the copied scenario is the page's, but for the line
  // naming where the lane came from.
  const name = (t) => t.replace(/^lane 0 of .*:$/m, 'lane 0 of (the source):').trimEnd();
  const shown = await page.textContent('[data-testid="text"]');
  assert.match(shown, /^lane 0 of the question:$/m);
  assert.equal(name(shown), name(out));
  await page.close();
});

test('the depth-compare and F16 panels show what explain says', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.R.DC+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&format=d32_float&coord=0.5,0.5&dref=1.5';
  await load(page, q);
  const want = explain(q);
  const rows = await page.locator('[data-testid="dc-table"] tr').allTextContents();
  assert.equal(rows.length, 5);
  want.values.forEach((v, k) => {
    assert.match(rows[k + 1], Number(v) === 1 ? /pass/ : /fail/, rows[k + 1]);
  });
  // The index pattern's depth is x: explain names the texels, so the depths are their columns.
  for (let k = 0; k < 4; k++) {
    assert.ok(rows[k + 1].includes(want.texels['xyzw'[k]].i), rows[k + 1]);
  }
  const q2 = 'insn=TLD4.A.F16.RN+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&format=rgba8_unorm&coord=0.5,0.5';
  await load(page, q2);
  const out = explain(q2).out;
  const f16 = await page.locator('[data-testid="f16-table"] tr').allTextContents();
  assert.equal(f16.length, 5);
  for (let k = 0; k < 4; k++) {
    const line = new RegExp(`^ {4}${'xyzw'[k]}: \\S+ -> RN (0x[0-9a-f]{4}) .*RZ (0x[0-9a-f]{4})`, 'm').exec(out);
    assert.ok(line, out);
    assert.ok(f16[k + 1].includes(line[1]) && f16[k + 1].includes(line[2]), f16[k + 1]);
  }
  await page.close();
});

test('a cube gather across an edge shows the neighbour face and the mouse moves on the face', async () => {
  const page = await context.newPage();
  // Near the +X face's left edge: part of the footprint lies on a neighbour face.
  const q = 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+CUBE&texture=4x4&coord=1,0.1,0.97';
  await load(page, q);
  sameAsExplain(await pageState(page), explain(q), q);
  const faces = await page.locator('[data-testid="grid"] text').allTextContents();
  // (the neighbour faces are named once each; their texels carry (x, y) and the value)
  assert.ok(faces.some((t) => /^[+-][XYZ]$/.test(t)) && faces.some((t) => /^\(\d+,\d+\)$/.test(t)), faces.join('|'));
  const ready = await page.getAttribute('body', 'data-ready');
  // (inside the sampled face: its texel (1, 2), whose cells are the first 16 with a value)
  const t12 = await page.locator('[data-testid="grid"] rect[data-value]').nth(9).boundingBox();
  await page.mouse.move(t12.x + t12.width * 0.4, t12.y + t12.height * 0.6);
  await page.waitForFunction((r) => document.body.dataset.ready !== r, ready);
  await page.waitForTimeout(300);
  const q2 = new URL(page.url()).search.slice(1);
  // Still on the same face: the direction's x is the major axis, +1.
  assert.match(decodeURIComponent(q2), /coord=1\.0000,/);
  sameAsExplain(await pageState(page), explain(q2), q2);
  await page.close();
});

test('the magnified sample point shows the rounding that decided the texel', async () => {
  const page = await context.newPage();
  // u*W = 0.62475 * 4 = 2.499 (in f32 arithmetic, a hair off): 8 fractional bits round it
  // to 640/256 = 2.5, so i0 = 2 where the exact floor(2.499 - 0.5) is 1.
  const q = 'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.62475,0.5';
  await load(page, q);
  const want = explain(q);
  assert.match(want.out, /the rounding decided the texel: exact floor\(u\*W - 0\.5\) = 1, the fixed-point value gives i0 = 2/);
  const zoom = (await page.locator('[data-testid="zoom"] text').allTextContents()).join('|');
  assert.match(zoom, /u\*W 2\.49\d+ -> 2\.500000/, zoom);
  // The footprint the page draws starts at i0 = 2, as explain says (component R is x).
  sameAsExplain(await pageState(page), want, q);
  assert.equal((await pageState(page)).texels.w.i, '2');
  await page.close();
});

test('a float layer converts as explain converts it, and the page says which layer was read', async () => {
  const page = await context.newPage();
  // GLSL's layer 1.6: floor(1.6 + 0.5) = 2 (the rule docs/sources.md, Decisions names).
  const q = 'insn=TLD4.B+R10,+R8,+R20,+R24,+UR4,+ARRAY_2D&texture=4x4x3&coord=0.3,0.6&layer=1.6';
  await load(page, q);
  const want = explain(q);
  assert.match(want.out, /floor\(1\.6 \+ 0\.5\)/);
  const got = await pageState(page);
  sameAsExplain(got, want, q);
  for (const n of 'xyzw') assert.equal(got.texels[n].layer, '2', n);
  assert.match(await page.textContent('[data-testid="layer-used"]'), /layer 2$/);
  assert.match(await page.textContent('[data-testid="text"]'), /the layer register holds the integer 2/);
  // 2.5 goes up to 3 (not ties to even); 1.4 goes down to 1.
  for (const [l, want] of [['2.5', '2'], ['1.4', '1']]) {
    const q2 = q.replace('layer=1.6', `layer=${l}`);
    await load(page, q2);
    sameAsExplain(await pageState(page), explain(q2), q2);
    // (a 3-layer texture: layer 3 clamps to the last, 2)
    assert.equal((await pageState(page)).texels.x.layer, want, l);
  }
  await page.close();
});

test('PTP offsets are dragged on the texture, with the sample point pinned', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.G.PTP+R10,+R8,+R20,+R24,+UR4,+2D&texture=8x8&coord=0.5,0.5&offsets=1,0,-1,2,0,-3,2,2';
  await load(page, q);
  // Each offset is drawn as an arrow from its unoffset ghost; PTP reads texel k at
  // (i0 + dx_k, j0 + dy_k), so every ghost is (i0, j0) = (3, 3) here (u*W = 4).
  for (const n of 'xyzw') {
    const g = page.locator(`[data-testid="offset-ghost-${n}"]`);
    assert.equal(await g.getAttribute('data-i'), '3', n);
    assert.equal(await g.getAttribute('data-j'), '3', n);
  }
  // A click pins the sample point where it is.
  await pinSample(page);
  const pinnedAt = new URL(page.url()).searchParams.get('coord');
  // Drag texel z two texels right and one down: its offset (0, -3) becomes (2, -2).
  const z = await page.locator('[data-testid="texel-z"]').boundingBox();
  const cell = z.width + 2;
  await page.mouse.move(z.x + z.width / 2, z.y + z.height / 2);
  await page.mouse.down();
  await page.mouse.move(z.x + z.width / 2 + 2 * cell, z.y + z.height / 2 + cell, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('offsets') === '1,0,-1,2,2,-2,2,2');
  const q2 = new URL(page.url()).search.slice(1);
  assert.equal(new URL(page.url()).searchParams.get('coord'), pinnedAt, 'the drag did not move the sample point');
  const want = explain(q2);
  await page.waitForFunction((i) => document.querySelector('[data-testid="texel-z"]').getAttribute('data-i') === i, want.texels.z.i);
  sameAsExplain(await pageState(page), want, q2);
  assert.equal(await page.inputValue('#ptp'), '1,0,-1,2,2,-2,2,2');
  // Still pinned: moving the mouse over the texture changes nothing.
  const before = page.url();
  await page.mouse.move(z.x - 3 * cell, z.y + 3 * cell, { steps: 3 });
  await page.waitForTimeout(300);
  assert.equal(page.url(), before);
  await page.close();
});

test('editing the SASS text sets the controls', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&format=d32_float&coord=0.3,0.6');
  const ready = await page.getAttribute('body', 'data-ready');
  await page.fill('[data-testid="insn"]', 'TLD4.B.AOFFI.DC R10, R8, R20, R24, UR4, ARRAY_2D');
  await page.press('[data-testid="insn"]', 'Enter');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, ready);
  assert.equal(await page.inputValue('#component'), 'B');
  assert.equal(await page.inputValue('#offsets'), 'AOFFI');
  assert.equal(await page.inputValue('#dimension'), 'ARRAY_2D');
  assert.equal(await page.isChecked('#dc'), true);
  assert.equal(await page.isVisible('#aoffi-row'), true);
  assert.equal(await page.isVisible('#dc-row'), true);
  assert.equal(await page.isVisible('#layer-label'), true);
  assert.match(await page.textContent('[data-testid="sass"]'), /^TLD4\.B\.AOFFI\.DC R10, R8, R20, R24, UR4, ARRAY_2D/);
  const q = new URL(page.url()).search.slice(1);
  sameAsExplain(await pageState(page), explain(q), q);
  // A question the lane faults on (.DC on a colour format): the page shows the new line and
  // explain's fault, and no value of the earlier answer stays.
  const r2 = await page.getAttribute('body', 'data-ready');
  await page.selectOption('#format', 'rgba32_float');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, r2);
  assert.match(await page.textContent('[data-testid="text"]'), /fault: not modeled .*depth compare on the non-depth format/);
  for (const n of 'xyzw') assert.doesNotMatch(await page.textContent(`[data-testid="value-${n}"]`), /\d/, n);
  await page.close();
});

test('a cube shows the 3x3 unfolding with each neighbour face and its s, t arrows', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+CUBE&texture=4x4&coord=1,0.1,0.97';
  await load(page, q);
  const want = explain(q);
  sameAsExplain(await pageState(page), want, q);
  // +X's neighbours (Vulkan's cube table: on +X, sc = -rz and tc = -ry, so s < 0 is +Z,
  // s > 1 is -Z, t < 0 is +Y, t > 1 is -Y), each drawn whole: 16 texels a face.
  const names = await page.locator('[data-testid="face-name"]').allTextContents();
  assert.deepEqual([...names].sort(), ['+Y', '+Z', '-Y', '-Z'].sort());
  for (const f of ['+Y', '+Z', '-Y', '-Z']) {
    assert.equal(await page.locator(`[data-testid="grid"] rect[data-face="${f}"]`).count(), 16, f);
    assert.equal(await page.locator(`[data-testid="face-arrow-s"][data-face="${f}"]`).count(), 1, f);
    assert.equal(await page.locator(`[data-testid="face-arrow-t"][data-face="${f}"]`).count(), 1, f);
  }
  // The footprint texels explain puts on +Z are drawn on the +Z block, left of the face.
  const grid = await page.locator('[data-testid="grid"]').boundingBox();
  const sample = await page.locator('[data-testid="sample"]').boundingBox();
  for (const n of 'xw') {
    assert.match(want.out, new RegExp(`^ {4}${n} .*on face \\+Z texel`, 'm'));
    const b = await page.locator(`[data-testid="texel-${n}"]`).boundingBox();
    const under = await page.evaluate(([x, y]) => {
      for (const e of document.elementsFromPoint(x, y)) if (e.dataset && e.dataset.face) return e.dataset.face;
      return null;
    }, [b.x + b.width / 2, b.y + b.height / 2]);
    assert.equal(under, '+Z', n);
    assert.ok(b.x < sample.x && b.x > grid.x, n);
  }
  // The face buttons set the direction to a face's centre.
  const ready = await page.getAttribute('body', 'data-ready');
  await page.click('[data-testid="face--Y"]');
  await page.waitForFunction((r) => document.body.dataset.ready !== r, ready);
  const q2 = new URL(page.url()).search.slice(1);
  assert.equal(new URL(page.url()).searchParams.get('coord'), '0,-1,0');
  sameAsExplain(await pageState(page), explain(q2), q2);
  assert.match(await page.textContent('[data-testid="grid"]'), /face 3/);
  await page.close();
});

test('border texels show the border value, and small cells a value shade', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.02,0.5&address=clamp_to_border,clamp_to_edge&border=float_opaque_white';
  await load(page, q);
  const want = explain(q);
  sameAsExplain(await pageState(page), want, q);
  for (const n of 'xw') {
    assert.ok(want.texels[n].border, `${n} reads the border\n${want.out}`);
    assert.equal(await page.textContent(`[data-testid="border-${n}"]`), '= ' + want.values['xyzw'.indexOf(n)], n);
  }
  // 16x16: cells too small for text are shaded, darker for larger values (A = y*16 + x).
  await load(page, 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=16x16&coord=0.5,0.5');
  const cells = await page.locator('[data-testid="grid"] rect[data-value]').evaluateAll((rs) =>
    rs.map((r) => ({ v: Number(r.getAttribute('data-value')), g: Number(/rgb\((\d+)/.exec(r.getAttribute('fill'))[1]) })));
  assert.equal(cells.length, 256);
  const byValue = cells.slice().sort((a, b) => a.v - b.v);
  assert.equal(byValue[0].v, 0);
  assert.equal(byValue[0].g, 255);
  assert.equal(byValue[255].v, 255);
  for (let k = 1; k < 256; k++) assert.ok(byValue[k].g <= byValue[k - 1].g, `shade of ${byValue[k].v}`);
  assert.ok(byValue[255].g < 120, 'the largest value is dark');
  assert.match(await page.textContent('[data-testid="value-scale"]'), /white = 0\.0, darkest = 255\.0/);
  await page.close();
});

// The zoom. Every expected position is computed from the query (the zoom, the view's centre
// `at`, explain's u*W and fixed-point value) and the SVG's viewBox and box, never by the
// page's functions: a content point (x, y) lies on the screen at left + (x - vb.x) * s.
async function gridMapping(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('[data-testid="grid"]');
    const r = svg.getBoundingClientRect();
    const [x, y, w, h] = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number);
    const cw = svg.clientWidth, ch = svg.clientHeight;
    // (preserveAspectRatio's default: xMidYMid meet)
    const s = Math.min(cw / w, ch / h);
    // A texel's cell, as drawn (content units), and its (i, j): where the texture lies.
    const c = svg.querySelector('rect[data-value]');
    const [i, j] = c.getAttribute('data-cell').split(',').map(Number);
    const cell = Number(c.getAttribute('width'));
    return {
      viewBox: svg.getAttribute('viewBox'), vb: { x, y, w, h }, s,
      left: r.left + svg.clientLeft + (cw - w * s) / 2, top: r.top + svg.clientTop + (ch - h * s) / 2,
      centre: { x: r.left + svg.clientLeft + cw / 2, y: r.top + svg.clientTop + ch / 2 },
      x0: Number(c.getAttribute('x')) - i * cell, y0: Number(c.getAttribute('y')) - j * cell, cell,
    };
  });
}

// The window position of the point (tu, tv) of the texture, in texels.
function onScreen(m, tu, tv) {
  return { x: m.left + (m.x0 + tu * m.cell - m.vb.x) * m.s, y: m.top + (m.y0 + tv * m.cell - m.vb.y) * m.s };
}

async function centreOf(page, testid) {
  const b = await page.locator(`[data-testid="${testid}"]`).boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

// A press on the sample point without a move pins it where it is; waits for the pinned state
// and its URL update.
async function pinSample(page) {
  const s = await centreOf(page, 'sample');
  await page.mouse.move(s.x, s.y);
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction(() => /pinned/.test(document.querySelector('[data-testid="pin-state"]').textContent));
  await page.waitForTimeout(300);
}

function near(got, want, tol, what) {
  assert.ok(Math.abs(got.x - want.x) <= tol && Math.abs(got.y - want.y) <= tol,
    `${what}: at (${got.x.toFixed(2)}, ${got.y.toFixed(2)}), want (${want.x.toFixed(2)}, ${want.y.toFixed(2)})`);
}

// u*W and v*H as explain prints them: exact, and rounded to the 1/256 lattice (k / 2^8).
function samplePoints(out) {
  const axis = (a) => {
    const m = new RegExp(`${a} = \\S+ \\* \\d+ = (\\S+); fixed point [^:]*: (-?\\d+) / 2\\^8 = `).exec(out);
    assert.ok(m, out);
    return { exact: Number(m[1]), k: Number(m[2]), rounded: Number(m[2]) / 256 };
  };
  return { u: axis('u\\*W'), v: axis('v\\*H') };
}

const latticeLines = (page) => page.locator('[data-testid="lattice"] line').count();

async function waitViewBoxChange(page, before) {
  await page.waitForFunction((b) => document.querySelector('[data-testid="grid"]').getAttribute('viewBox') !== b, before);
  await page.waitForTimeout(50);
}

test('a zoomed URL shows the 1/256 lattice, the exact and the rounded point where explain puts them', async () => {
  const page = await context.newPage();
  // u*W = 2.499 rounds to 640/256 = 2.5; v*H = 1.2000000477 to 307/256.
  const q = 'insn=TLD4.R+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.62475,0.3';
  const want = explain(q);
  const p = samplePoints(want.out);
  assert.equal(p.u.k, 640);
  await load(page, q);
  const whole = await gridMapping(page);
  const unzoomed = await pageState(page);
  sameAsExplain(unzoomed, want, q);
  assert.equal(await latticeLines(page), 0, 'no lattice on the whole texture');
  const texelPx = whole.cell * whole.s;

  await load(page, q + '&zoom=128&at=2.5,1.2');
  const m = await gridMapping(page);
  // The zoom: a texel 128 times as wide on the screen; `at` in the middle of the grid.
  assert.ok(Math.abs(m.cell * m.s - 128 * texelPx) < 1e-6 * texelPx * 128, `${m.cell * m.s} px a texel`);
  near(onScreen(m, 2.5, 1.2), m.centre, 0.5, 'at');
  // The rounded point (a dot) and the exact one (a ring), from explain's numbers: relative to
  // the grid's middle (the query's `at`) and by the viewBox alike.
  const rounded = await centreOf(page, 'sample');
  const exact = await centreOf(page, 'sample-exact');
  const fromAt = (t) => ({ x: m.centre.x + (t.u - 2.5) * 128 * texelPx, y: m.centre.y + (t.v - 1.2) * 128 * texelPx });
  near(rounded, fromAt({ u: p.u.rounded, v: p.v.rounded }), 1, 'rounded point (from at)');
  near(exact, fromAt({ u: p.u.exact, v: p.v.exact }), 1, 'exact point (from at)');
  near(rounded, onScreen(m, p.u.rounded, p.v.rounded), 1, 'rounded point (viewBox)');
  near(exact, onScreen(m, p.u.exact, p.v.exact), 1, 'exact point (viewBox)');
  assert.ok(Math.hypot(rounded.x - exact.x, rounded.y - exact.y) > 5, 'the two points apart');
  assert.equal(await page.getAttribute('[data-testid="sample-exact"]', 'fill'), 'none', 'the exact point is a ring');
  assert.notEqual(await page.getAttribute('[data-testid="sample"]', 'fill'), 'none', 'the rounded point is a dot');
  // The lattice: lines 1/256 texel apart, the rounded point on the lines k = 640 and 307.
  assert.ok(await latticeLines(page) > 10);
  const line = async (axis, k) => {
    const l = page.locator(`[data-testid="lattice"] line[data-axis="${axis}"][data-k="${k}"]`);
    assert.equal(await l.count(), 1, `${axis} line ${k}`);
    return Number(await l.getAttribute(axis === 'u' ? 'x1' : 'y1'));
  };
  const xu = await line('u', p.u.k), xu1 = await line('u', p.u.k + 1), yv = await line('v', p.v.k);
  assert.ok(Math.abs(m.left + (xu - m.vb.x) * m.s - rounded.x) < 1, 'u lattice line through the rounded point');
  assert.ok(Math.abs(m.top + (yv - m.vb.y) * m.s - rounded.y) < 1, 'v lattice line through the rounded point');
  assert.ok(Math.abs((xu1 - xu) * m.s - (128 * texelPx) / 256) < 0.01, 'a lattice step is 1/256 texel');
  assert.match(await page.textContent('[data-testid="zoom-level"]'), /^128x; lattice 1\/256 texel \(ties unmeasured: see the tags\) = 30\.0 px/);
  // Nothing of the gather changed.
  assert.deepEqual(await pageState(page), unzoomed);
  // A reload (the link) shows the same view.
  const url = page.url();
  await page.reload();
  await page.waitForSelector('body[data-ready]');
  assert.equal(page.url(), url);
  assert.equal((await gridMapping(page)).viewBox, m.viewBox);
  near(await centreOf(page, 'sample'), rounded, 0.5, 'rounded point after a reload');
  // Reset: the whole texture again, the view gone from the URL.
  await page.click('[data-testid="zoom-reset"]');
  await waitViewBoxChange(page, m.viewBox);
  assert.equal((await gridMapping(page)).viewBox, whole.viewBox);
  assert.equal(new URL(page.url()).searchParams.get('zoom'), null);
  assert.equal(new URL(page.url()).searchParams.get('at'), null);
  assert.equal(await latticeLines(page), 0);
  assert.deepEqual(await pageState(page), unzoomed);
  // Exact precision: no rounding, no lattice, however close.
  await load(page, q + '&precision=exact&zoom=128&at=2.5,1.2');
  assert.equal(await latticeLines(page), 0);
  assert.match(await page.textContent('[data-testid="zoom-level"]'), /^128x; exact precision: no lattice$/);
  await page.close();
});

test('the wheel zooms at the pointer, buttons and keys by two, a drag pans; the lattice past its threshold', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.62475,0.3');
  // Pin the sample point where the mouse puts it (the mouse over the grid moves it).
  await pinSample(page);
  const q = new URL(page.url()).search.slice(1);
  const want = explain(q);
  const before = await pageState(page);
  sameAsExplain(before, want, q);
  const coord = new URL(page.url()).searchParams.get('coord');

  // The wheel, with the pointer off the middle: zoom 2, the content under the pointer stays.
  const m0 = await gridMapping(page);
  const P = { x: m0.centre.x + 37, y: m0.centre.y - 23 };
  await page.mouse.move(P.x, P.y);
  const under = { x: (P.x - m0.left) / m0.s + m0.vb.x, y: (P.y - m0.top) / m0.s + m0.vb.y };
  await page.mouse.wheel(0, -100);
  await waitViewBoxChange(page, m0.viewBox);
  const m1 = await gridMapping(page);
  assert.ok(Math.abs(m1.s / m0.s - 2) < 1e-6, `wheel zoom ${m1.s / m0.s}`);
  near({ x: m1.left + (under.x - m1.vb.x) * m1.s, y: m1.top + (under.y - m1.vb.y) * m1.s }, P, 0.5, 'the point under the pointer');
  assert.equal(new URL(page.url()).searchParams.get('zoom'), '2');
  assert.equal(await latticeLines(page), 0);
  // The button, three times: 16x, a lattice step 60 * 16 / 256 = 3.75 px, not drawn yet; once
  // more, 32x: 7.5 px, drawn.
  const texelPx = m0.cell * m0.s;
  for (let k = 0; k < 3; k++) {
    const vb = (await gridMapping(page)).viewBox;
    await page.click('[data-testid="zoom-in"]');
    await waitViewBoxChange(page, vb);
  }
  let m = await gridMapping(page);
  assert.ok(Math.abs(m.cell * m.s - 16 * texelPx) < 1e-3, `${m.cell * m.s / texelPx}x`);
  assert.ok((16 * texelPx) / 256 < 6);
  assert.equal(await latticeLines(page), 0, 'no lattice at 16x');
  await page.click('[data-testid="zoom-in"]');
  await waitViewBoxChange(page, m.viewBox);
  m = await gridMapping(page);
  assert.ok(Math.abs(m.cell * m.s - 32 * texelPx) < 1e-3, `${m.cell * m.s / texelPx}x`);
  assert.ok(await latticeLines(page) > 10, 'the lattice at 32x');
  // The keys: - halves the zoom (no lattice), + doubles it.
  await page.keyboard.press('-');
  await waitViewBoxChange(page, m.viewBox);
  assert.equal(await latticeLines(page), 0, 'no lattice after -');
  assert.equal(new URL(page.url()).searchParams.get('zoom'), '16');
  const m16 = await gridMapping(page);
  await page.keyboard.press('+');
  await waitViewBoxChange(page, m16.viewBox);
  assert.ok(await latticeLines(page) > 10, 'the lattice after +');
  m = await gridMapping(page);
  // A drag pans by as many pixels; it neither pins nor moves the sample point.
  const at0 = new URL(page.url()).searchParams.get('at').split(',').map(Number);
  const g = m.centre;
  await page.mouse.move(g.x, g.y);
  await page.mouse.down();
  await page.mouse.move(g.x + 60, g.y + 40, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction((a) => new URL(location.href).searchParams.get('at') !== a, at0.join(','));
  await page.waitForTimeout(50);
  const at1 = new URL(page.url()).searchParams.get('at').split(',').map(Number);
  const span = 32 * texelPx;
  assert.ok(Math.abs(at1[0] - (at0[0] - 60 / span)) < 1e-5 && Math.abs(at1[1] - (at0[1] - 40 / span)) < 1e-5,
    `at ${at0} -> ${at1}`);
  assert.match(await page.textContent('[data-testid="pin-state"]'), /^pinned/);
  assert.equal(new URL(page.url()).searchParams.get('coord'), coord);
  // Nothing of the gather changed; the link reproduces the view.
  assert.deepEqual(await pageState(page), before);
  const url = page.url();
  const vb = (await gridMapping(page)).viewBox;
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  assert.equal((await gridMapping(page)).viewBox, vb);
  assert.ok(await latticeLines(page) > 10);
  // The key 0: the whole texture.
  await page.keyboard.press('0');
  await waitViewBoxChange(page, vb);
  assert.equal((await gridMapping(page)).viewBox, m0.viewBox);
  assert.equal(new URL(page.url()).searchParams.get('zoom'), null);
  sameAsExplain(await pageState(page), want, q);
  await page.close();
});

test('zoomed in, PTP offsets are still dragged and a press without a move still pins', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.G.PTP+R10,+R8,+R20,+R24,+UR4,+2D&texture=8x8&coord=0.5,0.5&offsets=1,0,-1,2,0,-3,2,2';
  await load(page, q + '&zoom=2&at=4,3');
  await pinSample(page);
  const pinnedAt = new URL(page.url()).searchParams.get('coord');
  const view = new URL(page.url()).searchParams.get('at');
  assert.equal(view, '4,3');
  // Texel z two texels right and one down: its offset (0, -3) becomes (2, -2).
  const m = await gridMapping(page);
  const texel = m.cell * m.s;
  const z = await centreOf(page, 'texel-z');
  await page.mouse.move(z.x, z.y);
  await page.mouse.down();
  await page.mouse.move(z.x + 2 * texel, z.y + texel, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('offsets') === '1,0,-1,2,2,-2,2,2');
  const q2 = new URL(page.url()).search.slice(1);
  const u = new URL(page.url()).searchParams;
  assert.equal(u.get('coord'), pinnedAt, 'the drag did not move the sample point');
  assert.equal(u.get('at'), view, 'the drag did not pan');
  assert.equal(u.get('zoom'), '2');
  const want = explain(q2);
  await page.waitForFunction((i) => document.querySelector('[data-testid="texel-z"]').getAttribute('data-i') === i, want.texels.z.i);
  sameAsExplain(await pageState(page), want, q2);
  await page.close();
});

test('zoomed in, small cells show their values at the size of the whole view, the indices along its edges', async () => {
  const page = await context.newPage();
  const q = 'insn=TLD4.A+R10,+R8,+R20,+R24,+UR4,+2D&texture=16x16&coord=0.5,0.5';
  await load(page, q);
  const valueTexts = () => page.locator('[data-testid="grid"] > text').evaluateAll((ts) =>
    ts.filter((t) => /^\d+\.0$/.test(t.textContent)).map((t) => ({ v: t.textContent, h: t.getBoundingClientRect().height })));
  // The whole 16x16 texture: cells too small, shaded, no value text.
  assert.equal((await valueTexts()).length, 0);
  const label = await page.locator('[data-testid="grid"] > text', { hasText: /^i=0$/ }).boundingBox();
  // 4x about texel (8, 8): 60-pixel cells with their values, as tall on the screen as the
  // labels of the whole view; i and j of the texels in view along the edges.
  await load(page, q + '&zoom=4&at=8,8');
  const shown = await valueTexts();
  assert.ok(shown.length >= 16, `${shown.length} values`);
  assert.ok(shown.some((t) => t.v === String(8 * 16 + 8) + '.0'), 'texel (8, 8) shows its value');
  for (const t of shown) assert.ok(Math.abs(t.h - label.height) < 2, `${t.v}: ${t.h} px tall, labels ${label.height}`);
  const edge = (await page.locator('[data-testid="edge-i"] text').allTextContents()).join(' ');
  assert.match(edge, /i=8/);
  assert.match((await page.locator('[data-testid="edge-j"] text').allTextContents()).join(' '), /j=8/);
  sameAsExplain(await pageState(page), explain(q), q);
  await page.close();
});
