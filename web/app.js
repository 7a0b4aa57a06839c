/* tlbsim's page: four views over the tlbsim command line compiled to
 * WebAssembly (tlbsim.js). Every number shown is what a tlbsim command
 * printed here, in the page: `explain --format json`, `run --log --format
 * json`, `quiz --format json`, `alloc --map-every N --map-json`. This file
 * only asks, parses and draws; it computes nothing the simulator computes.
 * The page's state lives in the URL fragment (#view=translate&preset=
 * x86-64&va=0x7ffd12345678), so a link shows what its sender saw. */
'use strict';

/* --- the simulator ---------------------------------------------------------- */

const sim = {module: null, out: [], err: []};

/* Runs `tlbsim ARGS...` in the page: its exit status and what it printed. */
function tlbsim(args) {
  sim.out = [];
  sim.err = [];
  let rc;
  try {
    rc = sim.module.callMain(args);
  } catch (e) {
    rc = 70;
    sim.err.push(`tlbsim: ${e}`);
  }
  sim.module._fflush(0);
  return {rc, out: sim.out.join('\n'), err: sim.err.join('\n')};
}

/* The command as a shell would take it. */
function shellLine(args) {
  return 'tlbsim ' + args.map(a => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/* A file in the simulator's (in-memory) working directory. */
function putFile(name, data) { sim.module.FS.writeFile(name, data); }
function getFile(name) {
  sim.module.FS.chmod(name, 0o644); // what the command wrote has the mode its umask left, none in emscripten's FS
  return sim.module.FS.readFile(name, {encoding: 'utf8'});
}
function dropFile(name) { try { sim.module.FS.unlink(name); } catch (e) { /* absent */ } }

/* A size or number as tlbsim reads them (4096, 0x1000, 4K, 16KiB), through
 * the library's own parser: a BigInt, or null. */
function parseSize(text) {
  const m = sim.module, out = m._malloc(8), err = m._malloc(512);
  try {
    if (m.ccall('tlbsim_size', 'number', ['string', 'number', 'number'], [text, out, err]) !== 0) return null;
    return (BigInt(m.HEAPU32[(out >> 2) + 1]) << 32n) | BigInt(m.HEAPU32[out >> 2]);
  } finally {
    m._free(out);
    m._free(err);
  }
}

/* JSON with integers beyond 2^53 kept exact (as BigInt). */
function parseJSON(text) {
  return JSON.parse(text, (key, value, ctx) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && ctx && /^\d+$/.test(ctx.source) ? BigInt(ctx.source) : value);
}

const hex = v => (v === null || v === undefined ? '—' : '0x' + BigInt(v).toString(16));
const dec = v => (v === null || v === undefined ? '—' : BigInt(v).toLocaleString('en-US'));
const log2 = v => BigInt(v).toString(2).length - 1;

function sizeText(v) {
  let b = Number(v);
  for (const u of ['B', 'KiB', 'MiB', 'GiB', 'TiB']) {
    if (b < 1024 || u === 'TiB') return `${Number.isInteger(b) ? b : b.toFixed(1)}${u}`;
    b /= 1024;
  }
  return `${v}B`;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

const $ = id => document.getElementById(id);

function showError(id, text) {
  const box = $(id);
  box.textContent = text || '';
  box.hidden = !text;
}

/* --- machines and the URL fragment ----------------------------------------------- */

/* What the machine menu offers: a preset, with a page-table format of
 * another machine where the preset's TLBs take it. */
const MACHINES = [
  {preset: 'teaching', label: 'teaching16 — a whiteboard machine (16-bit VA, 256 B pages)'},
  {preset: 'x86-64', label: 'x86-64, 4-level paging (Skylake core)'},
  {preset: 'x86-64', format: 'x86-64-5', label: 'x86-64, 5-level paging (LA57)'},
  {preset: 'h200', label: 'NVIDIA Hopper (one H200 SM, 2 MiB pages)'},
  {preset: 'riscv', format: 'arm64-4k', label: 'ARM64, 4 KiB granule (on the riscv preset’s TLBs)'},
  {preset: 'riscv', label: 'RISC-V Sv39 (SiFive U54)'},
  {preset: 'riscv', format: 'sv48', label: 'RISC-V Sv48 (on the U54’s TLBs)'},
  {preset: 'csapp', label: 'CS:APP’s small memory system (14-bit VA)'},
  {preset: 'ostep', label: 'OSTEP’s paging homework machine'},
];

const machineKey = m => m.preset + (m.format ? ':' + m.format : '');

function fillMachines() {
  for (const sel of document.querySelectorAll('select.machine'))
    for (const m of MACHINES) sel.append(el('option', {value: machineKey(m), text: m.label}));
}

function machineOf(sel) { return MACHINES.find(m => machineKey(m) === sel.value) || MACHINES[1]; }

function setMachine(sel, preset, format) {
  const m = MACHINES.find(x => x.preset === preset && (x.format || '') === (format || ''));
  if (m) sel.value = machineKey(m);
}

/* The loader's options for a machine. */
const machineArgs = m => ['--preset', m.preset].concat(m.format ? ['--set', `machine.format=${m.format}`] : []);

let state = new URLSearchParams();

function readFragment() { state = new URLSearchParams(location.hash.replace(/^#/, '')); }

function writeFragment(view, params) {
  const p = new URLSearchParams({view});
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  state = p;
  history.replaceState(null, '', '#' + p.toString());
}

function machineParams(m) { return {preset: m.preset, format: m.format}; }

/* --- 1. translate ------------------------------------------------------------------ */

const LEVEL_COLOURS = ['#ffd8a8', '#d0ebff', '#d3f9d8', '#eebefa', '#fff3bf', '#c5f6fa', '#ffdeeb'];

function translate(push = true) {
  const m = machineOf($('translate-machine')), va = $('translate-va').value.trim(), page = $('translate-page').value.trim();
  const args = ['explain', '--format', 'json', ...machineArgs(m)].concat(page ? ['--page-size', page] : [], [va]);
  $('translate-cli').textContent = shellLine(args);
  if (push) writeFragment('translate', {...machineParams(m), va, page});
  const r = tlbsim(args), box = $('translate-result');
  box.replaceChildren();
  box.removeAttribute('data-ready');
  showError('translate-error', r.rc ? r.err : '');
  if (!r.rc) drawWalk(box, parseJSON(r.out));
  box.setAttribute('data-ready', r.rc ? 'error' : 'ok');
}

function drawWalk(box, doc) {
  const a = doc.addresses[0], shift = log2(a.page_size);
  box.append(el('div', {class: 'result'}, 'VA ', el('b', {text: hex(a.va)}), ` on format ${doc.format}, `,
    `${sizeText(a.page_size)} page: `,
    a.mapped ? el('span', {}, 'PA ', el('b', {id: 'translate-pa', text: hex(a.pa)})) : el('b', {text: 'not mapped (an access faults)'})));
  const bits = el('div', {class: 'bits'});
  a.entries.forEach((e, i) => {
    bits.append(el('div', {class: 'field', style: `background:${LEVEL_COLOURS[i % LEVEL_COLOURS.length]}`},
      el('div', {class: 'name', text: e.level}), el('div', {class: 'range', text: `VA[${e.va_bits[0]}:${e.va_bits[1]}]`}),
      el('div', {class: 'value', text: (BigInt(a.va) >> BigInt(e.va_bits[1]) & ((1n << BigInt(e.va_bits[0] - e.va_bits[1] + 1)) - 1n))
        .toString(2).padStart(e.va_bits[0] - e.va_bits[1] + 1, '0')}),
      el('div', {class: 'dec index', text: String(e.index)})));
  });
  const offset = BigInt(a.va) & ((1n << BigInt(shift)) - 1n);
  bits.append(el('div', {class: 'field', style: 'background:#e9ecef'}, el('div', {class: 'name', text: 'offset'}),
    el('div', {class: 'range', text: `VA[${shift - 1}:0]`}), el('div', {class: 'value', text: offset.toString(2).padStart(shift, '0')}),
    el('div', {class: 'dec', id: 'translate-offset', text: hex(offset)})));
  box.append(bits);

  const t = el('table', {id: 'translate-walk'}, el('tr', {}, ...['level', 'VA bits', 'index', 'table at', 'entry at', 'entry',
    'meaning'].map(h => el('th', {text: h}))));
  for (const e of a.entries) {
    const meaning = !e.valid ? 'not valid: the walk stops, the access faults'
      : e.leaf ? `leaf: ${e.prot} ${sizeText(e.page_size)} page, frame ${hex(e.frame)} at ${hex(e.frame_address)}`
      : `next table at ${hex(e.next_table)}`;
    t.append(el('tr', {}, el('td', {text: e.level}), el('td', {class: 'num', text: `${e.va_bits[0]}:${e.va_bits[1]}`}),
      el('td', {class: 'num', text: String(e.index)}), el('td', {class: 'num', text: hex(e.table)}),
      el('td', {class: 'num', text: hex(e.entry_address)}), el('td', {class: 'num', text: e.raw}), el('td', {text: meaning})));
  }
  box.append(t);
  box.append(el('h3', {text: 'The TLB sets this page would use'}));
  const tlbs = el('div', {class: 'tlbs'});
  if (!a.tlb.length) tlbs.append(el('p', {text: 'No TLB level holds pages of this size: every access walks.'}));
  for (const x of a.tlb) tlbs.append(drawTlb(x.level, x.sets, x.ways, x.set, null,
    `set ${x.set} of ${x.sets}, ${x.ways}-way` + (x.tag !== undefined ? `, tag ${hex(x.tag)}` : '')));
  box.append(tlbs);
}

/* One TLB array, sets x ways, its set `set` marked (hit: true/false/null). */
function drawTlb(name, sets, ways, set, hit, caption) {
  const div = el('div', {class: 'tlb'}, el('b', {text: name}), ' ', el('span', {class: 'caption', text: caption}));
  const shown = Math.min(Number(sets), 32), first = Math.max(0, Math.min(Number(set) - shown / 2, Number(sets) - shown));
  const grid = el('div', {class: 'grid', style: `grid-template-columns: repeat(${Math.min(Number(ways), 64)}, 9px)`});
  for (let s = first; s < first + shown; s++)
    for (let w = 0; w < Math.min(Number(ways), 64); w++)
      grid.append(el('div', {class: 'cell' + (s === Number(set) ? ' set' + (hit === true ? ' hit' : hit === false ? ' miss' : '') : ''),
        title: `set ${s}`}));
  div.append(grid);
  if (shown < Number(sets)) div.append(el('div', {class: 'more', text: `sets ${first}–${first + shown - 1} of ${sets} shown`}));
  return div;
}

/* --- 2. step through a trace ------------------------------------------------------------ */

const SAMPLE_TRACE = `# a loop over 3 pages, then a jump: predict each TLB hit and miss
r 0x1000 4
r 0x1040 4
r 0x1100 4
r 0x1140 4
r 0x1200 4
w 0x1008 8
r 0x9000 4
r 0x1000 4
x 0x4000 4
`;

const step = {records: [], lines: [], at: 0, machine: null, sets: [], file: null, geometry: new Map()};

function runTrace(push = true) {
  const m = machineOf($('step-machine')), fmt = $('step-format').value, text = $('step-trace').value;
  const sets = $('step-sets').value.split(/\s+/).filter(Boolean), name = step.file && !text ? step.file : 'pasted.trace';
  if (name === 'pasted.trace') putFile(name, text);
  const args = ['run', '--log', '--format', 'json', ...machineArgs(m), ...sets.flatMap(x => ['--set', x]), '--trace-format', fmt, name];
  $('step-cli').textContent = shellLine(args);
  if (push) writeFragment('step', {...machineParams(m), set: sets.join(' '), tf: fmt !== 'auto' ? fmt : '', trace: text.length < 1500 ? text : ''});
  if (name !== 'pasted.trace') $('step-cli').textContent = shellLine(args);
  const r = tlbsim(args);
  const logs = [], report = [];
  for (const line of r.out.split('\n')) (line.startsWith('{"line"') ? logs : report).push(line);
  step.records = logs.map(parseJSON);
  step.lines = text.split('\n');
  step.machine = m;
  step.sets = sets;
  step.geometry = new Map();
  showError('step-error', r.rc ? r.err : '');
  $('step-report').replaceChildren();
  if (!r.rc && report.join('').trim()) drawReport(parseJSON(report.join('\n')));
  const strip = $('step-strip');
  strip.replaceChildren();
  step.records.forEach((rec, i) => strip.append(el('span', {class: stripClass(rec), title: `line ${rec.line}: ${rec.record}`,
    onclick: () => showStep(i)})));
  if (step.records.length) strip.append(el('span', {class: 'legend', text: 'first level: hit · miss · miss and a walk · other record'}));
  $('step-nav').hidden = !step.records.length;
  $('step-slider').max = Math.max(0, step.records.length - 1);
  showStep(0);
  $('step-record').setAttribute('data-ready', r.rc ? 'error' : 'ok');
}

/* A loaded trace: plain text into the box; a compressed one (gzip, zstd,
 * xz: its first bytes) replayed as it is, by its name, as the command
 * would read it. */
async function loadTrace(f) {
  const bytes = new Uint8Array(await f.arrayBuffer());
  const compressed = (bytes[0] === 0x1f && bytes[1] === 0x8b) || (bytes[0] === 0x28 && bytes[1] === 0xb5) || (bytes[0] === 0xfd && bytes[1] === 0x37);
  if (step.file) dropFile(step.file);
  step.file = null;
  if (!compressed) {
    $('step-trace').value = new TextDecoder().decode(bytes);
    return;
  }
  step.file = f.name.replace(/[^\w.+-]/g, '_') || 'trace.gz';
  putFile(step.file, bytes);
  $('step-trace').value = '';
  $('step-trace').placeholder = `${f.name}: compressed; Run replays it as loaded (type here to replay text instead)`;
}

function stripClass(rec) {
  if (rec.record !== 'access' || !rec.levels) return 'other';
  if (!rec.levels.length) return 'other';
  if (rec.levels[0].hit) return 'hit';
  return rec.walk ? 'walk' : 'miss';
}

/* Sets and ways of each TLB level holding this page size: `explain`'s (the
 * configuration's; the address does not matter to them). */
function geometry(rec) {
  const key = rec.page_size;
  if (!step.geometry.has(key)) {
    const r = tlbsim(['explain', '--format', 'json', ...machineArgs(step.machine), ...step.sets.flatMap(x => ['--set', x]),
      '--page-size', String(rec.page_size), String(rec.va)]);
    const map = new Map();
    if (!r.rc) for (const x of parseJSON(r.out).addresses[0].tlb) map.set(x.level, x);
    step.geometry.set(key, map);
  }
  return step.geometry.get(key);
}

function showStep(i) {
  const box = $('step-record');
  box.replaceChildren();
  if (!step.records.length) return;
  step.at = i = Math.max(0, Math.min(i, step.records.length - 1));
  $('step-slider').value = i;
  $('step-pos').textContent = `record ${i + 1} of ${step.records.length}`;
  [...$('step-strip').children].forEach((s, k) => s.classList.toggle('now', k === i));
  const rec = step.records[i], div = el('div', {class: 'record', id: 'step-current', 'data-index': String(i)});
  div.append(el('div', {}, `line ${rec.line}: `, el('span', {class: 'src', text: step.lines[rec.line - 1] || ''}), ` — ${rec.record}`));
  if (rec.record === 'access' && rec.levels) {
    div.append(el('div', {class: 'result'}, `${rec.kind} ${rec.size} B at VA `, el('b', {text: hex(rec.va)}), ' → PA ',
      el('b', {class: 'pa', text: hex(rec.pa)}), `, vpn ${hex(rec.vpn)}, frame ${hex(rec.pfn)}, ${sizeText(rec.page_size)} page, `,
      `${rec.cycles} cycles`));
    const tlbs = el('div', {class: 'tlbs'}), g = geometry(rec);
    for (const lv of rec.levels) {
      const geo = g.get(lv.name);
      const caption = [lv.hit ? 'hit' : 'miss', `set ${lv.set}`].concat(geo ? [`of ${geo.sets}, ${geo.ways}-way`] : [],
        lv.victim !== null && lv.victim !== undefined ? [`fill evicts vpn ${hex(lv.victim)}`] : !lv.hit ? ['fills a free way'] : []);
      const t = geo ? drawTlb(lv.name, geo.sets, geo.ways, lv.set, lv.hit, caption.join(', '))
        : el('div', {class: 'tlb'}, el('b', {text: lv.name}), ' ' + caption.join(', '));
      t.classList.add('level');
      t.setAttribute('data-level', lv.name);
      t.setAttribute('data-hit', String(lv.hit));
      t.setAttribute('data-set', String(lv.set));
      tlbs.append(t);
    }
    div.append(tlbs);
    if (rec.walk) div.append(el('p', {class: 'walk', text: `page walk: ${rec.walk.refs} entries read, ${rec.walk.line_hits} from the ` +
      `line cache` + (rec.walk.pwc_hit ? `, walk cache hit at ${rec.walk.pwc_hit}` : '') +
      (rec.walk.page_fault ? `; a page fault mapped the page (${rec.walk.tables_created} tables created)` : '')}));
    if (rec.fault) div.append(el('p', {class: 'error', text: `fault: ${rec.fault}`}));
  } else {
    div.append(el('pre', {text: JSON.stringify(rec, (k, v) => (typeof v === 'bigint' ? hex(v) : v), 1)}));
  }
  box.append(div);
}

function drawReport(doc) {
  const t = el('table', {id: 'step-totals'}, el('tr', {}, ...['TLB level', 'accesses', 'hits', 'misses'].map(h => el('th', {text: h}))));
  for (const [name, lv] of Object.entries(doc.tlb || {}))
    t.append(el('tr', {}, el('td', {text: name}), ...['accesses', 'hits', 'misses'].map(k => el('td', {class: 'num', text: dec(lv[k])}))));
  $('step-report').append(el('h3', {text: `The whole trace: ${dec(doc.accesses)} accesses, ${dec(doc.walks)} walks, ` +
    `${dec(doc.page_faults)} page faults, ${Number(doc.cycles_per_access).toFixed(2)} cycles per access`}), t);
}

/* --- 3. quiz -------------------------------------------------------------------------------- */

const QUIZ_KINDS = ['translate', 'tlb', 'pt-size', 'alloc', 'pool'];
const quiz = {doc: null, keyShown: false};

function quizArgs(answers) {
  const kinds = QUIZ_KINDS.filter(k => $(`quiz-kind-${k}`).checked);
  return ['quiz', '--seed', $('quiz-seed').value.trim(), '--format', 'json']
    .concat(kinds.length && kinds.length < QUIZ_KINDS.length ? ['--kind', kinds.join(',')] : [], answers ? ['--answers'] : []);
}

function newQuiz(push = true) {
  const args = quizArgs(true);
  $('quiz-cli').textContent = shellLine(quizArgs(false));
  if (push) writeFragment('quiz', {seed: $('quiz-seed').value.trim(), kinds: QUIZ_KINDS.filter(k => $(`quiz-kind-${k}`).checked).join(',')});
  const r = tlbsim(args), box = $('quiz-result');
  box.replaceChildren();
  showError('quiz-error', r.rc ? r.err : '');
  quiz.doc = r.rc ? null : parseJSON(r.out);
  quiz.keyShown = false;
  if (quiz.doc) quiz.doc.exercises.forEach(drawExercise);
  box.setAttribute('data-ready', r.rc ? 'error' : 'ok');
}

function drawExercise(x) {
  const div = el('div', {class: 'exercise', 'data-number': String(x.number)},
    el('h2', {text: `${x.number}. ${x.title}`}), el('pre', {text: x.prompt}));
  if (x.page_table) div.append(el('details', {}, el('summary', {text: 'the page table (tlbsim dump): decode it'}), el('pre', {text: x.page_table})));
  div.append(el('details', {}, el('summary', {text: 'the trace'}), el('pre', {text: x.trace})),
    el('p', {class: 'cli'}, 'replay it: ', el('code', {text: x.command})));
  x.questions.forEach((q, i) => {
    const row = el('div', {class: 'question', 'data-q': String(i)}, el('span', {class: 'mono', text: q.ask + '  '}));
    for (const field of Object.keys(q.answer))
      row.append(el('label', {}, field.replace(/_/g, ' ') + ' ', el('input', {size: '14', 'data-field': field, spellcheck: 'false'})));
    row.append(el('button', {type: 'button', text: 'check', onclick: () => checkAnswer(row, q)}), el('span', {class: 'mark'}),
      el('span', {class: 'key', hidden: '', text: q.key}));
    div.append(row);
  });
  $('quiz-result').append(div);
}

/* Whether the typed text says what the key's value v says. */
function sameAnswer(typed, v) {
  const t = typed.trim().toLowerCase();
  if (v === null) return ['', 'none', 'null', '-', 'no'].includes(t);
  if (typeof v === 'boolean') return (v ? ['hit', 'yes', 'true', 'y'] : ['miss', 'no', 'false', 'n']).includes(t);
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = parseSize(t.replace(/^line\s+/, ''));
    return n !== null && n === BigInt(v);
  }
  return t === String(v).toLowerCase();
}

function checkAnswer(row, q) {
  const ok = Object.entries(q.answer).every(([field, v]) => sameAnswer(row.querySelector(`[data-field="${field}"]`).value, v));
  const mark = row.querySelector('.mark');
  mark.textContent = ok ? '✓ right' : '✗ not that';
  mark.className = 'mark ' + (ok ? 'right' : 'wrong');
}

function toggleKey() {
  quiz.keyShown = !quiz.keyShown;
  for (const k of document.querySelectorAll('#quiz-result .key')) k.hidden = !quiz.keyShown;
  $('quiz-key').textContent = quiz.keyShown ? 'Hide the key' : 'Show the key';
}

/* --- 4. allocator map -------------------------------------------------------------------------- */

const POLICIES = ['cuda', 'caching', 'expandable', 'first-fit', 'next-fit', 'best-fit', 'buddy'];
const DEFAULT_POLICIES = ['cuda', 'caching', 'expandable'];
const alloc = {frames: new Map(), axes: new Map(), policies: [], count: 0, file: null};

async function replayAlloc(push = true) {
  const synthetic = $('alloc-synthetic').checked, file = $('alloc-file').files[0];
  if (!synthetic && !file) return showError('alloc-error', 'choose a snapshot or trace file, or the synthetic workload');
  const policies = POLICIES.filter(p => $(`alloc-policy-${p}`).checked), frames = Math.max(1, parseInt($('alloc-frames').value, 10) || 120);
  const capacity = $('alloc-capacity').value.trim();
  $('status').textContent = 'replaying…';
  await new Promise(r => setTimeout(r, 0)); // let the status paint
  let input = '--synthetic';
  if (!synthetic) {
    input = file.name.replace(/[^\w.+-]/g, '_') || 'trace';
    if (alloc.file !== input) {
      if (alloc.file) dropFile(alloc.file);
      putFile(input, new Uint8Array(await file.arrayBuffer()));
      alloc.file = input;
    }
  }
  const base = policies.flatMap(p => ['--policy', p]).concat(capacity ? ['--capacity', capacity] : []);
  if (push) writeFragment('alloc', {policies: policies.join(','), frames, capacity, synthetic: synthetic ? '1' : ''});
  // First the summary: it tells how many requests there are, so the maps come every Nth event.
  const s = tlbsim(['alloc', '--format', 'json', ...base, input]);
  ['alloc-summary', 'alloc-maps', 'alloc-frame'].forEach(id => $(id).replaceChildren());
  $('alloc-nav').hidden = true;
  showError('alloc-error', s.rc ? s.err : '');
  if (s.rc) return done('error');
  const summary = [].concat(parseJSON(s.out));
  const events = Number(summary[0].allocs) + Number(summary[0].frees) + Number(summary[0].ooms);
  const every = Math.max(1, Math.ceil(events / frames));
  dropFile('maps.jsonl');
  const args = ['alloc', '--format', 'json', ...base, '--map-every', String(every), '--map-json', 'maps.jsonl', input];
  $('alloc-cli').textContent = shellLine(args.map(a => (a === input && !synthetic ? file.name : a)));
  const r = tlbsim(args);
  showError('alloc-error', r.rc ? r.err : '');
  if (r.rc) return done('error');
  drawAllocSummary(summary);
  alloc.frames = new Map(policies.map(p => [p, []]));
  for (const line of getFile('maps.jsonl').split('\n')) if (line) { const f = parseJSON(line); alloc.frames.get(f.policy).push(f); }
  dropFile('maps.jsonl');
  alloc.policies = policies;
  alloc.count = Math.max(...[...alloc.frames.values()].map(f => f.length));
  alloc.every = every;
  for (const p of policies) drawPolicyMap(p, alloc.frames.get(p));
  $('alloc-nav').hidden = !alloc.count;
  $('alloc-slider').max = Math.max(0, alloc.count - 1);
  $('alloc-slider').value = Math.max(0, alloc.count - 1);
  showAllocFrame(alloc.count - 1);
  return done('ok');
  function done(how) {
    $('status').textContent = 'ready';
    $('alloc-maps').setAttribute('data-ready', how);
  }
}

function drawAllocSummary(summary) {
  const keys = [['peak_reserved_bytes', 'peak reserved'], ['peak_allocated_bytes', 'peak allocated'], ['driver_allocs', 'driver allocs'],
    ['driver_frees', 'driver frees'], ['tlb_shootdowns', 'TLB shootdowns'], ['pte_writes', 'PTE writes'], ['ooms', 'OOMs'],
    ['external_fragmentation_max', 'external fragmentation, max'], ['live_regions_2m_end', '2 MiB regions at the end'],
    ['live_regions_32m_end', '32 MiB regions at the end']];
  const t = el('table', {id: 'alloc-summary-table'}, el('tr', {}, el('th', {text: 'policy'}), ...keys.map(([, h]) => el('th', {text: h}))));
  for (const s of summary)
    t.append(el('tr', {'data-policy': s.policy}, el('td', {text: s.policy}), ...keys.map(([k]) => el('td', {class: 'num', 'data-key': k,
      text: typeof s[k] === 'number' && !Number.isInteger(s[k]) ? s[k].toFixed(4) : k.endsWith('bytes') ? sizeText(s[k]) : dec(s[k])}))));
  $('alloc-summary').append(el('p', {text: `${summary[0].trace === '-' ? 'the input' : summary[0].trace}: capacity ${sizeText(summary[0].capacity_bytes)}`}), t);
}

function idColour(id) {
  const h = (Number(BigInt(id) % 9973n) * 137.508) % 360;
  return `hsl(${h}, 62%, 58%)`;
}

/* Where a policy's live blocks ever were, as an axis: the 2 MiB-aligned
 * stretches holding any, end to end, with a small break for each empty
 * stretch between (a GPU policy may put blocks terabytes apart). pos(va)
 * is 0..1 along it. */
function blockAxis(frames) {
  const R = 2 ** 21, iv = [];
  for (const f of frames)
    for (const [off, size] of f.used) iv.push([Math.floor((f.window_base + off) / R) * R, Math.ceil((f.window_base + off + size) / R) * R]);
  if (!iv.length) for (const f of frames) iv.push([f.window_base, f.window_base + f.window_size]);
  iv.sort((x, y) => x[0] - y[0]);
  const parts = [];
  for (const [lo, hi] of iv) {
    const last = parts[parts.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else parts.push([lo, hi]);
  }
  const bytes = parts.reduce((n, [lo, hi]) => n + hi - lo, 0), gap = parts.length > 1 ? Math.min(0.02, 0.2 / (parts.length - 1)) : 0;
  const scale = (1 - gap * (parts.length - 1)) / Math.max(1, bytes), starts = [];
  let at = 0;
  for (const [lo, hi] of parts) { starts.push(at); at += (hi - lo) * scale + gap; }
  const pos = va => {
    let k = parts.length - 1;
    while (k > 0 && parts[k][0] > va) k--;
    const [lo, hi] = parts[k];
    return va < lo ? starts[k] : starts[k] + (Math.min(va, hi) - lo) * scale;
  };
  return {parts, starts, scale, gap, pos, bytes};
}

/* A policy's frames as columns: its address space bottom to top on the
 * axis of its live blocks, used blocks in their allocation's colour, the
 * rest of the window grey. */
function drawPolicyMap(policy, frames) {
  const width = 1100, height = 220, col = width / Math.max(1, frames.length), axis = blockAxis(frames);
  alloc.axes.set(policy, axis);
  const canvas = el('canvas', {width: String(width), height: String(height), 'data-policy': policy});
  const g = canvas.getContext('2d'), y = va => height * (1 - axis.pos(va));
  frames.forEach((f, i) => {
    const x = i * col;
    g.fillStyle = '#e9ecef';
    g.fillRect(x, y(f.window_base + f.window_size), Math.ceil(col), y(f.window_base) - y(f.window_base + f.window_size));
    for (const [off, size, id] of f.used) {
      const top = y(f.window_base + off + size), h = Math.max(1, y(f.window_base + off) - top);
      g.fillStyle = idColour(id);
      g.fillRect(x, top, Math.ceil(col), h);
    }
  });
  drawBreaks(g, axis, t => height * (1 - t), (g2, p, len) => g2.fillRect(0, p - len, width, len));
  const [lo, hi] = [axis.parts[0][0], axis.parts[axis.parts.length - 1][1]];
  const div = el('div', {class: 'policy-map'}, el('h3', {text: `${policy}: its address space over time`}), canvas,
    el('div', {class: 'legend', text: `${frames.length} maps left to right, one every ${alloc.every} events. Bottom to top the ` +
      `addresses ${hex(lo)}–${hex(hi)} where live blocks ever were (${sizeText(axis.bytes)} in ${axis.parts.length} ` +
      `stretch${axis.parts.length > 1 ? 'es; the white breaks stand for the empty VA between' : ''}). A colour per allocation; grey: ` +
      `free in the policy’s window. Click a column for its map.`}));
  canvas.addEventListener('click', e => { const i = Math.floor(e.offsetX / col); $('alloc-slider').value = i; showAllocFrame(i); });
  $('alloc-maps').append(div);
}

/* The white breaks between an axis's stretches. */
function drawBreaks(g, axis, at, band) {
  g.fillStyle = '#fff';
  axis.parts.forEach((p, k) => {
    if (!k) return;
    const from = at(axis.starts[k] - axis.gap), to = at(axis.starts[k]);
    band(g, Math.max(from, to), Math.abs(to - from));
  });
}

/* One frame of every policy: its counts, and its window as a bar with the
 * 2 MiB and 32 MiB regions a TLB would see. */
function showAllocFrame(i) {
  const box = $('alloc-frame');
  box.replaceChildren();
  if (!alloc.count) return;
  const first = alloc.frames.get(alloc.policies[0])[i];
  $('alloc-pos').textContent = `map ${i + 1} of ${alloc.count}` + (first ? `, after event ${first.event} (${(first.time_us / 1e6).toFixed(3)} s)` : '');
  const keys = [['allocated_bytes', 'allocated'], ['reserved_bytes', 'reserved'], ['free_bytes', 'free'], ['largest_free_extent', 'largest free'],
    ['external_fragmentation', 'ext. fragmentation'], ['live_buffers', 'live buffers'], ['regions_2m', '2 MiB regions'],
    ['regions_32m', '32 MiB regions'], ['va_span_bytes', 'VA span']];
  const t = el('table', {id: 'alloc-frame-table'}, el('tr', {}, el('th', {text: 'policy'}), ...keys.map(([, h]) => el('th', {text: h}))));
  for (const p of alloc.policies) {
    const f = alloc.frames.get(p)[i];
    if (!f) continue;
    t.append(el('tr', {'data-policy': p}, el('td', {text: p}), ...keys.map(([k]) => el('td', {class: 'num', 'data-key': k,
      text: k === 'external_fragmentation' ? f[k].toFixed(4) : /bytes|extent/.test(k) ? sizeText(f[k]) : dec(f[k])}))));
  }
  box.append(t);
  for (const p of alloc.policies) {
    const f = alloc.frames.get(p)[i];
    if (f) box.append(frameBar(p, f, alloc.axes.get(p)));
  }
}

/* A policy's map at one frame along its axis, with the 2 MiB and 32 MiB
 * region boundaries where they are far enough apart to see. */
function frameBar(policy, f, axis) {
  const w = 1100, h = 34, canvas = el('canvas', {width: String(w), height: String(h)}), g = canvas.getContext('2d');
  const x = va => axis.pos(va) * w;
  g.fillStyle = '#e9ecef';
  g.fillRect(x(f.window_base), 0, Math.max(1, x(f.window_base + f.window_size) - x(f.window_base)), h);
  for (const [off, size, id] of f.used) {
    g.fillStyle = idColour(id);
    g.fillRect(x(f.window_base + off), 8, Math.max(1, x(f.window_base + off + size) - x(f.window_base + off)), h - 8);
  }
  for (const [region, colour, top] of [[2 ** 21, '#868e96', 4], [2 ** 25, '#212529', 0]]) {
    if (region * axis.scale * w < 3) continue; // closer than 3 pixels: not drawn
    g.fillStyle = colour;
    for (const [lo, hi] of axis.parts)
      for (let a = Math.ceil(lo / region) * region; a <= hi; a += region) g.fillRect(x(a), top, 1, h - top);
  }
  drawBreaks(g, axis, t => t * w, (g2, p, len) => g2.fillRect(p, 0, len, h));
  const fail = f.failed ? ` — FAILED: a request of ${sizeText(f.failed.request)} (${f.failed.reason})` : '';
  return el('div', {class: 'policy-frame'}, el('b', {text: policy}),
    ` window ${hex(f.window_base)} + ${sizeText(f.window_size)}, ${f.used.length} live blocks, ${f.free.length} free extents; ` +
    `live buffers touch ${f.regions_2m} 2 MiB and ${f.regions_32m} 32 MiB regions (marks: 2 MiB grey, 32 MiB black)${fail}`, canvas);
}

/* --- the shell ----------------------------------------------------------------------------------- */

function showView(view) {
  for (const s of document.querySelectorAll('.view')) s.hidden = s.id !== `view-${view}`;
  for (const a of document.querySelectorAll('#tabs a')) a.classList.toggle('on', a.dataset.view === view);
}

/* Shows what the fragment says, running its view. */
function route() {
  readFragment();
  const view = state.get('view') || (state.has('trace') ? 'step' : 'translate');
  showView(view);
  const preset = state.get('preset'), format = state.get('format');
  if (view === 'translate') {
    if (preset) setMachine($('translate-machine'), preset, format);
    if (state.has('va')) $('translate-va').value = state.get('va');
    $('translate-page').value = state.get('page') || '';
    translate(false);
  } else if (view === 'step') {
    if (preset) setMachine($('step-machine'), preset, format);
    else setMachine($('step-machine'), 'teaching');
    $('step-format').value = state.get('tf') || 'auto';
    $('step-sets').value = state.get('set') || '';
    if (state.has('trace')) $('step-trace').value = state.get('trace');
    runTrace(false);
  } else if (view === 'quiz') {
    if (state.has('seed')) $('quiz-seed').value = state.get('seed');
    const kinds = (state.get('kinds') || '').split(',').filter(Boolean);
    for (const k of QUIZ_KINDS) $(`quiz-kind-${k}`).checked = !kinds.length || kinds.includes(k);
    newQuiz(false);
  } else if (view === 'alloc') {
    const policies = (state.get('policies') || '').split(',').filter(Boolean);
    for (const p of POLICIES) $(`alloc-policy-${p}`).checked = policies.length ? policies.includes(p) : DEFAULT_POLICIES.includes(p);
    if (state.has('frames')) $('alloc-frames').value = state.get('frames');
    $('alloc-capacity').value = state.get('capacity') || '';
    if (state.get('synthetic') === '1') {
      $('alloc-synthetic').checked = true;
      replayAlloc(false);
    }
  }
}

async function main() {
  fillMachines();
  setMachine($('step-machine'), 'teaching');
  $('step-trace').value = SAMPLE_TRACE;
  for (const k of QUIZ_KINDS)
    $('quiz-kinds').append(el('label', {}, el('input', {type: 'checkbox', id: `quiz-kind-${k}`, checked: ''}), ' ' + k));
  for (const p of POLICIES)
    $('alloc-policies').append(el('label', {}, el('input', Object.assign({type: 'checkbox', id: `alloc-policy-${p}`},
      DEFAULT_POLICIES.includes(p) ? {checked: ''} : {})), ' ' + p));
  sim.module = await createTlbsim({print: s => sim.out.push(s), printErr: s => sim.err.push(s)});
  sim.module.FS.mkdir('/work');
  sim.module.FS.chdir('/work');
  $('status').textContent = 'ready';
  $('translate-form').addEventListener('submit', e => { e.preventDefault(); translate(); });
  $('step-form').addEventListener('submit', e => { e.preventDefault(); runTrace(); });
  $('step-file').addEventListener('change', async () => {
    const f = $('step-file').files[0];
    if (f) await loadTrace(f);
  });
  $('step-trace').addEventListener('input', () => { step.file = null; });
  $('step-first').addEventListener('click', () => showStep(0));
  $('step-prev').addEventListener('click', () => showStep(step.at - 1));
  $('step-next').addEventListener('click', () => showStep(step.at + 1));
  $('step-last').addEventListener('click', () => showStep(step.records.length - 1));
  $('step-slider').addEventListener('input', () => showStep(Number($('step-slider').value)));
  $('quiz-form').addEventListener('submit', e => { e.preventDefault(); newQuiz(); });
  $('quiz-key').addEventListener('click', toggleKey);
  $('alloc-form').addEventListener('submit', e => { e.preventDefault(); replayAlloc(); });
  $('alloc-slider').addEventListener('input', () => showAllocFrame(Number($('alloc-slider').value)));
  for (const a of document.querySelectorAll('#tabs a'))
    a.addEventListener('click', e => { e.preventDefault(); writeFragment(a.dataset.view, {}); route(); });
  window.addEventListener('hashchange', route);
  route();
  document.body.setAttribute('data-ready', 'yes');
}

main();
