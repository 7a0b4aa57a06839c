// Drives tlbsim's browser page (build-web/index.html, opened from file://)
// in Debian's headless Chromium through puppeteer-core, and checks every
// view's numbers against the native tlbsim command for the same input:
// the walks `explain` prints, `run --log` record by record, the quiz and
// its key, the allocator maps of both real PyTorch snapshots, and the
// one-line errors of bad input. With --shots DIR it also screenshots each
// view (docs/web/*.png come from there).
//   node check.mjs --page DIR --tlbsim PATH --src DIR [--shots DIR]
import {execFileSync} from 'node:child_process';
import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {basename, join, resolve} from 'node:path';

const arg = name => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const page = resolve(arg('--page')), tlbsimPath = resolve(arg('--tlbsim')), src = resolve(arg('--src')), shots = arg('--shots');
const torch = arg('--torch') || join(src, 'traces', 'torch'); // the real snapshots (also in shared/traces/torch)
const require = createRequire(join(page, 'node', 'package.json'));
const puppeteer = require('puppeteer-core');

let passed = 0, failed = 0;
function check(what, ok, detail = '') {
  if (ok) passed++;
  else { failed++; console.log(`FAIL: ${what}${detail ? ': ' + detail : ''}`); }
}
const same = (what, got, want) => check(what, JSON.stringify(got) === JSON.stringify(want), `page ${JSON.stringify(got)}, cli ${JSON.stringify(want)}`);

