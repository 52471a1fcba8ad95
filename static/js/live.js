// Follows a table live through server-sent events, and says how fresh the picture is when the
// network drops; reconnects by itself (EventSource retries, and a closed stream is reopened).

export function follow(code, onAnswer, statusEl, { lastAt = null } = {}) {
  let source = null;
  let retry = null;
  const show = (ok) => {
    if (!statusEl) return;
    statusEl.className = `sync ${ok ? "ok" : "off"}`;
    statusEl.dataset.live = ok ? "1" : "0";
    if (ok) { statusEl.textContent = "en direct"; return; }
    if (!lastAt) { statusEl.textContent = "hors ligne"; return; }
    const minutes = Math.floor((Date.now() - lastAt.getTime()) / 60000);
    const time = lastAt.toLocaleTimeString("fr-FR", { hour: "2-digit", minute: "2-digit" });
    statusEl.textContent = `hors ligne · état de ${time}${minutes >= 1 ? ` (il y a ${minutes} min)` : ""}`;
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
    source.onopen = () => show(true);
    source.onerror = () => {
      show(false);
      if (source.readyState === EventSource.CLOSED) retry = setTimeout(open, 3000);
    };
  };
  addEventListener("online", open);
  // The phone knows it lost the network before the stream notices: say so at once.
  addEventListener("offline", () => { source?.close(); show(false); });
  setInterval(() => { if (statusEl?.dataset.live === "0") show(false); }, 30000); // keep "il y a n min" true
  show(false);
  open();
  return () => source?.close();
}
