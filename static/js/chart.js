// Every chart the pages draw (the results page's numbers over a game, the Grand Jeu's totals round by
// round): lines of numbers over steps, as an inline SVG that scales with its box. The caller gives
// what differs: the scale and its ticks, the labels under the steps, each series' points, class,
// style and dash, and a label that makes the picture readable on its own (without one, the picture is
// hidden from screen readers: the page says the same in words). Colours come from the page's CSS,
// through each series' `--series`.
import { adopt } from "./ui.js";

const SVG_NS = "http://www.w3.org/2000/svg";

// An SVG element with its attributes (null, false and "" leave one out) and children (as `h`'s).
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false && value !== "") el.setAttribute(key, value);
  }
  return adopt(el, children);
}

// `steps`: the x axis runs from step 0 to this one. `low`, `high`: the y axis's ends, `ticks` the
// values given a grid line (0's is the axis, `chart-zero`). `labels`: `{at, text, anchor, class}`
// under the steps. `series`: `{attrs, dash, points: [{at, value, title, dot}]}` (a point draws a dot
// unless `dot` is false; `title` is its tooltip).
export function lineChart({ width, height, pad, steps, low, high, ticks, labels, series, dot = 3.5, label = null }) {
  const x = (at) => pad.left + (steps ? (at * (width - pad.left - pad.right)) / steps : 0);
  const y = (value) => pad.top + ((height - pad.top - pad.bottom) * (high - value)) / (high - low);
  const grid = ticks.map((value) => svg("g", { class: value === 0 ? "chart-tick chart-zero" : "chart-tick" },
    svg("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value) }),
    svg("text", { x: pad.left - 6, y: y(value) + 4, "text-anchor": "end" }, value)));
  const axis = svg("g", { class: "chart-axis" }, labels.map((tick) =>
    svg("text", { x: x(tick.at), y: height - pad.bottom + 20, "text-anchor": tick.anchor ?? "middle", class: tick.class }, tick.text)));
  const lines = series.map(({ attrs, dash = null, points }) => svg("g", { ...attrs, class: `chart-series ${attrs.class ?? ""}`.trim() },
    svg("polyline", { points: points.map((p) => `${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(" "),
      class: "chart-line", "stroke-dasharray": dash }),
    points.filter((p) => p.dot !== false).map((p) => svg("circle", { cx: x(p.at).toFixed(1), cy: y(p.value).toFixed(1), r: dot,
      class: "chart-point" }, p.title ? svg("title", {}, p.title) : null))));
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: label ? "img" : null, "aria-label": label,
    "aria-hidden": label ? null : "true" }, label ? svg("title", {}, label) : null, grid, axis, lines);
}
