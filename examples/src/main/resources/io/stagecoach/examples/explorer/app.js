// The explorer page: wires the DOM to a CoapSession. Everything a server sends reaches the page
// through textContent, attributes or dataset, never as markup: a hostile device cannot run script here.
import {
  METHOD, OPT, CONTENT_FORMATS, codeText, codeDigits, isSignal, isRequest, isResponse, optionName,
  optionValueText, payloadView, uriOptions, encodeText, decodeText, decodeUint, option, hex,
} from './coap.js';
import { parseLinkFormat, linkTree, attributeText } from './linkformat.js';
import { CoapSession } from './session.js';
import { LiveChart, numericValue } from './chart.js';

const MAX_LOG_ROWS = 500;
const MAX_NOTIFICATIONS_SHOWN = 8;
const PREVIEW = 160;

const $ = (id) => document.getElementById(id);

/** An element with text and attributes set safely (no markup is ever parsed). */
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k === 'data') Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

const wsScheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const wsUrl = `${wsScheme}//${location.host}/.well-known/coap`;
const session = new CoapSession(wsUrl, {
  state: showState,
  message: logMessage,
  malformed: (bytes, error) => addLogRow('in', '', 'malformed', '', [error], `${bytes.length} bytes`),
});

$('endpoint').textContent = `${wsScheme === 'wss:' ? 'coaps+ws' : 'coap+ws'}://${location.host}`;

function showState(name, detail) {
  const status = $('status');
  status.dataset.state = name;
  if (name === 'open') {
    status.textContent = `connected · server CSM: Max-Message-Size ${detail.maxMessageSize}${detail.blockWise ? ', Block-Wise-Transfer' : ''}`;
  } else if (name === 'connecting') {
    status.textContent = 'connecting…';
  } else {
    status.textContent = `not connected${detail ? ` (${detail})` : ''}`;
  }
}

// --- message log -----------------------------------------------------------------------------

function logMessage(direction, msg, size) {
  const kind = isSignal(msg.code) ? 'signal' : isRequest(msg.code) ? 'request' : isResponse(msg.code) ? 'response' : 'empty';
  const cf = option(msg, OPT.CONTENT_FORMAT);
  const opts = msg.options.map((o) => `${optionName(msg.code, o.number)}: ${optionValueText(msg.code, o.number, o.value)}`);
  const view = payloadView(msg.payload, cf === undefined ? undefined : decodeUint(cf));
  const preview = view.kind === 'empty' ? '' : view.text.length > PREVIEW ? `${view.text.slice(0, PREVIEW)}…` : view.text;
  addLogRow(direction, hex(msg.token), codeText(msg.code), kind, opts,
    msg.payload.length ? `${preview} (${msg.payload.length} bytes)` : '', size, codeDigits(msg.code));
}

function addLogRow(direction, token, code, kind, opts, payload, size, digits = '') {
  const body = $('log-body');
  const time = new Date().toISOString().slice(11, 23);
  const row = el('tr', { class: `dir-${direction} kind-${kind}`, data: { dir: direction, code: digits, kind } },
    el('td', { class: 'time', text: time }),
    el('td', { class: 'dir', text: direction === 'out' ? '→' : '←', title: size ? `${size} bytes` : undefined }),
    el('td', { class: 'type muted', text: '—' }),
    el('td', { class: 'code', text: code }),
    el('td', { class: 'token', text: token }),
    el('td', { class: 'opts' }, ...opts.map((o) => el('div', { text: o }))),
    el('td', { class: 'payload-cell', text: payload }));
  body.prepend(row);
  while (body.childElementCount > MAX_LOG_ROWS) body.lastElementChild.remove();
}

$('clear-log').addEventListener('click', () => $('log-body').replaceChildren());

// --- connection ------------------------------------------------------------------------------

