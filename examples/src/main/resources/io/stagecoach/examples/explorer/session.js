// One CoAP-over-WebSockets connection from the browser (RFC 8323 §4): CSM both ways first,
// Ping/Pong, requests matched by token alone, block-wise bodies (RFC 7959), Observe (RFC 7641).
import {
  SIGNAL, OPT, METHOD, FormatError, encode, decode, encodeUint, decodeUint, encodeBlock, decodeBlock,
  encodeText, option, message, isResponse, isRequest, isSignal, hex, codeText,
} from './coap.js';

/** Our CSM's Max-Message-Size: what the server may send us in one message. */
export const OUR_MAX_MESSAGE_SIZE = 65536;
/** Largest body reassembled from blocks: a device cannot fill the tab's memory. */
export const MAX_BODY = 1 << 20;
/** Until the server's CSM arrives, RFC 8323 §5.3.1's default for what we may send. */
const DEFAULT_PEER_MAX = 1152;
const CSM_TIMEOUT_MS = 10000;
const EXCHANGE_TIMEOUT_MS = 60000;
const CONTINUE = 0x5f; // 2.31
/** The options each signal defines (RFC 8323 §5.3-5.6). */
const SIGNAL_OPTIONS = {
  [SIGNAL.CSM]: [2, 4], [SIGNAL.PING]: [2], [SIGNAL.PONG]: [2], [SIGNAL.RELEASE]: [2, 4], [SIGNAL.ABORT]: [2],
};

export class CoapError extends Error {}

/**
 * Events go to {@code listener}: message(direction 'out'|'in', msg, bytes), state(name, detail),
 * malformed(bytes, error). States: connecting, open, closed.
 */
export class CoapSession {
  constructor(url, listener) {
    this.url = url;
    this.listener = listener;
    this.ws = null;
    this.state = 'closed';
    this.peer = null; // {maxMessageSize, blockWise} from the server's CSM
    this.pending = new Map(); // token hex -> handler(msg)
    this.opening = null;
  }

  /** Opens the connection unless open; resolves once the server's CSM arrived. */
  open() {
    if (this.state === 'open') return Promise.resolve();
    if (this.opening) return this.opening.promise;
    let opening;
    const promise = new Promise((resolve, reject) => {
      opening = { resolve, reject };
    });
    opening.promise = promise;
    this.opening = opening;
    this.setState('connecting', this.url);
    const ws = new WebSocket(this.url, 'coap');
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.peer = null;
    opening.timer = setTimeout(() => this.abort('no CSM from the server in time (RFC 8323 5.3)'), CSM_TIMEOUT_MS);
    ws.onopen = () => {
      // RFC 8323 §5.3.1: our CSM is our first message; no Block-Wise-Transfer, so no BERT.
      this.send(message(SIGNAL.CSM, new Uint8Array(0), [{ number: 2, value: encodeUint(OUR_MAX_MESSAGE_SIZE) }]));
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      if (typeof e.data === 'string') {
        this.abort('a text message: CoAP travels in binary messages only (RFC 8323 4.2)');
      } else {
        this.received(new Uint8Array(e.data));
      }
    };
    ws.onclose = (e) => {
      if (ws === this.ws) this.closed(`WebSocket closed (${e.code}${e.reason ? ` ${e.reason}` : ''})`);
    };
    return promise;
  }

  close(reason = 'closed by the user') {
    const ws = this.ws;
    if (ws) {
      this.closed(reason);
      ws.close(1000);
    }
  }

  setState(name, detail) {
    this.state = name;
    this.listener.state(name, detail);
  }

  closed(reason) {
    this.ws = null;
    this.setState('closed', reason);
    const opening = this.opening;
    if (opening) {
      this.opening = null;
      clearTimeout(opening.timer);
      opening.reject(new CoapError(`cannot connect to ${this.url}: ${reason}`));
    }
    const handlers = [...this.pending.values()];
    this.pending.clear();
    for (const h of handlers) h(null, reason);
  }

