// CoAP messages as they travel over WebSockets (RFC 8323 §4.2): no Len field, no type, no
// message ID; options and payload as in RFC 7252 §3.1. Pure functions, no DOM.

/** Signaling codes (RFC 8323 §5). */
export const SIGNAL = Object.freeze({ CSM: 0xe1, PING: 0xe2, PONG: 0xe3, RELEASE: 0xe4, ABORT: 0xe5 });

/** Method codes (RFC 7252 §12.1.1, RFC 8132 §2). */
export const METHOD = Object.freeze({ GET: 1, POST: 2, PUT: 3, DELETE: 4, FETCH: 5, PATCH: 6, iPATCH: 7 });

const CODE_NAMES = {
  0x00: 'Empty', 0x01: 'GET', 0x02: 'POST', 0x03: 'PUT', 0x04: 'DELETE', 0x05: 'FETCH', 0x06: 'PATCH',
  0x07: 'iPATCH', 0x41: 'Created', 0x42: 'Deleted', 0x43: 'Valid', 0x44: 'Changed', 0x45: 'Content',
  0x5f: 'Continue', 0x80: 'Bad Request', 0x81: 'Unauthorized', 0x82: 'Bad Option', 0x83: 'Forbidden',
  0x84: 'Not Found', 0x85: 'Method Not Allowed', 0x86: 'Not Acceptable', 0x88: 'Request Entity Incomplete',
  0x89: 'Conflict', 0x8c: 'Precondition Failed', 0x8d: 'Request Entity Too Large',
  0x8f: 'Unsupported Content-Format', 0x96: 'Unprocessable Entity', 0x9d: 'Too Many Requests',
  0xa0: 'Internal Server Error', 0xa1: 'Not Implemented', 0xa2: 'Bad Gateway', 0xa3: 'Service Unavailable',
  0xa4: 'Gateway Timeout', 0xa5: 'Proxying Not Supported', 0xa8: 'Hop Limit Reached',
  0xe1: 'CSM', 0xe2: 'Ping', 0xe3: 'Pong', 0xe4: 'Release', 0xe5: 'Abort',
};

/** "2.05" for 0x45. */
export function codeDigits(code) {
  return `${code >> 5}.${String(code & 0x1f).padStart(2, '0')}`;
}

/** "2.05 Content" for 0x45. */
export function codeText(code) {
  const name = CODE_NAMES[code];
  return name ? `${codeDigits(code)} ${name}` : codeDigits(code);
}

export const isRequest = (code) => code >= 1 && code <= 31;
export const isResponse = (code) => code >= 64 && code < 192;
export const isSignal = (code) => code >> 5 === 7;
export const isSuccess = (code) => code >> 5 === 2;

/** Option numbers used by the explorer (RFC 7252 §5.10, RFC 7641, RFC 7959, RFC 8613, RFC 9175). */
export const OPT = Object.freeze({
  IF_MATCH: 1, URI_HOST: 3, ETAG: 4, IF_NONE_MATCH: 5, OBSERVE: 6, URI_PORT: 7, LOCATION_PATH: 8,
  OSCORE: 9, URI_PATH: 11, CONTENT_FORMAT: 12, MAX_AGE: 14, URI_QUERY: 15, HOP_LIMIT: 16, ACCEPT: 17,
  Q_BLOCK1: 19, LOCATION_QUERY: 20, BLOCK2: 23, BLOCK1: 27, SIZE2: 28, Q_BLOCK2: 31, PROXY_URI: 35,
  PROXY_SCHEME: 39, SIZE1: 60, ECHO: 252, NO_RESPONSE: 258, REQUEST_TAG: 292,
});

const OPTION_DEFS = {
  1: ['If-Match', 'opaque'], 3: ['Uri-Host', 'string'], 4: ['ETag', 'opaque'], 5: ['If-None-Match', 'empty'],
  6: ['Observe', 'uint'], 7: ['Uri-Port', 'uint'], 8: ['Location-Path', 'string'], 9: ['OSCORE', 'opaque'],
  11: ['Uri-Path', 'string'], 12: ['Content-Format', 'format'], 14: ['Max-Age', 'uint'],
  15: ['Uri-Query', 'string'], 16: ['Hop-Limit', 'uint'], 17: ['Accept', 'format'], 19: ['Q-Block1', 'block'],
  20: ['Location-Query', 'string'], 23: ['Block2', 'block'], 27: ['Block1', 'block'], 28: ['Size2', 'uint'],
  31: ['Q-Block2', 'block'], 35: ['Proxy-Uri', 'string'], 39: ['Proxy-Scheme', 'string'], 60: ['Size1', 'uint'],
  252: ['Echo', 'opaque'], 258: ['No-Response', 'uint'], 292: ['Request-Tag', 'opaque'],
};

