// A small live line chart of numeric notifications, drawn as SVG (DOM nodes, no inline styles,
// so the page's Content-Security-Policy needs nothing more than 'self').

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 320;
const HEIGHT = 90;
const PAD = 4;
/** Left of this the min and max labels; right of it the line. */
const PLOT_LEFT = 58;
/** Points kept: the chart shows the latest ones. */
export const MAX_POINTS = 120;

/** The number a payload states, or null: a plain decimal number, nothing else (no units). */
export function numericValue(text) {
  const t = text.trim();
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) && Number.isFinite(Number(t)) ? Number(t) : null;
}

export class LiveChart {
  constructor() {
    this.values = [];
    this.element = document.createElementNS(SVG, 'svg');
    this.element.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    this.element.setAttribute('class', 'chart');
    this.element.setAttribute('role', 'img');
    this.line = document.createElementNS(SVG, 'polyline');
    this.line.setAttribute('class', 'chart-line');
    this.minLabel = label(PAD, HEIGHT - PAD);
    this.maxLabel = label(PAD, PAD + 9);
    this.element.append(this.line, this.minLabel, this.maxLabel);
    this.draw();
  }

  add(value) {
    this.values.push(value);
    if (this.values.length > MAX_POINTS) this.values.shift();
    this.draw();
  }

  draw() {
    const v = this.values;
    const min = Math.min(...v);
    const max = Math.max(...v);
    const span = max - min || 1;
    const step = v.length > 1 ? (WIDTH - PLOT_LEFT - PAD) / (v.length - 1) : 0;
    const points = v.map((y, i) => {
      const px = PLOT_LEFT + i * step;
      const py = HEIGHT - PAD - 3 - ((y - min) / span) * (HEIGHT - 2 * PAD - 12);
      return `${px.toFixed(1)},${py.toFixed(1)}`;
    });
    this.line.setAttribute('points', points.join(' '));
    this.minLabel.textContent = v.length ? `min ${min}` : '';
    this.maxLabel.textContent = v.length ? `max ${max}` : '';
    // The values in text for screen readers and tests; the chart itself is a picture of them.
    this.element.setAttribute('aria-label', `${v.length} values: ${v.join(', ')}`);
    this.element.dataset.values = v.join(' ');
  }
}

function label(x, y) {
  const t = document.createElementNS(SVG, 'text');
  t.setAttribute('x', String(x));
  t.setAttribute('y', String(y));
  t.setAttribute('class', 'chart-label');
  return t;
}
