// Follows a table live through server-sent events; EventSource reconnects by itself.

export function follow(code, onAnswer, statusEl) {
  let source = null;
  let lastAt = null;
  const show = (ok) => {
    if (!statusEl) return;
    statusEl.className = `sync ${ok ? "ok" : "off"}`;
    statusEl.textContent = ok ? "en direct" : lastAt ? `hors ligne — vu à ${lastAt.toLocaleTimeString("fr-FR")}` : "hors ligne";
    statusEl.dataset.live = ok ? "1" : "0";
  };
  const open = () => {
    source = new EventSource(`/api/tables/${code}/stream`);
    source.addEventListener("state", (message) => {
      lastAt = new Date();
      show(true);
      onAnswer(JSON.parse(message.data));
    });
    source.onopen = () => show(true);
    source.onerror = () => show(false);
  };
  open();
  return () => source && source.close();
}