$('connect').addEventListener('click', () => session.open().catch(() => {}));
$('disconnect').addEventListener('click', () => session.close());
$('ping').addEventListener('click', async () => {
  $('ping-result').textContent = 'ping…';
  try {
    $('ping-result').textContent = `pong in ${(await session.ping()).toFixed(1)} ms`;
  } catch (e) {
    $('ping-result').textContent = `no pong: ${e.message}`;
  }
});

// --- discovery -------------------------------------------------------------------------------

$('discover').addEventListener('click', discover);

async function discover() {
  const status = $('discovery-status');
  const query = $('discover-query').value.trim();
  status.textContent = 'discovering…';
  try {
    const r = await session.request({
      method: METHOD.GET, uriOptions: uriOptions(`/.well-known/core${query ? `?${query}` : ''}`), accept: 40,
    });
    if (r.code !== 0x45) {
      status.textContent = `discovery answered ${codeText(r.code)}`;
      return;
    }
    const { links, error } = parseLinkFormat(decodeText(r.payload));
    renderTree(linkTree(links));
    status.textContent = `${links.length} link${links.length === 1 ? '' : 's'} (${r.payload.length} bytes, ${r.messages} message${r.messages === 1 ? '' : 's'})${error ? `; ${error}` : ''}`;
  } catch (e) {
    status.textContent = `discovery failed: ${e.message}`;
  }
}

function renderTree(root) {
  const tree = $('tree');
  tree.replaceChildren(...[...root.children.values()].map(treeNode));
}

function treeNode(node) {
  const attrs = node.links.flatMap((l) => l.attributes.map(attributeText));
  const label = el('span', { class: node.links.length ? 'node resource' : 'node', text: node.name, title: node.path });
  const item = el('li', { role: 'treeitem', data: { path: node.path } }, label,
    attrs.length ? el('span', { class: 'attrs' }, ...attrs.map((a) => el('span', { class: 'attr', text: a }))) : null);
  if (node.children.size) {
    item.append(el('ul', { role: 'group' }, ...[...node.children.values()].map(treeNode)));
  }
  label.addEventListener('click', () => selectResource(node));
  return item;
}

function selectResource(node) {
  for (const s of document.querySelectorAll('#tree .selected')) s.classList.remove('selected');
  const li = [...document.querySelectorAll('#tree li')].find((x) => x.dataset.path === node.path);
  if (li) li.firstElementChild.classList.add('selected');
  $('path').value = node.path;
  const ct = node.links.flatMap((l) => l.attributes).find(([n]) => n === 'ct');
  if (ct && ct[1] !== null && /^\d+$/.test(ct[1].split(' ')[0])) {
    const first = ct[1].split(' ')[0];
    if ([...$('accept').options].some((o) => o.value === first)) $('accept').value = first;
  }
}

// --- requests --------------------------------------------------------------------------------

for (const id of ['content-format', 'accept']) {
  const select = $(id);
  select.append(el('option', { value: '', text: 'none' }));
  for (const [n, name] of Object.entries(CONTENT_FORMATS)) select.append(el('option', { value: n, text: `${n} ${name}` }));
}
$('content-format').value = '0';

function requestPayload() {
  const text = $('payload').value;
  if (!$('payload-hex').checked) return encodeText(text);
  const clean = text.replace(/\s+/g, '').replace(/^0x/i, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(clean)) throw new Error('the payload is not hex');
  return Uint8Array.from(clean.match(/../g) || [], (b) => parseInt(b, 16));
}

const selected = (id) => ($(id).value === '' ? undefined : Number($(id).value));

$('send').addEventListener('click', send);
$('path').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') send();
});

async function send() {
  const method = METHOD[$('method').value];
  const started = performance.now();
  showResponse({ pending: true });
  try {
    const carriesBody = method !== METHOD.GET && method !== METHOD.DELETE;
    const szx = selected('block-size');
    const r = await session.request({
      method,
      uriOptions: uriOptions($('path').value.trim()),
      payload: carriesBody ? requestPayload() : new Uint8Array(0),
      contentFormat: selected('content-format'),
      accept: selected('accept'),
      block1Szx: szx,
      block2Szx: szx,
    });
    showResponse({ response: r, ms: performance.now() - started });
  } catch (e) {
    showResponse({ error: e.message });
  }
}