// Signaling options are defined per code (RFC 8323 §5.3-5.6).
const SIGNAL_OPTION_DEFS = {
  [SIGNAL.CSM]: { 2: ['Max-Message-Size', 'uint'], 4: ['Block-Wise-Transfer', 'empty'] },
  [SIGNAL.PING]: { 2: ['Custody', 'empty'] },
  [SIGNAL.PONG]: { 2: ['Custody', 'empty'] },
  [SIGNAL.RELEASE]: { 2: ['Alternative-Address', 'string'], 4: ['Hold-Off', 'uint'] },
  [SIGNAL.ABORT]: { 2: ['Bad-CSM-Option', 'uint'] },
};

/** Content-Format numbers (IANA CoAP Content-Formats) the explorer names. */
export const CONTENT_FORMATS = Object.freeze({
  0: 'text/plain;charset=utf-8', 16: 'application/cose;cose-type="cose-encrypt0"', 40: 'application/link-format',
  41: 'application/xml', 42: 'application/octet-stream', 47: 'application/exi', 50: 'application/json',
  51: 'application/json-patch+json', 52: 'application/merge-patch+json', 60: 'application/cbor',
  61: 'application/cwt', 110: 'application/senml+json', 112: 'application/senml+cbor',
  11542: 'application/vnd.oma.lwm2m+tlv', 11543: 'application/vnd.oma.lwm2m+json',
});

const TEXT_FORMATS = new Set([0, 40, 41, 50, 51, 52, 110, 11543]);

export class FormatError extends Error {}

const utf8 = new TextEncoder();
const utf8Lenient = new TextDecoder('utf-8');
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export const encodeText = (s) => utf8.encode(s);
export const decodeText = (bytes) => utf8Lenient.decode(bytes);

