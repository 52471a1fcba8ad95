// The results page: the chart of each player's number over the game (an inline SVG drawn from the
// series the server computed by replaying the log), and sharing (the Web Share API, else copying
// the link) and printing. The outcome and the story are rendered by the server.
import { isolate, loadCatalogue, t } from "./i18n.js";
import { h, fill, toast } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
const data = JSON.parse(document.getElementById("results-data").textContent);
const W = 340;
const H = 200;
const PAD = { left: 30, right: 12, top: 12, bottom: 26 };

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  el.append(...children);
  return el;
}

// Whole numbers from 0 to the highest value, at most about 5 of them.
function ticks(top) {
  const step = Math.max(1, Math.ceil(top / 5));
  const found = [];
  for (let v = 0; v <= top; v += step) found.push(v);
  if (found[found.length - 1] !== top) found.push(top);
  return found;
}

function drawChart({ chart }) {
  const box = document.querySelector("#chart .chart-box");
  const legend = document.querySelector("#chart .chart-legend");
  const points = chart.points;
  const values = points.flatMap((p) => Object.values(p.scores)).filter((v) => typeof v === "number");
  const low = Math.min(0, ...values);
  const top = Math.max(1, ...values);
  const x = (i) => PAD.left + (points.length > 1 ? (i * (W - PAD.left - PAD.right)) / (points.length - 1) : 0);
  const y = (v) => H - PAD.bottom - ((v - low) * (H - PAD.top - PAD.bottom)) / (top - low);
  const grid = ticks(top).map((v) => svg("g", { class: "chart-tick" },
    svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
    svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, String(v))));
  const first = points[0] ? t(points[0].label.code, points[0].label.params) : "";
  const last = points.length > 1 ? t(points[points.length - 1].label.code, points[points.length - 1].label.params) : "";
  const axis = svg("g", { class: "chart-axis" },
    svg("text", { x: PAD.left, y: H - 6, "text-anchor": "start" }, first),
    svg("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end" }, last));
  const lines = chart.players.map((player, n) => {
    const kept = points.map((p, i) => [i, p.scores[player.id]]).filter(([, v]) => typeof v === "number");
    const path = kept.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    return svg("g", { class: `chart-series series-${n % 6}`, "data-player": player.id },
      svg("polyline", { points: path, fill: "none" }),
      ...kept.map(([i, v]) => svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3 },
        svg("title", {}, `${isolate(player.name)} · ${t(points[i].label.code, points[i].label.params)} · ${v}`))));
  });
  box.replaceChildren(svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", "aria-hidden": "true" }, ...grid, axis, ...lines));
  fill(legend, chart.players.map((player, n) => {
    const final = points.length ? points[points.length - 1].scores[player.id] : null;
    return h("li", { class: `series-${n % 6}` }, h("span", { class: "swatch", "aria-hidden": "true" }),
      h("span", { class: "legend-name" }, player.name), h("span", { class: "legend-value" }, final ?? "–"));
  }));
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    toast(t("ui.results.copied"), "ok");
  } catch {
    window.prompt(t("ui.results.copy"), location.href); // no clipboard (an insecure origin): show it to copy by hand
  }
}

await loadCatalogue();
drawChart(data);
const share = document.getElementById("share");
if (navigator.share) {
  share.hidden = false;
  share.addEventListener("click", () => navigator.share({ title: document.title, text: t("ui.results.share_text"), url: location.href }).catch(() => {}));
}
document.getElementById("copy").addEventListener("click", copyLink);
document.getElementById("print").addEventListener("click", () => window.print());
