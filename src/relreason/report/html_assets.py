"""The inline stylesheet and script of the HTML report (no network: everything is in the page)."""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{background:#24394f;color:#fff;padding:12px 20px}header h1{margin:0;font-size:20px}
nav{padding:8px 20px;background:#eef2f6;font-size:12px}nav a{margin-right:10px}
main{padding:0 20px 40px}section{border-bottom:1px solid #ddd;padding:10px 0}
h2{font-size:16px;margin:10px 0}.row{display:block}
.tbl{overflow:auto;max-height:640px;max-width:100%}.fig{margin-top:10px;overflow-x:auto}
.fig svg{max-width:100%;height:auto}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #ccc;padding:2px 6px;
text-align:left;vertical-align:top}th{white-space:nowrap}
#p-body td{white-space:normal}th{background:#f4f4f4;position:sticky;top:0}
td.drill{cursor:pointer;color:#0645ad}td.drill:hover{background:#fffbe0}
.reason{color:#8a5a00;background:#fff6e0;padding:6px}.note{color:#555;font-size:12px}
.warn{color:#a00}#panel{position:fixed;right:0;top:0;bottom:0;width:min(900px,95vw);
background:#fff;border-left:2px solid #24394f;box-shadow:-4px 0 12px #0003;overflow:auto;
padding:10px 16px;z-index:9}#panel[hidden]{display:none}#panel .bar{display:flex;gap:8px;
flex-wrap:wrap;align-items:center;margin:6px 0}pre{white-space:pre-wrap;background:#f7f7f7;
padding:6px;max-height:300px;overflow:auto;font-size:12px}tr.detail td{background:#fafafa}
"""

SCRIPT = r"""
(function(){
const DRILLS = JSON.parse(document.getElementById('drills').textContent);
const RUNS = JSON.parse(document.getElementById('runs-index').textContent);
const cache = {};
let TEXTS = [];
let textsLoaded = false;
async function block(elementId){
  const el = document.getElementById(elementId);
  if(!el) return null;
  if(el.dataset.z !== 'gzip') return JSON.parse(el.textContent);
  const bytes = Uint8Array.from(atob(el.textContent.trim()), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}
function text(n){ return n == null ? null : TEXTS[n]; }
async function runData(id){
  if(!(id in cache)){
    cache[id] = (await block('run-' + RUNS[id])) || {cols: [], rows: [], prefix: ''};
  }
  return cache[id];
}
const ENT = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'};
function esc(s){ return String(s).replace(/[&<>"]/g, c => ENT[c]); }
function matches(item, where){
  for(const k in where){
    const want = where[k];
    if(k === '_differs'){
      if((item.answer_sound || '') === (item.answer_official || '')) return false;
      continue;
    }
    const v = item[k];
    if(Array.isArray(v)){ if(!v.map(String).includes(String(want))) return false; }
    else if(String(v) !== String(want)) return false;
  }
  return true;
}
let current = [];
let shown = 0;
async function items(drill){
  const out = [];
  const ids = drill.ids ? new Set(drill.ids) : null;
  for(const id of drill.runs){
    const d = await runData(id);
    for(const r of d.rows){
      const it = {run: id, _prefix: d.prefix, _suffix: d.suffix || ''};
      it.label = null;
      d.cols.forEach((c, i) => it[c] = r[i]);
      if(d.label) it.label = it[d.label];
      if((!ids || ids.has(it.item_id)) && matches(it, drill.where)) out.push(it);
    }
  }
  return out;
}
function fill(select, values, label){
  select.innerHTML = '<option value="">' + label + ': all</option>' +
    values.map(v => '<option>' + esc(v) + '</option>').join('');
}
function labelOf(it){ const v = it.label; return Array.isArray(v) ? v.join(', ') : (v ?? ''); }
async function open(n){
  const drill = DRILLS[n];
  if(!textsLoaded){ TEXTS = (await block('texts')) || []; textsLoaded = true; }
  current = await items(drill);
  const panel = document.getElementById('panel');
  document.getElementById('p-title').textContent = drill.runs.join(', ') +
    (Object.keys(drill.where).length ? ' | ' + JSON.stringify(drill.where) : '');
  const statuses = [...new Set(current.map(i => i.status))].sort();
  const all = current.flatMap(i => Array.isArray(i.label) ? i.label : [i.label]);
  const labels = [...new Set(all.filter(v => v != null).map(String))].sort();
  fill(document.getElementById('f-status'), statuses, 'status');
  fill(document.getElementById('f-label'), labels, 'relation/category');
  document.getElementById('f-correct').value = '';
  render();
  panel.hidden = false;
}
function filtered(){
  const s = document.getElementById('f-status').value;
  const l = document.getElementById('f-label').value;
  const c = document.getElementById('f-correct').value;
  return current.filter(it => (!s || it.status === s) &&
    (!l || (Array.isArray(it.label) ? it.label.map(String).includes(l) : String(it.label) === l)) &&
    (!c || String(it.correct ? 1 : 0) === c));
}
function render(more){
  const rows = filtered();
  shown = more ? shown + 500 : 500;
  document.getElementById('p-count').textContent = rows.length + ' items';
  const body = rows.slice(0, shown).map((it, k) =>
    '<tr data-k="' + k + '"><td>' + esc(it.run) + '</td><td>' + esc(it.item_id) + '</td><td>' +
    esc(labelOf(it)) + '</td><td>' + esc(it.gold ?? '') + '</td><td>' + esc(it.answer ?? '') +
    '</td><td>' + esc(it.status) + '</td><td>' + esc(it.answer_official ?? '-') + '</td><td>' +
    esc(String(it.output ?? '').slice(0, 80)) + '</td></tr>').join('');
  const tb = document.getElementById('p-body');
  tb.innerHTML = body;
  tb.dataset.rows = '';
  tb._rows = rows;
  document.getElementById('p-more').hidden = rows.length <= shown;
}
function detail(tr){
  const next = tr.nextElementSibling;
  if(next && next.classList.contains('detail')){ next.remove(); return; }
  const it = document.getElementById('p-body')._rows[Number(tr.dataset.k)];
  const prompt = it.prompt == null
    ? '(prompt not available: the data files were not found)'
    : (it._prefix || '') + text(it.prompt) + it._suffix;
  const html = '<tr class="detail"><td colspan="8"><b>prompt</b><pre>' + esc(prompt) +
    '</pre><b>output</b><pre>' + esc(it.output ?? '') + '</pre>' +
    (it.second_output ? '<b>second output</b><pre>' + esc(it.second_output) + '</pre>' : '') +
    '<div>reading: ' + esc(it.read_method ?? '-') + '; answer ' + esc(it.answer ?? '-') +
    ' (' + esc(it.status) + '); official reading: ' + esc(it.answer_official ?? 'not available') +
    ' (' + esc(it.status_official ?? '-') + ')' + (it.error ? '; error: ' + esc(it.error) : '') +
    '</div></td></tr>';
  tr.insertAdjacentHTML('afterend', html);
}
document.addEventListener('click', e => {
  const td = e.target.closest('td.drill');
  if(td){
    open(Number(td.dataset.d)).catch(err => {
      console.error('drill-down failed', err);
      document.getElementById('p-count').textContent = 'could not open: ' + err;
    });
    return;
  }
  const tr = e.target.closest('#p-body tr[data-k]');
  if(tr) detail(tr);
});
['f-status', 'f-label', 'f-correct'].forEach(id =>
  document.getElementById(id).addEventListener('change', () => render()));
document.getElementById('p-more').addEventListener('click', () => render(true));
document.getElementById('p-close').addEventListener('click', () => {
  document.getElementById('panel').hidden = true;
});
document.body.dataset.ready = '1';
})();
"""
