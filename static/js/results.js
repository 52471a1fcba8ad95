// The results page: the chart of each player's number over the game (chart.js, drawn from the
// series the server computed by replaying the log), a picture of the final scores (a PNG drawn here,
// on a canvas, from what the page shows), and sharing (the Web Share API with the picture and the
// link where the phone can, the link alone where it cannot, else copying the link) and printing.
// The outcome and the story are rendered by the server; nothing here is a rule.
import { isolate, loadCatalogue, t } from "./i18n.js";
import { displayCode, h, fill, toast } from "./ui.js";
import { lineChart } from "./chart.js";

const data = JSON.parse(document.getElementById("results-data").textContent);

// Whole numbers from 0 to the highest value, at most about 5 of them.
function ticks(top) {
  const step = Math.max(1, Math.ceil(top / 5));
  const found = [];
  for (let v = 0; v <= top; v += step) found.push(v);
  if (found[found.length - 1] !== top) found.push(top);
  return found;
}

// The chart (chart.js) and its legend, which says each player's final number. A series' colour and
// dash are its `series-<n>` class's (results.css), the same in the legend.
function drawChart({ chart }) {
  const points = chart.points;
  const values = points.flatMap((p) => Object.values(p.scores)).filter((v) => typeof v === "number");
  const top = Math.max(1, ...values);
  const labelOf = (i) => t(points[i].label.code, points[i].label.params);
  const labels = [
    points[0] ? { at: 0, text: labelOf(0), anchor: "start" } : null,
    points.length > 1 ? { at: points.length - 1, text: labelOf(points.length - 1), anchor: "end" } : null,
  ].filter(Boolean);
  const series = chart.players.map((player, n) => ({
    attrs: { class: `series-${n % 6}`, "data-player": player.id },
    points: points.map((p, i) => ({ at: i, value: p.scores[player.id] })).filter(({ value }) => typeof value === "number")
      .map((p) => ({ ...p, title: `${isolate(player.name)} · ${labelOf(p.at)} · ${p.value}` })),
  }));
  document.querySelector("#chart .chart-box").replaceChildren(lineChart({
    width: 340, height: 200, pad: { left: 30, right: 12, top: 12, bottom: 26 }, steps: points.length - 1,
    low: Math.min(0, ...values), high: top, ticks: ticks(top), labels, series, dot: 3,
  }));
  fill(document.querySelector("#chart .chart-legend"), chart.players.map((player, n) => {
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

// --- the picture of the final scores ----------------------------------------------------------------

const PICTURE = { width: 1080, height: 1080 };
const EDGE = 72; // the picture's margin
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

// The page's own colours (its theme), so the picture looks like what the phone shows.
function colours() {
  const style = getComputedStyle(document.documentElement);
  const get = (name) => style.getPropertyValue(name).trim();
  return { bg: get("--bg"), panel: get("--panel"), ink: get("--ink"), muted: get("--muted"), accent: get("--accent-ink") };
}

// ``text`` cut into lines that fit ``width`` (words kept whole), at most ``most`` of them.
function lines(ctx, text, width, most) {
  const out = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    const tried = line ? `${line} ${word}` : word;
    if (ctx.measureText(tried).width <= width || !line) line = tried;
    else { out.push(line); line = word; }
  }
  if (line) out.push(line);
  return out.length > most ? [...out.slice(0, most - 1), `${out.slice(most - 1).join(" ").slice(0, 60)}…`] : out;
}

function fitted(ctx, text, width) {
  let shown = text;
  while (shown.length > 1 && ctx.measureText(shown).width > width) shown = shown.slice(0, -1);
  return shown === text ? text : `${shown.slice(0, -1)}…`;
}

// The final scores as the page shows them: the game, the verdict, each player's final number (the
// chart's legend, in seating order) with the winners marked, the table's code.
function drawPicture() {
  const canvas = document.createElement("canvas");
  canvas.width = PICTURE.width;
  canvas.height = PICTURE.height;
  const ctx = canvas.getContext("2d");
  const ink = colours();
  const inner = PICTURE.width - 2 * EDGE;
  ctx.fillStyle = ink.bg;
  ctx.fillRect(0, 0, PICTURE.width, PICTURE.height);
  let y = EDGE + 34;
  ctx.fillStyle = ink.muted;
  ctx.font = `600 34px ${FONT}`;
  ctx.fillText(`${t("ui.shell.app_name")} · ${t("ui.ending.results")}`, EDGE, y);
  y += 72;
  ctx.fillStyle = ink.ink;
  ctx.font = `800 60px ${FONT}`;
  ctx.fillText(fitted(ctx, document.querySelector(".results-game").textContent.trim(), inner), EDGE, y);
  ctx.font = `800 46px ${FONT}`;
  ctx.fillStyle = ink.accent;
  for (const line of lines(ctx, `🏆 ${document.querySelector(".results-verdict strong").textContent.trim()}`, inner, 3)) {
    y += 64;
    ctx.fillText(line, EDGE, y);
  }
  y += 64;
  ctx.fillStyle = ink.muted;
  ctx.font = `600 32px ${FONT}`;
  ctx.fillText(fitted(ctx, document.querySelector(".results-measure").textContent.trim(), inner), EDGE, y);
  y += 24;
  const rows = [...document.querySelectorAll("#chart .chart-legend li")];
  const footer = 60;
  const height = Math.min(96, (PICTURE.height - EDGE - footer - y) / Math.max(rows.length, 1));
  const size = Math.round(height * 0.46);
  rows.forEach((row, i) => {
    const top = y + i * height;
    const won = data.winners.includes(data.chart.players[i]?.id);
    ctx.fillStyle = i % 2 ? ink.bg : ink.panel;
    ctx.fillRect(EDGE - 16, top, inner + 32, height);
    ctx.fillStyle = getComputedStyle(row).getPropertyValue("--series").trim() || ink.muted;
    ctx.fillRect(EDGE, top + height * 0.2, 12, height * 0.6);
    const middle = top + height / 2 + size * 0.36;
    ctx.font = `800 ${size}px ${FONT}`;
    const value = row.querySelector(".legend-value").textContent.trim();
    const valueWidth = ctx.measureText(value).width;
    ctx.fillStyle = won ? ink.accent : ink.ink;
    ctx.textAlign = "right";
    ctx.fillText(value, EDGE + inner, middle);
    ctx.textAlign = "left";
    ctx.font = `${won ? 800 : 500} ${size}px ${FONT}`;
    const name = `${won ? "🏆 " : ""}${row.querySelector(".legend-name").textContent.trim()}`;
    ctx.fillText(fitted(ctx, name, inner - valueWidth - 64), EDGE + 32, middle);
  });
  ctx.fillStyle = ink.muted;
  ctx.font = `500 28px ${FONT}`;
  ctx.fillText(fitted(ctx, `${t("ui.results.picture_table", { code: displayCode(data.code) })} · ${location.host}`, inner), EDGE, PICTURE.height - EDGE + 12);
  return canvas;
}

let picture = null;

// The picture as a PNG file, drawn once (as soon as the page is drawn: a share sheet must open
// within the tap's moment, which waiting for a PNG could let pass).
function pictureFile() {
  picture ??= new Promise((resolve, reject) => drawPicture().toBlob((blob) => (blob
    ? resolve(new File([blob], `arbitre-${data.code}.png`, { type: "image/png" }))
    : reject(new Error("no PNG"))), "image/png"));
  return picture;
}

async function downloadPicture() {
  const file = await pictureFile();
  const link = h("a", { href: URL.createObjectURL(file), download: file.name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

// The picture and the link where the phone shares files, the link alone where it shares only
// that, and the link copied where it shares nothing.
async function share() {
  const shared = { title: document.title, text: t("ui.results.share_text"), url: location.href };
  if (navigator.canShare) {
    const withPicture = { ...shared, files: [await pictureFile()] };
    if (navigator.canShare(withPicture)) return navigator.share(withPicture).catch(() => {});
  }
  if (navigator.share) return navigator.share(shared).catch(() => {});
  return copyLink();
}

await loadCatalogue();
drawChart(data);
pictureFile().catch(() => { picture = null; }); // drawn again when asked
document.getElementById("share").addEventListener("click", share);
document.getElementById("picture").addEventListener("click", downloadPicture);
document.getElementById("copy").addEventListener("click", copyLink);
document.getElementById("print").addEventListener("click", () => window.print());