/** The shortest big-endian bytes of a non-negative integer (0: no bytes), RFC 7252 §3.2. */
export function encodeUint(n) {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a uint: ${n}`);
  const out = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return Uint8Array.from(out);
}

export function decodeUint(bytes) {
  let v = 0;
  for (const b of bytes) v = v * 256 + b;
  return v;
}

/** A Block1/Block2 value (RFC 7959 §2.2); SZX 7 is BERT's 1024-byte unit (RFC 8323 §6). */
export function encodeBlock(num, more, szx) {
  return encodeUint(num * 16 + (more ? 8 : 0) + szx);
}

export function decodeBlock(bytes) {
  const v = decodeUint(bytes);
  const szx = v & 7;
  return { num: Math.floor(v / 16), more: (v & 8) !== 0, szx, size: szx === 7 ? 1024 : 16 << szx };
}

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

export function optionName(code, number) {
  const defs = isSignal(code) ? SIGNAL_OPTION_DEFS[code] || {} : OPTION_DEFS;
  const def = defs[number];
  return def ? def[0] : `Option ${number}`;
}

/** The option's value as people read it: text, a number, a block, or hex for opaque bytes. */
export function optionValueText(code, number, value) {
  const defs = isSignal(code) ? SIGNAL_OPTION_DEFS[code] || {} : OPTION_DEFS;
  const kind = defs[number] ? defs[number][1] : 'opaque';
  switch (kind) {
    case 'empty':
      return value.length === 0 ? '' : `0x${hex(value)}`;
    case 'string':
      return decodeText(value);
    case 'uint':
      return value.length <= 6 ? String(decodeUint(value)) : `0x${hex(value)}`;
    case 'format': {
      const n = decodeUint(value);
      return CONTENT_FORMATS[n] ? `${n} (${CONTENT_FORMATS[n]})` : String(n);
    }
    case 'block': {
      const b = decodeBlock(value);
      return `${b.num}/${b.more ? 1 : 0}/${b.size}`;
    }
    default:
      return value.length === 0 ? '(empty)' : `0x${hex(value)}`;
  }
}

/**
 * A message: {code, token: Uint8Array, options: [{number, value: Uint8Array}], payload: Uint8Array}.
 * Options keep their order of insertion among equal numbers (repeatable options).
 */
export function message(code, token, options = [], payload = new Uint8Array(0)) {
  return { code, token, options, payload };
}

export function option(message, number) {
  const o = message.options.find((x) => x.number === number);
  return o ? o.value : undefined;
}

export function options(message, number) {
  return message.options.filter((x) => x.number === number).map((x) => x.value);
}

function nibble(v) {
  return v < 13 ? v : v < 269 ? 13 : 14;
}

function extended(v, out) {
  if (v >= 269) out.push((v - 269) >> 8, (v - 269) & 0xff);
  else if (v >= 13) out.push(v - 13);
}

/** The bytes of one WebSocket message carrying {@code msg} (RFC 8323 §4.2: Len 0, TKL, Code, ...). */
export function encode(msg) {
  if (msg.token.length > 8) throw new RangeError('token longer than 8 bytes');
  const out = [msg.token.length, msg.code, ...msg.token];
  const sorted = msg.options.map((o, i) => [o, i]).sort((a, b) => a[0].number - b[0].number || a[1] - b[1]);
  let previous = 0;
  for (const [o] of sorted) {
    const delta = o.number - previous;
    const length = o.value.length;
    if (length > 65535 + 269) throw new RangeError('option value too long');
    out.push((nibble(delta) << 4) | nibble(length));
    extended(delta, out);
    extended(length, out);
    for (const b of o.value) out.push(b);
    previous = o.number;
  }
  const bytes = new Uint8Array(out.length + (msg.payload.length ? 1 + msg.payload.length : 0));
  bytes.set(out);
  if (msg.payload.length) {
    bytes[out.length] = 0xff;
    bytes.set(msg.payload, out.length + 1);
  }
  return bytes;
}

/** Parses one WebSocket message; throws {@link FormatError} for anything RFC 8323 §4.2 does not allow. */
export function decode(bytes) {
  if (bytes.length < 2) throw new FormatError(`message of ${bytes.length} byte(s), at least 2 needed`);
  if (bytes[0] >> 4 !== 0) throw new FormatError('Len is not 0 (RFC 8323 4.2)');
  const tkl = bytes[0] & 0x0f;
  if (tkl > 8) throw new FormatError(`token length ${tkl} (RFC 8323 3.2: 0..8)`);
  if (bytes.length < 2 + tkl) throw new FormatError('token cut short');
  const code = bytes[1];
  const token = bytes.slice(2, 2 + tkl);
  const opts = [];
  let i = 2 + tkl;
  let number = 0;
  while (i < bytes.length && bytes[i] !== 0xff) {
    const head = bytes[i++];
    let delta = head >> 4;
    let length = head & 0x0f;
    [delta, i] = readExtended(bytes, delta, i);
    [length, i] = readExtended(bytes, length, i);
    if (i + length > bytes.length) throw new FormatError('option value past the end');
    number += delta;
    opts.push({ number, value: bytes.slice(i, i + length) });
    i += length;
  }
  let payload = new Uint8Array(0);
  if (i < bytes.length) {
    if (i + 1 === bytes.length) throw new FormatError('payload marker without payload (RFC 7252 3)');
    payload = bytes.slice(i + 1);
  }
  return { code, token, options: opts, payload };
}

function readExtended(bytes, n, i) {
  if (n === 15) throw new FormatError('reserved option nibble 15');
  if (n === 13) {
    if (i >= bytes.length) throw new FormatError('option cut short');
    return [bytes[i] + 13, i + 1];
  }
  if (n === 14) {
    if (i + 1 >= bytes.length) throw new FormatError('option cut short');
    return [((bytes[i] << 8) | bytes[i + 1]) + 269, i + 2];
  }
  return [n, i];
}

/**
 * The payload as people read it: {kind: 'text'|'hex'|'empty', text}. Text when the Content-Format
 * is textual or the bytes are valid UTF-8 without control characters; JSON is indented.
 */
export function payloadView(bytes, contentFormat) {
  if (bytes.length === 0) return { kind: 'empty', text: '' };
  let text = null;
  try {
    text = utf8Strict.decode(bytes);
  } catch (e) {
    text = null;
  }
  // eslint-disable-next-line no-control-regex
  const printable = text !== null && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
  if (printable && (TEXT_FORMATS.has(contentFormat) || contentFormat === undefined || contentFormat === 42)) {
    if (contentFormat === 50 || contentFormat === 110) {
      try {
        return { kind: 'text', text: JSON.stringify(JSON.parse(text), null, 2) };
      } catch (e) {
        // shown as sent: the server's JSON is malformed
      }
    }
    return { kind: 'text', text };
  }
  const shown = bytes.length > 4096 ? bytes.subarray(0, 4096) : bytes;
  const lines = [];
  for (let i = 0; i < shown.length; i += 16) {
    lines.push(`${i.toString(16).padStart(4, '0')}  ${hex(shown.subarray(i, i + 16)).replace(/(..)/g, '$1 ').trim()}`);
  }
  if (shown !== bytes) lines.push(`... ${bytes.length - 4096} more bytes`);
  return { kind: 'hex', text: lines.join('\n') };
}

/** Uri-Path and Uri-Query options of "/a/b?x=1&y" (each segment percent-decoded, RFC 7252 §6.4). */
export function uriOptions(pathAndQuery) {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
  const out = [];
  // RFC 7252 §6.4 step 8: "" and "/" name the root; otherwise every segment, empty ones included.
  if (path !== '' && path !== '/') {
    for (const segment of path.replace(/^\//, '').split('/')) {
      out.push({ number: OPT.URI_PATH, value: encodeText(safeDecode(segment)) });
    }
  }
  if (query !== '') {
    for (const part of query.split('&')) out.push({ number: OPT.URI_QUERY, value: encodeText(safeDecode(part)) });
  }
  return out;
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch (e) {
    return s;
  }
}