  /** Sends Abort with a diagnostic (and Bad-CSM-Option, RFC 8323 §5.6) and closes. */
  abort(diagnostic, badCsmOption) {
    if (!this.ws) return;
    if (this.ws.readyState === WebSocket.OPEN) {
      const opts = badCsmOption === undefined ? [] : [{ number: 2, value: encodeUint(badCsmOption) }];
      this.send(message(SIGNAL.ABORT, new Uint8Array(0), opts, encodeText(diagnostic)));
    }
    this.close(`aborted: ${diagnostic}`);
  }

  send(msg) {
    const bytes = encode(msg);
    const limit = this.peer ? this.peer.maxMessageSize : DEFAULT_PEER_MAX;
    if (bytes.length > limit) {
      throw new CoapError(`a message of ${bytes.length} bytes exceeds the server's Max-Message-Size ${limit}`);
    }
    this.ws.send(bytes);
    this.listener.message('out', msg, bytes.length);
  }

  received(bytes) {
    let msg;
    try {
      msg = decode(bytes);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      this.listener.malformed(bytes, e.message);
      this.abort(`malformed message: ${e.message}`);
      return;
    }
    this.listener.message('in', msg, bytes.length);
    if (!this.peer && msg.code !== SIGNAL.CSM) {
      this.abort('the first message must be a CSM (RFC 8323 5.3)');
      return;
    }
    if (isSignal(msg.code)) {
      this.signal(msg);
    } else if (isRequest(msg.code)) {
      // The explorer serves no resources; a request from the server gets 4.04 (RFC 7252 5.9.2.5).
      this.send(message(0x84, msg.token));
    } else if (isResponse(msg.code)) {
      const handler = this.pending.get(hex(msg.token));
      if (handler) handler(msg); // unknown tokens: late or unwanted responses, ignored
    } // 0.00 Empty: ignored (RFC 8323 3.4)
  }

  signal(msg) {
    // RFC 8323 §5.2: an unknown critical (odd) option makes the signal unprocessable; in a CSM
    // the Abort names it in Bad-CSM-Option (§5.3.1, §5.6).
    const known = SIGNAL_OPTIONS[msg.code] || [];
    const critical = msg.options.find((o) => o.number % 2 === 1 && !known.includes(o.number));
    if (critical) {
      this.abort(`unknown critical option ${critical.number} in signal ${codeText(msg.code)} (RFC 8323 5.2)`,
        msg.code === SIGNAL.CSM ? critical.number : undefined);
      return;
    }
    switch (msg.code) {
      case SIGNAL.CSM: {
        const max = option(msg, 2);
        const first = !this.peer;
        this.peer = {
          maxMessageSize: max === undefined ? DEFAULT_PEER_MAX : decodeUint(max),
          blockWise: option(msg, 4) !== undefined,
        };
        if (first) {
          const opening = this.opening;
          this.opening = null;
          clearTimeout(opening.timer);
          this.setState('open', this.peer);
          opening.resolve();
        }
        break;
      }
      case SIGNAL.PING:
        this.send(message(SIGNAL.PONG, msg.token));
        break;
      case SIGNAL.PONG: {
        const handler = this.pending.get(`pong:${hex(msg.token)}`);
        if (handler) handler(msg);
        break;
      }
      case SIGNAL.RELEASE:
        this.close('released by the server (RFC 8323 5.5)');
        break;
      case SIGNAL.ABORT:
        this.close('aborted by the server (RFC 8323 5.6)');
        break;
      default:
        this.abort(`unknown signal ${msg.code} (RFC 8323 5.1)`);
    }
  }

  newToken(prefix = '') {
    const t = new Uint8Array(4);
    do crypto.getRandomValues(t); while (this.pending.has(prefix + hex(t)));
    return t;
  }