const work = mkdtempSync(join(tmpdir(), 'tlbsim-web-'));
/* The native command in `work`: status, stdout, stderr (its last line, as the page shows it). */
function cli(args) {
  try {
    return {rc: 0, out: execFileSync(tlbsimPath, args, {cwd: work, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe']}), err: ''};
  } catch (e) {
    return {rc: e.status, out: e.stdout || '', err: (e.stderr || '').trimEnd()};
  }
}
const bigJSON = text => JSON.parse(text, (k, v, ctx) => (typeof v === 'number' && !Number.isSafeInteger(v) && ctx ? BigInt(ctx.source) : v));
const hex = v => (v === null || v === undefined ? '—' : '0x' + BigInt(v).toString(16));

const browser = await puppeteer.launch({executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files']});
const tab = await browser.newPage();
await tab.setViewport({width: 1200, height: 900});
const pageErrors = [];
tab.on('pageerror', e => pageErrors.push(e.message));
const url = fragment => `file://${page}/index.html#${fragment}`;

async function open(fragment, ready) {
  await tab.goto('about:blank');
  await tab.goto(url(fragment));
  await tab.waitForSelector('body[data-ready]', {timeout: 30000});
  if (ready) await tab.waitForSelector(`${ready}[data-ready]`, {timeout: 60000});
}
const text = sel => tab.$eval(sel, e => e.textContent.trim());
const visibleError = id => tab.$eval(`#${id}`, e => (e.hidden ? '' : e.textContent.trim()));
const started = Date.now();

/* --- 1. translate: each machine's walk, level by level ------------------------------------ */
const machines = [
  ['x86-64', '', '0x7ffd12345678'], ['x86-64', 'x86-64-5', '0xff7ffd12345678'], ['teaching', '', '0x1234'],
  ['h200', '', '0x7f1234567890'], ['riscv', 'arm64-4k', '0x7ffd12345678'], ['riscv', '', '0x3f12345678'],
  ['riscv', 'sv48', '0x7ffd12345678'], ['csapp', '', '0x3d4'], ['ostep', '', '0x3a7f'],
];
for (const [preset, format, va] of machines) {
  const what = `translate ${preset}${format ? ' ' + format : ''} ${va}`;
  await open(`preset=${preset}${format ? '&format=' + format : ''}&va=${va}`, '#translate-result');
  const args = ['explain', '--format', 'json', '--preset', preset, ...(format ? ['--set', `machine.format=${format}`] : []), va];
  const want = cli(args);
  same(`${what}: the command shown`, await text('#translate-cli'), 'tlbsim ' + args.join(' '));
  if (want.rc) { same(`${what}: error`, await visibleError('translate-error'), want.err); continue; }
  const a = bigJSON(want.out).addresses[0];
  const rows = await tab.$$eval('#translate-walk tr', trs => trs.slice(1).map(tr => [...tr.children].map(td => td.textContent)));
  same(`${what}: levels`, rows.map(r => r[0]), a.entries.map(e => e.level));
  same(`${what}: VA bits`, rows.map(r => r[1]), a.entries.map(e => `${e.va_bits[0]}:${e.va_bits[1]}`));
  same(`${what}: indices`, rows.map(r => Number(r[2])), a.entries.map(e => e.index));
  same(`${what}: tables`, rows.map(r => r[3]), a.entries.map(e => hex(e.table)));
  same(`${what}: entry addresses`, rows.map(r => r[4]), a.entries.map(e => hex(e.entry_address)));
  same(`${what}: entries`, rows.map(r => r[5]), a.entries.map(e => e.raw));
  if (a.mapped) same(`${what}: PA`, await text('#translate-pa'), hex(a.pa));
  same(`${what}: offset`, await text('#translate-offset'), hex(BigInt(a.va) & (BigInt(a.page_size) - 1n)));
  const tlbs = await tab.$$eval('#translate-result .tlb', ds => ds.map(d => d.textContent));
  same(`${what}: TLB sets`, tlbs.map(t => t.match(/^(\S+) set (\d+) of (\d+), (\d+)-way/).slice(1).join(' ')),
    a.tlb.map(x => `${x.level} ${x.set} ${x.sets} ${x.ways}`));
}
// The link: indices 255, 500, 145, 325 and offset 0x678.
await open('preset=x86-64&va=0x7ffd12345678', '#translate-result');
same('the teaching link: indices', await tab.$$eval('#translate-walk tr td:nth-child(3)', tds => tds.map(t => Number(t.textContent))),
  [255, 500, 145, 325]);
same('the teaching link: offset', await text('#translate-offset'), '0x678');
if (shots) await tab.screenshot({path: join(shots, 'translate.png'), fullPage: true});
// Bad input: the command's own one line.
for (const [preset, va] of [['teaching', '0x12345'], ['x86-64', '0x800000000000'], ['x86-64', 'banana'], ['x86-64', '0x1ffffffffffffffff']]) {
  await open(`preset=${preset}&va=${va}`, '#translate-result');
  const want = cli(['explain', '--format', 'json', '--preset', preset, va]);
  check(`explain ${preset} ${va} fails`, want.rc !== 0);
  same(`translate error ${preset} ${va}`, await visibleError('translate-error'), want.err);
}

/* --- 2. step through a trace: each record as `run --log` logs it ----------------------------- */
const lines = n => p => readFileSync(join(src, p), 'utf8').split('\n').slice(0, n).join('\n') + '\n';
const traces = [
  ['teaching', 'tlb.l1d.entries=2', 'native', 'r 0x1000 4\nr 0x1004 4\nr 0x1100 4\nr 0x1200 4\nr 0x1000 4\nr 0x1100 4\nr 0x1200 4\n'],
  ['teaching', '', 'native', lines(40)('traces/samples/teaching.trace')],
  ['x86-64', '', 'lackey', lines(40)('traces/samples/stride.lackey')],
  ['x86-64', '', 'din', lines(40)('traces/samples/stride.din')],
  ['h200', '', 'native', 'map 0x7f0000000000 4M page=2M\nr 0x7f0000000000 8\nr 0x7f0000200000 8\nw 0x7f0000000040 8\n'],
];
for (const [preset, set, kind, trace] of traces) {
  const what = `step ${preset} ${set} ${kind}`;
  await open(`view=step&preset=${preset}&set=${set}&trace=${encodeURIComponent(trace)}`, '#step-record');
  writeFileSync(join(work, 'pasted.trace'), trace);
  const args = ['run', '--log', '--format', 'json', '--preset', preset, ...(set ? ['--set', set] : []), '--trace-format', 'auto', 'pasted.trace'];
  same(`${what}: the command shown`, await text('#step-cli'), 'tlbsim ' + args.join(' '));
  const want = cli(args);
  check(`${what}: runs`, want.rc === 0, want.err);
  const logs = want.out.split('\n').filter(l => l.startsWith('{"line"')).map(bigJSON);
  same(`${what}: records`, await tab.$eval('#step-strip', s => s.querySelectorAll('span:not(.legend)').length), logs.length);
  for (let i = 0; i < logs.length; i++) {
    if (i) await tab.click('#step-next');
    const rec = logs[i];
    const got = await tab.$eval('#step-current', d => ({index: Number(d.dataset.index), pa: d.querySelector('.pa')?.textContent,
      levels: [...d.querySelectorAll('.level')].map(l => [l.dataset.level, l.dataset.hit, l.dataset.set, l.textContent])}));
    same(`${what} record ${i + 1}: index`, got.index, i);
    if (rec.record !== 'access') continue;
    same(`${what} record ${i + 1}: PA`, got.pa, hex(rec.pa));
    same(`${what} record ${i + 1}: levels`, got.levels.map(l => l.slice(0, 3)),
      rec.levels.map(l => [l.name, String(l.hit), String(l.set)]));
    got.levels.forEach((l, k) => {
      const v = rec.levels[k].victim;
      if (v !== null && v !== undefined) check(`${what} record ${i + 1}: victim`, l[3].includes(`evicts vpn ${hex(v)}`), l[3]);
    });
  }
  const totals = await tab.$$eval('#step-totals tr', trs => trs.slice(1).map(tr => [...tr.children].map(td => td.textContent.replace(/,/g, ''))));
  const report = bigJSON(want.out.split('\n').filter(l => !l.startsWith('{"line"')).join('\n'));
  same(`${what}: totals`, totals, Object.entries(report.tlb).map(([n, l]) => [n, ...['accesses', 'hits', 'misses'].map(k => (l[k] === undefined ? '—' : String(l[k])))]));
  if (shots && set) {
    for (let k = 0; k < 3; k++) await tab.click('#step-prev');
    await tab.screenshot({path: join(shots, 'step.png'), fullPage: true});
  }
}
for (const bad of ['r 0x1000 8\nbogus line\n', 'r 0x10000 8\n', 'r 0x1000 0\n', 'alloc 1 4K\nr @2+8 8\n']) {
  await open(`view=step&preset=teaching&trace=${encodeURIComponent(bad)}`, '#step-record');
  writeFileSync(join(work, 'pasted.trace'), bad);
  const want = cli(['run', '--log', '--format', 'json', '--preset', 'teaching', '--trace-format', 'auto', 'pasted.trace']);
  check(`bad trace ${JSON.stringify(bad)} fails`, want.rc !== 0);
  same(`step error ${JSON.stringify(bad)}`, await visibleError('step-error'), want.err);
}

// Loaded gzip traces go through the browser build's zlib codec: the same records as the native
// ISA-L one, members back to back as one, and the same error for a cut-off stream or junk after it.
const plain = readFileSync(join(src, 'traces/samples/teaching.trace'));
const gz = execFileSync('gzip', ['-c'], {input: plain});
const gzCases = [['one.trace.gz', gz], ['two.trace.gz', Buffer.concat([gz, gz])], ['cut.trace.gz', gz.subarray(0, gz.length - 9)],
  ['junk.trace.gz', Buffer.concat([gz, Buffer.from('junk')])]];
for (const [name, bytes] of gzCases) {
  writeFileSync(join(work, name), bytes);
  await open('view=step&preset=teaching', '#step-record');
  await tab.$eval('#step-record', e => e.removeAttribute('data-ready'));
  await (await tab.$('#step-file')).uploadFile(join(work, name));
  await tab.waitForFunction(() => document.getElementById('step-trace').value === '');
  await tab.click('#step-form button[type=submit]');
  await tab.waitForSelector('#step-record[data-ready]');
  const want = cli(['run', '--log', '--format', 'json', '--preset', 'teaching', '--trace-format', 'auto', name]);
  same(`gzip ${name}: the command shown`, await text('#step-cli'), `tlbsim run --log --format json --preset teaching --trace-format auto ${name}`);
  same(`gzip ${name}: records`, await tab.$eval('#step-strip', s => s.querySelectorAll('span:not(.legend)').length),
    want.out.split('\n').filter(l => l.startsWith('{"line"')).length);
  same(`gzip ${name}: error`, await visibleError('step-error'), want.err);
}
// zstd input: refused by name in the browser build (docs/WEB.md), read natively.
const zst = join(work, 'one.trace.zst');
{
  execFileSync(tlbsimPath, ['convert', '--quiet', '--to', 'native', '--compress', 'zstd', join(src, 'traces/samples/teaching.trace'), zst]);
  await open('view=step&preset=teaching', '#step-record');
  await tab.$eval('#step-record', e => e.removeAttribute('data-ready'));
  await (await tab.$('#step-file')).uploadFile(zst);
  await tab.waitForFunction(() => document.getElementById('step-trace').value === '');
  await tab.click('#step-form button[type=submit]');
  await tab.waitForSelector('#step-record[data-ready]');
  same('zstd: refused by name', await visibleError('step-error'),
    'one.trace.zst: cannot read input: zstd-compressed, and this build reads plain and gzip input only (decompress it first, or use the tlbsim command)');
}

/* --- 3. quiz: the exercises, typed answers checked, the key ------------------------------------ */
for (const seed of ['3', '11']) {
  await open(`view=quiz&seed=${seed}`, '#quiz-result');
  const doc = bigJSON(cli(['quiz', '--seed', seed, '--format', 'json', '--answers']).out);
  same(`quiz ${seed}: titles`, await tab.$$eval('#quiz-result .exercise h2', hs => hs.map(h => h.textContent)),
    doc.exercises.map(x => `${x.number}. ${x.title}`));
  same(`quiz ${seed}: prompts`, await tab.$$eval('#quiz-result .exercise > pre', ps => ps.map(p => p.textContent)), doc.exercises.map(x => x.prompt));
  const typed = v => (v === null ? '' : typeof v === 'boolean' ? (v ? 'hit' : 'miss') : typeof v === 'string' ? v : hex(v));
  for (const x of doc.exercises)
    for (const [i, q] of x.questions.entries()) {
      const row = `#quiz-result .exercise[data-number="${x.number}"] .question[data-q="${i}"]`;
      for (const [field, v] of Object.entries(q.answer)) await tab.type(`${row} [data-field="${field}"]`, typed(v));
      await tab.click(`${row} button`);
      same(`quiz ${seed} ${x.number}.${i + 1} right`, await text(`${row} .mark`), '✓ right');
    }
  // A wrong answer is marked wrong: the first question's first field, changed.
  const x = doc.exercises[0], [field, v] = Object.entries(x.questions[0].answer)[0];
  const row = `#quiz-result .exercise[data-number="${x.number}"] .question[data-q="0"]`;
  await tab.$eval(`${row} [data-field="${field}"]`, e => { e.value = ''; });
  await tab.type(`${row} [data-field="${field}"]`, v === null ? '0x1234' : typeof v === 'boolean' ? (v ? 'miss' : 'hit') : '12345678');
  await tab.click(`${row} button`);
  same(`quiz ${seed}: a wrong answer`, await text(`${row} .mark`), '✗ not that');
  await tab.click('#quiz-key');
  same(`quiz ${seed}: the key`, await tab.$$eval('#quiz-result .key', ks => ks.filter(k => !k.hidden).map(k => k.textContent)),
    doc.exercises.flatMap(e => e.questions.map(q => q.key)));
  if (shots && seed === '3') {
    await tab.setViewport({width: 1200, height: 1200});
    await tab.$eval('#quiz-result .exercise[data-number="2"]', e => e.scrollIntoView());
    await tab.screenshot({path: join(shots, 'quiz.png')});
    await tab.setViewport({width: 1200, height: 900});
  }
}

/* --- 4. allocator map: both real snapshots, each map against alloc --map-json -------------------- */
async function replay(file, frames, policies) {
  await open(`view=alloc&frames=${frames}&policies=${policies.join(',')}`);
  const input = await tab.$('#alloc-file');
  await input.uploadFile(file);
  const t0 = Date.now();
  await tab.click('#alloc-form button[type=submit]');
  await tab.waitForSelector('#alloc-maps[data-ready]', {timeout: 120000});
  return Date.now() - t0;
}
for (const snap of ['mlp_train.json.gz', 'mlp_train_expandable.json.gz']) {
  const file = join(torch, snap), policies = ['cuda', 'caching', 'expandable'];
  const ms = await replay(file, 60, policies);
  console.log(`alloc map of ${snap}: ${ms} ms in the page`);
  copyFileSync(file, join(work, snap));
  const shown = (await text('#alloc-cli')).replace(/^tlbsim /, '').split(' ');
  const want = cli(shown);
  check(`alloc ${snap}: runs`, want.rc === 0, want.err);
  const maps = readFileSync(join(work, 'maps.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l));
  const summary = [].concat(JSON.parse(cli(['alloc', '--format', 'json', ...policies.flatMap(p => ['--policy', p]), snap]).out));
  const cells = await tab.$$eval('#alloc-summary-table tr[data-policy]', trs => trs.map(tr => [tr.dataset.policy,
    ...[...tr.querySelectorAll('td[data-key]')].map(td => [td.dataset.key, td.textContent])]));
  for (const [policy, ...kv] of cells)
    for (const [key, shownValue] of kv) {
      const v = summary.find(s => s.policy === policy)[key];
      check(`alloc ${snap} summary ${policy} ${key}`, key.endsWith('bytes') || !Number.isInteger(v) ? shownValue !== '' :
        shownValue.replace(/,/g, '') === String(v), `${shownValue} vs ${v}`);
    }
  const count = await tab.$eval('#alloc-slider', s => Number(s.max) + 1);
  same(`alloc ${snap}: maps per policy`, count, maps.filter(m => m.policy === 'cuda').length);
  for (const i of [0, Math.floor(count / 2), count - 1]) {
    await tab.$eval('#alloc-slider', (s, v) => { s.value = String(v); s.dispatchEvent(new Event('input')); }, i);
    const rows = await tab.$$eval('#alloc-frame-table tr[data-policy]', trs => trs.map(tr => [tr.dataset.policy,
      Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map(td => [td.dataset.key, td.textContent.replace(/,/g, '')]))]));
    for (const [policy, got] of rows) {
      const m = maps.filter(x => x.policy === policy)[i];
      for (const k of ['live_buffers', 'regions_2m', 'regions_32m']) same(`alloc ${snap} map ${i} ${policy} ${k}`, got[k], String(m[k]));
      same(`alloc ${snap} map ${i} ${policy} fragmentation`, got.external_fragmentation, m.external_fragmentation.toFixed(4));
    }
    const bars = await tab.$$eval('#alloc-frame .policy-frame', ds => ds.map(d => d.textContent));
    policies.forEach((p, k) => {
      const m = maps.filter(x => x.policy === p)[i];
      check(`alloc ${snap} map ${i} ${p} extents`, bars[k].includes(`${m.used.length} live blocks, ${m.free.length} free extents`), bars[k]);
    });
  }
  if (shots && snap === 'mlp_train.json.gz') await tab.screenshot({path: join(shots, 'alloc.png'), fullPage: true});
}
// A malformed snapshot: the command's line.
writeFileSync(join(work, 'broken.json'), '{"device_traces": [[{"action": "alloc", "addr": 4096}]]}\n');
await replay(join(work, 'broken.json'), 10, ['caching']);
const broken = cli(['alloc', '--format', 'json', '--policy', 'caching', 'broken.json']);
check('a malformed snapshot fails', broken.rc !== 0);
same('alloc error', await visibleError('alloc-error'), broken.err);

/* --- the tutorial's links: each opens its view with no error ---------------------------------------- */
for (const doc of ['docs/tutorial.md', 'docs/tutorial.zh.md']) {
  const links = [...readFileSync(join(src, doc), 'utf8').matchAll(/\]\(\.\.\/build-web\/index\.html#([^)]*)\)/g)].map(m => m[1]);
  check(`${doc} links to the views`, links.length >= 7, String(links.length));
  for (const fragment of links) {
    const view = new URLSearchParams(fragment).get('view') || 'translate';
    const ready = {translate: '#translate-result', step: '#step-record', quiz: '#quiz-result', alloc: null}[view];
    await open(fragment, ready);
    same(`${doc} link #${fragment}: its view`, await tab.$eval(`#view-${view}`, e => !e.hidden), true);
    if (ready) same(`${doc} link #${fragment}: no error`, await tab.$eval(ready, e => e.dataset.ready), 'ok');
  }
}

same('no page errors', pageErrors, []);
await browser.close();
rmSync(work, {recursive: true, force: true});
console.log(`web page: ${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s in Chromium)`);
process.exit(failed ? 1 : 0);
