// Follows a table live through server-sent events, and says how fresh the picture is when the
// network drops; reconnects by itself (EventSource retries, and a closed stream is reopened). A
// finished table's rematch comes as its own event, passed on to the page as `arbitre:rematch`.
import { lang, t } from "./i18n.js";

export function follow(code, onAnswer, statusEl, { lastAt = null } = {}) {
  let source = null;
  let retry = null;
  const show = (ok) => {
    if (!statusEl) return;
    statusEl.className = `sync ${ok ? "ok" : "off"}`;
    statusEl.dataset.live = ok ? "1" : "0";
    if (ok) { statusEl.textContent = t("ui.shell.live.on"); return; }
    if (!lastAt) { statusEl.textContent = t("ui.shell.live.off"); return; }
    const minutes = Math.floor((Date.now() - lastAt.getTime()) / 60000);
    const time = lastAt.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
    statusEl.textContent = minutes >= 1 ? t("ui.shell.live.off_since_ago", { time, minutes }) : t("ui.shell.live.off_since", { time });
  };
  const open = () => {
    clearTimeout(retry);
    source?.close();
    source = new EventSource(`/api/tables/${code}/stream`);
    source.addEventListener("state", (message) => {
      lastAt = new Date();
      show(true);
      onAnswer(JSON.parse(message.data), lastAt);
    });
    source.addEventListener("rematch", (message) => {
      document.dispatchEvent(new CustomEvent("arbitre:rematch", { detail: JSON.parse(message.data) }));
    });
    source.onopen = () => show(true);
    source.onerror = () => {
      show(false);
      if (source.readyState === EventSource.CLOSED) retry = setTimeout(open, 3000);
    };
  };
  addEventListener("online", open);
  // The phone knows it lost the network before the stream notices: say so at once.
  addEventListener("offline", () => { source?.close(); show(false); });
  setInterval(() => { if (statusEl?.dataset.live === "0") show(false); }, 30000); // keep "n min ago" true
  show(false);
  open();
  return () => source?.close();
}