function showResponse({ pending, response, ms, error }) {
  const code = $('response-code');
  const meta = $('response-meta');
  const opts = $('response-options');
  const payload = $('response-payload');
  opts.replaceChildren();
  payload.textContent = '';
  meta.textContent = '';
  code.className = 'code';
  if (pending) {
    code.textContent = '…';
    return;
  }
  if (error) {
    code.textContent = 'failed';
    code.classList.add('error');
    payload.textContent = error;
    return;
  }
  code.textContent = codeText(response.code);
  code.dataset.code = codeDigits(response.code);
  code.classList.add(`class-${response.code >> 5}`);
  meta.textContent = `${response.payload.length} bytes in ${response.messages} message${response.messages === 1 ? '' : 's'}, ${ms.toFixed(0)} ms`;
  for (const o of response.options) {
    opts.append(el('dt', { text: optionName(response.code, o.number) }),
      el('dd', { text: optionValueText(response.code, o.number, o.value) }));
  }
  const cf = option(response, OPT.CONTENT_FORMAT);
  const view = payloadView(response.payload, cf === undefined ? undefined : decodeUint(cf));
  payload.textContent = view.text;
  payload.dataset.kind = view.kind;
}

// --- observe ---------------------------------------------------------------------------------

$('observe').addEventListener('click', startObservation);

async function startObservation() {
  const path = $('path').value.trim();
  const chart = new LiveChart();
  const latest = el('div', { class: 'latest', text: '…' });
  const state = el('span', { class: 'obs-state', text: 'registering' });
  const count = el('span', { class: 'obs-count muted', text: '0 notifications' });
  const list = el('ul', { class: 'notifications' });
  const cancel = el('button', { type: 'button', class: 'small-button', text: 'Cancel' });
  const remove = el('button', { type: 'button', class: 'small-button', text: 'Remove' });
  const card = el('div', { class: 'observation', data: { path, state: 'registering' } },
    el('div', { class: 'row' }, el('strong', { class: 'obs-path', text: path }), state, cancel, remove),
    latest, count, list);
  chart.element.hidden = true;
  card.insertBefore(chart.element, count);
  $('observations').prepend(card);
  let n = 0;
  let relation = null;
  const setState = (s, text) => {
    card.dataset.state = s;
    state.textContent = text;
  };
  remove.addEventListener('click', () => {
    if (relation && card.dataset.state === 'active') relation.cancel();
    card.remove();
  });
  cancel.addEventListener('click', () => {
    if (relation) {
      setState('cancelling', 'cancelling');
      relation.cancel();
    }
  });
  try {
    relation = await session.observe({ uriOptions: uriOptions(path), accept: selected('accept') }, (r) => {
      n++;
      const cf = option(r, OPT.CONTENT_FORMAT);
      const view = payloadView(r.payload, cf === undefined ? undefined : decodeUint(cf));
      latest.textContent = view.text;
      latest.dataset.code = codeDigits(r.code);
      count.textContent = `${n} notification${n === 1 ? '' : 's'}`;
      const value = view.kind === 'text' ? numericValue(view.text) : null;
      if (value !== null) {
        chart.add(value);
        chart.element.hidden = false;
      }
      const seq = r.sequence === undefined ? '' : `#${r.sequence} `;
      list.prepend(el('li', { text: `${new Date().toISOString().slice(11, 19)} ${seq}${codeText(r.code)} ${view.text.slice(0, PREVIEW)}` }));
      while (list.childElementCount > MAX_NOTIFICATIONS_SHOWN) list.lastElementChild.remove();
      if (card.dataset.state === 'registering') setState('active', 'active');
    }, (reason) => setState('ended', `ended: ${reason}`));
  } catch (e) {
    setState('ended', `failed: ${e.message}`);
  }
}

// --- start -----------------------------------------------------------------------------------

session.open().then(discover, () => {});
