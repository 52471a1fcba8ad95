// Follows a table live through server-sent events: every answer the table gives after the version
// the page holds, in order, once — the new state and what that version did (`did`), so the page
// needs no other request after a tap. Each answer is also announced on the document
// (`arbitre:answer`) for the page's chrome (the story panel). Reconnects by itself (EventSource
// retries; a closed stream, or the network coming back, opens a new one from the latest version
// received, so nothing is missed), and says whether it hears the table (`onLive`). A finished table's
// rematch comes as its own event, passed on to the page as `arbitre:rematch`.
export function follow(code, onAnswer, { since = null, onLive = () => {} } = {}) {
  let source = null;
  let retry = null;
  let held = since;
  const open = () => {
    clearTimeout(retry);
    source?.close();
    const query = held === null ? "" : `?since=${held}`;
    source = new EventSource(`/api/tables/${code}/stream${query}`);
    source.addEventListener("state", (message) => {
      const answer = JSON.parse(message.data);
      held = Math.max(held ?? 0, answer.version);
      onLive(true);
      document.dispatchEvent(new CustomEvent("arbitre:answer", { detail: answer }));
      onAnswer(answer);
    });
    source.addEventListener("rematch", (message) => {
      document.dispatchEvent(new CustomEvent("arbitre:rematch", { detail: JSON.parse(message.data) }));
    });
    source.onopen = () => onLive(true);
    source.onerror = () => {
      onLive(false);
      if (source.readyState === EventSource.CLOSED) retry = setTimeout(open, 3000);
    };
  };
  addEventListener("online", open);
  // The phone knows it lost the network before the stream notices: say so at once.
  addEventListener("offline", () => { source?.close(); onLive(false); });
  open();
  return () => source?.close();
}
