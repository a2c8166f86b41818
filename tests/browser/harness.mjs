// The browser tests' shared harness: `tld4 serve` on a free port, Debian's chromium through
// playwright-core, and `tld4 explain` for the expected values (the page's URL query string uses
// explain's flag names). Each test file calls useServer() once.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const BIN = process.env.TLD4_BIN || join(root, 'target', 'debug', 'tld4');
export const UPDATE = process.env.TLD4_BLESS === '1';

let server;
export let base;
export let context;
let profile;

export function useServer() {
before(async () => {
  server = spawn(BIN, ['serve', '--port', '0', '--threads', '4'], { stdio: ['ignore', 'ignore', 'pipe'] });
  base = await new Promise((resolve, reject) => {
    let err = '';
    server.stderr.on('data', (d) => {
      err += d;
      const m = /http:\/\/[\d.]+:(\d+)\//.exec(err);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    server.on('exit', (c) => reject(new Error(`tld4 serve exited ${c}: ${err}`)));
  });
  profile = mkdtempSync(join(tmpdir(), 'tld4-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1200, height: 1100 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  if (context) await context.close();
  if (server) server.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
});
}

// `tld4 explain INSN --flag value ...` for a query string: the results and the footprint.
export function explain(query) {
  const p = new URLSearchParams(query);
  const args = ['explain', p.get('insn')];
  // (zoom and at are the page's view, not the question)
  for (const [k, v] of p) if (!['insn', 'zoom', 'at'].includes(k)) args.push('--' + k.replace('_', '-'), v);
  const out = execFileSync(BIN, args, { encoding: 'utf8' });
  const m = /results \(x, y, z, w\) = \(([^)]*)\)/.exec(out);
  assert.ok(m, out);
  const values = m[1].split(', ');
  const texels = {};
  for (const line of out.split('\n')) {
    const t = /^ {4}([xyzw]) .*?: (.*)$/.exec(line);
    if (!t) continue;
    const layer = /(?:layer|face \S+) (\d+)? ?texel/.exec(t[2]);
    const xy = /texel \((\d+), (\d+)\)/.exec(t[2]);
    texels[t[1]] = xy ? { i: xy[1], j: xy[2], layer: layer && layer[1] ? layer[1] : null }
      : { border: /border colour/.test(t[2]) };
  }
  return { out, values, texels };
}

export async function load(page, query) {
  await page.goto(`${base}/?${query}`);
  await page.waitForSelector('body[data-ready]');
  await page.waitForSelector('[data-testid="texel-x"]');
}

export async function pageState(page) {
  const values = [];
  const texels = {};
  for (const n of 'xyzw') {
    values.push(await page.textContent(`[data-testid="value-${n}"]`));
    const t = page.locator(`[data-testid="texel-${n}"]`);
    texels[n] = { i: await t.getAttribute('data-i'), j: await t.getAttribute('data-j'), layer: await t.getAttribute('data-layer') };
  }
  return { values, texels };
}

export function sameAsExplain(got, want, what) {
  assert.deepEqual(got.values, want.values, `${what}: values\n${want.out}`);
  for (const n of 'xyzw') {
    const w = want.texels[n];
    if (w.border) {
      assert.equal(got.texels[n].layer, 'border', `${what}: ${n}`);
    } else {
      assert.equal(got.texels[n].i, w.i, `${what}: ${n}.i\n${want.out}`);
      assert.equal(got.texels[n].j, w.j, `${what}: ${n}.j`);
      if (w.layer !== null) assert.equal(got.texels[n].layer, w.layer, `${what}: ${n}.layer`);
    }
  }
}

