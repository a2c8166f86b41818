// The page on every architecture: choosing one (its encoding, its text, its descriptor class,
// the same lane as `tld4 explain --arch`), pasting a scenario that names one (the same lane as
// `tld4 explain --scenario`), and a bad scenario's error in the first screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, root, base, context, useServer, explain, load, pageState, sameAsExplain } from './harness.mjs';

useServer();

// Waits for the answer after an action (the page marks each answer with a new time).
async function answered(page, action) {
  const before = await page.evaluate(() => document.body.dataset.ready);
  await action();
  await page.waitForFunction((b) => document.body.dataset.ready !== b, before);
  await page.waitForFunction(() => document.body.dataset.ready !== undefined);
}

// The word `tld4 explain` prints for an instruction of an architecture.
function archWord(arch, insn) {
  const out = execFileSync(BIN, ['explain', '--arch', arch, insn], { encoding: 'utf8' });
  // (another family's first line names its word and form; SM100's is the base table's word)
  const m = /^\S+: .*\(word ([0-9a-f]{32}), form (0x[0-9a-f]+)\)/.exec(out) || /^()word: ([0-9a-f]{32})/m.exec(out);
  assert.ok(m, out);
  return m[1] ? { word: m[1], form: m[2] } : { word: m[2], form: null };
}

