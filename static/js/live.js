// Follows a table live through server-sent events: every answer the table gives after the version
// the page holds, in order, once — the new state and what that version did (`did`), so the page
// needs no other request after a tap. Each answer is also announced on the document
// (`arbitre:answer`) for the page's chrome (the story panel). Reconnects by itself: a dropped or
// closed stream, or the network coming back, opens a new one from the latest version received, so
// nothing is missed, after a random wait that grows while attempts fail (`reconnectDelay`); and says
// whether it hears the table (`onLive`). A finished table's rematch comes as its own event, passed on
// to the page as `arbitre:rematch`.

// Waits before reconnecting, in milliseconds: attempt n (from 0) waits a random time between 0 and
// min(most, first * 2^n) ("full jitter"). When an instance stops, every phone it served loses its
// stream at the same moment; a fixed wait would bring them all back at the same moment too, each
// time the instance is tried and once more when it is back. Random waits spread them out, and
// growing ones thin out the attempts of a long outage. The count starts again once a stream delivers.
export const RECONNECT = { first: 1000, most: 8000 };

export function reconnectDelay(attempt, random = Math.random) {
  return Math.floor(random() * Math.min(RECONNECT.most, RECONNECT.first * 2 ** attempt));
}

export function follow(code, onAnswer, { since = null, onLive = () => {} } = {}) {
  let source = null;
  let retry = null;
  let held = since;
  let attempts = 0; // reconnections tried since a stream last delivered
  const later = () => {
    clearTimeout(retry);
    retry = setTimeout(open, reconnectDelay(attempts));
    attempts += 1;
  };
  const open = () => {
    clearTimeout(retry);
    source?.close();
    const query = held === null ? "" : `?since=${held}`;
    source = new EventSource(`/api/tables/${code}/stream${query}`);
    source.addEventListener("state", (message) => {
      const answer = JSON.parse(message.data);
      held = Math.max(held ?? 0, answer.version);
      attempts = 0;
      onLive(true);
      document.dispatchEvent(new CustomEvent("arbitre:answer", { detail: answer }));
      onAnswer(answer);
    });
    source.addEventListener("rematch", (message) => {
      document.dispatchEvent(new CustomEvent("arbitre:rematch", { detail: JSON.parse(message.data) }));
    });
    source.onopen = () => onLive(true);
    // EventSource would come back by itself after the server's `retry:`, at the same pace every
    // time: the page reconnects on its own schedule instead, from the latest version it holds.
    source.onerror = () => {
      onLive(false);
      source.close();
      later();
    };
  };
  // A venue's network coming back comes back for every phone at once: a random wait here too.
  addEventListener("online", () => { attempts = 0; later(); });
  // The phone knows it lost the network before the stream notices: say so at once.
  addEventListener("offline", () => { source?.close(); onLive(false); });
  open();
  return () => { clearTimeout(retry); source?.close(); };
}
