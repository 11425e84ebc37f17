// CoRE Link Format (RFC 6690 §2) into links, and links into a tree of paths. Pure functions.

/** At most this many links are kept from one document: a device cannot make the page unusable. */
export const MAX_LINKS = 5000;

/**
 * Parses a link-format document into {links: [{target, attributes: [[name, value|null, quoted]]}], error}.
 * Quoted values may hold ',' and ';' and backslash escapes (RFC 6690 §2, RFC 8288 §3); a value-less
 * parameter (e.g. obs) has the value null. On malformed input the links before the error are kept.
 */
export function parseLinkFormat(text) {
  const links = [];
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && /\s/.test(text[i])) i++;
  };
  const fail = (what) => ({ links, error: `${what} at character ${i}` });
  while (true) {
    skipSpace();
    if (i >= n) break;
    if (links.length >= MAX_LINKS) return { links, error: `more than ${MAX_LINKS} links; the rest is not shown` };
    if (text[i] !== '<') return fail("expected '<'");
    const close = text.indexOf('>', i + 1);
    if (close < 0) return fail("unterminated '<'");
    const link = { target: text.slice(i + 1, close), attributes: [] };
    i = close + 1;
    while (true) {
      skipSpace();
      if (i >= n || text[i] === ',') break;
      if (text[i] !== ';') return fail("expected ';' or ','");
      i++;
      skipSpace();
      const start = i;
      while (i < n && /[A-Za-z0-9!#$&+\-.^_`|~*]/.test(text[i])) i++;
      const name = text.slice(start, i).toLowerCase();
      if (name === '') return fail('expected a parameter name');
      skipSpace();
      let value = null;
      let quoted = false;
      if (text[i] === '=') {
        i++;
        skipSpace();
        if (text[i] === '"') {
          let v = '';
          i++;
          while (i < n && text[i] !== '"') {
            if (text[i] === '\\' && i + 1 < n) i++;
            v += text[i++];
          }
          if (i >= n) return fail('unterminated quoted string');
          i++;
          value = v;
          quoted = true;
        } else {
          const s = i;
          while (i < n && text[i] !== ',' && text[i] !== ';' && !/\s/.test(text[i])) i++;
          value = text.slice(s, i);
        }
      }
      link.attributes.push([name, value, quoted]);
    }
    links.push(link);
    if (i < n) i++; // the ','
  }
  return { links, error: null };
}

/**
 * A tree of the links' paths: {name, path, links: [], children: Map}. Targets that are absolute
 * paths are placed by their segments; a target with a scheme (another host) goes under a node of
 * its own named after the URI; a relative reference is resolved against /.well-known/core
 * (RFC 6690 §2.1, RFC 3986 §5.2).
 */
export function linkTree(links) {
  const root = { name: '/', path: '/', links: [], children: new Map() };
  for (const link of links) {
    let node;
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(link.target)) {
      node = child(root, link.target, link.target);
    } else {
      const path = link.target.startsWith('/') ? link.target : `/.well-known/${link.target}`;
      const clean = path.split('?')[0];
      node = root;
      let prefix = '';
      for (const segment of clean.split('/').slice(1)) {
        prefix += `/${segment}`;
        node = child(node, segment === '' ? '/' : segment, prefix);
      }
    }
    node.links.push(link);
  }
  return root;
}

function child(node, name, path) {
  let c = node.children.get(name);
  if (!c) {
    c = { name, path, links: [], children: new Map() };
    node.children.set(name, c);
  }
  return c;
}

/** The parameter as sent: 'rt="temperature"', 'ct=0', or 'obs' for one without value. */
export function attributeText([name, value, quoted]) {
  if (value === null) return name;
  return quoted ? `${name}="${value.replace(/[\\"]/g, '\\$&')}"` : `${name}=${value}`;
}