test('choosing an architecture shows its encoding, text and descriptor class, the lane as explain --arch gives it, and the copied scenario names it', async () => {
  const page = await context.newPage();
  await load(page, 'insn=TLD4.G.AOFFI+R10,+R8,+R20,+R24,+UR4,+2D&texture=4x4&coord=0.3,0.6&offset=1,-1');
  const sm100 = await pageState(page);
  const choices = await page.locator('#arch option').allTextContents();
  for (const a of ['SM75', 'SM80', 'SM86', 'SM89', 'SM90', 'SM100', 'SM103', 'SM110', 'SM120', 'SM121']) {
    assert.ok(choices.includes(a), `${a} in ${choices}`);
  }
  for (const [arch, cls] of [['SM90', 'HOPPER_A'], ['SM75', 'TURING_A'], ['SM120', 'BLACKWELL_B'], ['SM100', 'BLACKWELL_A']]) {
    await answered(page, () => page.selectOption('#arch', arch));
    assert.equal(await page.isHidden('[data-testid="error"]'), true, `${arch}: ${await page.textContent('[data-testid="error"]')}`);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('arch'), arch);
    const insn = url.searchParams.get('insn');
    assert.equal(await page.inputValue('#insn'), insn, 'the SASS box holds the architecture\'s text');
    const line = await page.textContent('[data-testid="arch-line"]');
    const want = archWord(arch, insn);
    assert.ok(line.startsWith(arch + ': ' + insn), line);
    assert.ok(line.includes('word ' + want.word) && (!want.form || line.includes('form ' + want.form)), `${line}\n${JSON.stringify(want)}`);
    assert.match(line, new RegExp('descriptors in memory read as: ' + cls), line);
    // The same gather on every architecture, as explain --arch answers it.
    const q = url.search.slice(1);
    sameAsExplain(await pageState(page), explain(q), q);
    assert.deepEqual((await pageState(page)).values, sm100.values, arch);
    const doc = JSON.parse(await page.inputValue('[data-testid="scenario"]'));
    assert.equal(doc.arch, 'sm_' + arch.slice(2), 'the copied scenario names the architecture');
    assert.equal(doc.instruction, insn);
    // ... which `tld4 explain --scenario` reads alone, to the same values.
    const dir = mkdtempSync(join(tmpdir(), 'tld4-copied-'));
    try {
      writeFileSync(join(dir, 'copied.json'), JSON.stringify(doc));
      const out = execFileSync(BIN, ['explain', '--scenario', join(dir, 'copied.json')], { encoding: 'utf8' });
      assert.deepEqual(/results \(x, y, z, w\) = \(([^)]*)\)/.exec(out)[1].split(', '), sm100.values, out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // SM90's uniform form has an immediate after URc: its text is not SM100's.
  await answered(page, () => page.selectOption('#arch', 'SM90'));
  assert.match(await page.inputValue('#insn'), /UR4, 0x0, 2D/);
  // A control changed on SM90 keeps SM90 (the instruction written again for it).
  await answered(page, () => page.selectOption('#component', 'A'));
  assert.equal(new URL(page.url()).searchParams.get('arch'), 'SM90');
  assert.match(await page.inputValue('#insn'), /^TLD4\.A\.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D$/);
  await page.close();
});

test('a pasted scenario naming an architecture is explained as explain --scenario explains it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tld4-arch-'));
  try {
    // docs/scenarios.md's example for SM90: an owned texture, the architecture's spelling.
    const doc = JSON.parse(readFileSync(join(root, 'examples', 'scenarios', 'gather_green.json'), 'utf8'));
    doc.arch = 'sm_90';
    doc.instruction = 'TLD4.G.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D ;';
    doc.lanes[0].R20 = 0.3;
    const file = join(dir, 'sm90.json');
    writeFileSync(file, JSON.stringify(doc, null, 1));
    const out = execFileSync(BIN, ['explain', '--scenario', file], { encoding: 'utf8' });
    const values = /results \(x, y, z, w\) = \(([^)]*)\)/.exec(out)[1].split(', ');
    const page = await context.newPage();
    await load(page, 'texture=4x4');
    await page.click('[data-testid="load"] summary');
    await page.fill('[data-testid="paste"]', JSON.stringify(doc, null, 1));
    await answered(page, () => page.click('[data-testid="explain-pasted"]'));
    assert.equal(await page.isHidden('[data-testid="error"]'), true, await page.textContent('[data-testid="error"]'));
    assert.deepEqual((await pageState(page)).values, values, out);
    assert.match(await page.textContent('[data-testid="scenario-note"]'), /pasted scenario \(SM90, lane 0\)/);
    assert.equal(await page.isHidden('#link'), true, 'no link: the URL holds a question, not the document');
    assert.equal(await page.inputValue('#arch'), 'SM90');
    assert.equal(await page.inputValue('#insn'), 'TLD4.G.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D');
    assert.match(await page.textContent('[data-testid="arch-line"]'), /HOPPER_A/);
    assert.match(await page.textContent('[data-testid="command"]'), /tld4 explain --scenario/);
    // The texture drawn is the scenario's 2x2 one.
    assert.equal(await page.locator('[data-testid="grid"] rect[data-value]').count(), 4);
    // The copied scenario is the document, architecture included.
    const copied = JSON.parse(await page.inputValue('[data-testid="scenario"]'));
    assert.equal(copied.arch, 'sm_90');
    // A control changed: back to a question (on SM90), the note gone.
    await answered(page, () => page.selectOption('#component', 'R'));
    assert.equal(await page.isHidden('[data-testid="scenario-note"]'), true);
    assert.equal(await page.isVisible('#link'), true);
    assert.equal(new URL(page.url()).searchParams.get('arch'), 'SM90');
    assert.equal(await page.isHidden('[data-testid="error"]'), true, await page.textContent('[data-testid="error"]'));
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad pasted scenario\'s error is in the first screen, on a desktop and a phone', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    await load(page, 'texture=4x4');
    await page.click('[data-testid="load"] summary');
    for (const [text, why] of [
      ['{"arch": "sm_90", "instruction": "TLD4.R R10, R8, R20, R24, UR4, 2D"', /the scenario/],
      ['{"arch": "sm_42", "instruction": "TLD4.R R10, R8, R20, R24, UR4, 2D"}', /unknown architecture/],
      ['{"arch": "sm_90", "instruction": "TLD4.R R10, R8, R20, R24, UR4, 0x0, 2D", "textures": [{"dim": "2d", "format": "rgba8_unorm", "width": 2, "height": 2, "texels": [1]}]}', /samplers: missing/],
    ]) {
      await page.fill('[data-testid="paste"]', text);
      await answered(page, () => page.click('[data-testid="explain-pasted"]'));
      const e = page.locator('[data-testid="error"]');
      assert.equal(await e.isVisible(), true, text);
      assert.match(await e.textContent(), why);
      const box = await e.boundingBox();
      const scroll = await page.evaluate(() => window.scrollY);
      assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `${viewport.width}: error at ${JSON.stringify(box)}, scrolled ${scroll}`);
    }
    await page.close();
  }
});