  /** Sends a Ping and resolves with the round-trip time in ms on its Pong. */
  async ping() {
    await this.open();
    const token = this.newToken('pong:');
    const key = `pong:${hex(token)}`;
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new CoapError('no Pong'));
      }, EXCHANGE_TIMEOUT_MS);
      this.pending.set(key, (msg, reason) => {
        clearTimeout(timer);
        this.pending.delete(key);
        if (msg) resolve(performance.now() - start);
        else reject(new CoapError(reason));
      });
      this.send(message(SIGNAL.PING, token));
    });
  }

  /** Sends one request and resolves with its response (one message, token-matched). */
  async exchange(code, opts, payload) {
    await this.open();
    const token = this.newToken();
    const key = hex(token);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new CoapError('no response within 60 s'));
      }, EXCHANGE_TIMEOUT_MS);
      this.pending.set(key, (msg, reason) => {
        clearTimeout(timer);
        this.pending.delete(key);
        if (msg) resolve(msg);
        else reject(new CoapError(reason));
      });
      try {
        this.send(message(code, token, opts, payload));
      } catch (e) {
        clearTimeout(timer);
        this.pending.delete(key);
        reject(e);
      }
    });
  }

  /**
   * A request with its body cut into Block1 blocks when larger than {@code req.block1Size}, and
   * the response's Block2 blocks fetched and joined. req: {method, uriOptions, contentFormat,
   * accept, payload, block2Szx, block1Szx}. Resolves {code, options, payload, messages}.
   */
  async request(req) {
    const base = [...req.uriOptions];
    if (req.accept !== undefined) base.push({ number: OPT.ACCEPT, value: encodeUint(req.accept) });
    const payload = req.payload || new Uint8Array(0);
    const withFormat = payload.length && req.contentFormat !== undefined
      ? [{ number: OPT.CONTENT_FORMAT, value: encodeUint(req.contentFormat) }] : [];
    const block1Szx = req.block1Szx === undefined ? 6 : req.block1Szx;
    const early = req.block2Szx === undefined ? [] : [{ number: OPT.BLOCK2, value: encodeBlock(0, false, req.block2Szx) }];
    let first;
    let messages = 1;
    if (payload.length > 16 << block1Szx) {
      [first, messages] = await this.upload(req.method, [...base, ...withFormat], payload, block1Szx, early);
    } else {
      first = await this.exchange(req.method, [...base, ...withFormat, ...early], payload);
    }
    const repeat = req.method === METHOD.FETCH ? { opts: [...base, ...withFormat], payload } : { opts: base, payload: undefined };
    return this.completeBlock2(req.method, repeat, first, messages);
  }

  async upload(method, opts, payload, szx, early) {
    let size = 16 << szx;
    let offset = 0;
    let num = 0;
    let messages = 0;
    while (true) {
      const chunk = payload.subarray(offset, offset + size);
      const more = offset + chunk.length < payload.length;
      const blockOpts = [...opts, { number: OPT.BLOCK1, value: encodeBlock(num, more, szx) }];
      if (num === 0) blockOpts.push({ number: OPT.SIZE1, value: encodeUint(payload.length) });
      if (!more) blockOpts.push(...early);
      const response = await this.exchange(method, blockOpts, chunk);
      messages++;
      if (!more || response.code !== CONTINUE) return [response, messages];
      const b1 = option(response, OPT.BLOCK1);
      offset += chunk.length;
      if (b1 !== undefined && decodeBlock(b1).szx < szx) {
        // RFC 7959 §2.5: the server asks for smaller blocks; go on at the same byte offset.
        szx = decodeBlock(b1).szx;
        size = 16 << szx;
      }
      num = offset / size;
    }
  }

  /**
   * Fetches the blocks after {@code first} (RFC 7959 §2.4) and joins them into one response;
   * stops with an error once {@code wanted()} turns false (a newer notification superseded it).
   */
  async completeBlock2(method, repeat, first, messages, wanted = () => true) {
    let b2 = option(first, OPT.BLOCK2);
    if (b2 === undefined || !decodeBlock(b2).more) {
      return { code: first.code, options: first.options, payload: first.payload, messages };
    }
    if (decodeBlock(b2).num !== 0) throw new CoapError(`the first response is block ${decodeBlock(b2).num}, not 0`);
    const parts = [first.payload];
    let total = first.payload.length;
    const etag = option(first, OPT.ETAG);
    let last = first;
    while (decodeBlock(b2).more) {
      if (!wanted()) throw new CoapError('superseded by a newer notification');
      const block = decodeBlock(b2);
      const num = total / block.size;
      if (!Number.isInteger(num)) throw new CoapError(`block ${block.num} is not a whole number of ${block.size}-byte blocks`);
      const next = await this.exchange(method, [...repeat.opts, { number: OPT.BLOCK2, value: encodeBlock(num, false, block.szx) }],
        repeat.payload);
      messages++;
      last = next;
      b2 = option(next, OPT.BLOCK2);
      if (next.code >> 5 !== 2) return { code: next.code, options: next.options, payload: next.payload, messages };
      if (b2 === undefined) throw new CoapError('a follow-up response without Block2');
      const got = decodeBlock(b2);
      if (got.num * got.size !== total) throw new CoapError(`block ${got.num} does not continue at byte ${total}`);
      const tag = option(next, OPT.ETAG);
      if (etag !== undefined && (tag === undefined || hex(tag) !== hex(etag))) {
        throw new CoapError('the representation changed during the transfer (ETag, RFC 7959 2.4)');
      }
      total += next.payload.length;
      if (total > MAX_BODY) throw new CoapError(`body larger than ${MAX_BODY} bytes; transfer stopped`);
      parts.push(next.payload);
    }
    const body = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      body.set(p, at);
      at += p.length;
    }
    const opts = last.options.filter((o) => o.number !== OPT.BLOCK2);
    return { code: first.code, options: opts, payload: body, messages };
  }

  /**
   * Registers an observation (GET with Observe 0, RFC 7641 §3.1). Each notification, its Block2
   * rest fetched without Observe (RFC 7959 §3.4), goes to onNotification({code, options, payload,
   * sequence}); onEnd(reason) once when it ends. Returns {cancel()}: GET with Observe 1 (§3.6).
   */
  async observe(req, onNotification, onEnd) {
    await this.open();
    const token = this.newToken();
    const key = hex(token);
    const opts = [...req.uriOptions];
    if (req.accept !== undefined) opts.push({ number: OPT.ACCEPT, value: encodeUint(req.accept) });
    let ended = false;
    let cancelling = false;
    let latest = 0;
    const end = (reason) => {
      if (ended) return;
      ended = true;
      this.pending.delete(key);
      onEnd(reason);
    };
    this.pending.set(key, (msg, reason) => {
      if (!msg) {
        end(reason);
        return;
      }
      const seq = option(msg, OPT.OBSERVE);
      const which = ++latest;
      const deliver = (r) => {
        if (which === latest) {
          onNotification({ ...r, sequence: seq === undefined ? undefined : decodeUint(seq) });
        }
      };
      const wanted = () => which === latest && !ended;
      this.completeBlock2(METHOD.GET, { opts, payload: undefined }, msg, 1, wanted).then(deliver, (e) => {
        if (wanted()) deliver({ code: msg.code, options: msg.options, payload: encodeText(`(${e.message})`) });
      });
      if (seq === undefined || msg.code >> 5 !== 2) {
        end(cancelling ? 'cancelled' : msg.code >> 5 !== 2 ? `the server answered ${codeText(msg.code)}`
          : 'the server did not keep the observation (no Observe option)');
      }
    });
    this.send(message(METHOD.GET, token, [...opts, { number: OPT.OBSERVE, value: encodeUint(0) }]));
    return {
      cancel: () => {
        cancelling = true;
        if (ended || !this.ws) {
          end('cancelled');
          return;
        }
        this.send(message(METHOD.GET, token, [...opts, { number: OPT.OBSERVE, value: encodeUint(1) }]));
      },
    };
  }
}
