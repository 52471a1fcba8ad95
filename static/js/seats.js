// The referee's "give a player their seat" dialog: per player of the table, whether their seat is
// given (the table's `seats`, read when the dialog opens: given from this phone or another), a QR
// that opens their own page with their player's secret, take the seat back, or give it again (a new
// secret: the phone that held it stops recording at once).
// The player's secret travels in the URL's fragment, which browsers never send to a server: the QR
// is drawn on this phone by the engine worker, never by a server route. The secrets this phone gave
// are kept on it (tables.js `given`), so a seat's QR shows again without a new secret.
import { api } from "./api.js";
import { fill, h, toast } from "./ui.js";
import { give, given } from "./tables.js";
import { t } from "./i18n.js";
import { age } from "./ui.js";

// A seat's link: the player's own page, the secret in the fragment.
export function seatUrl(code, player, secret) {
  return `${location.origin}/t/${code}/p/${player}#s=${encodeURIComponent(secret)}`;
}

export function seatsDialog({ code, secret, table, wording }) {
  const dialog = document.getElementById("seats-dialog");
  const body = dialog.querySelector(".body");
  let shown = null; // the player whose QR is on screen, else the list
  let held = {}; // the seats the server says are given ({player id: true}), as read on opening
  let changes = 0; // seats given or taken back from this dialog: a read begun before one is stale

  async function ask(work) {
    try {
      return await work();
    } catch (error) {
      toast(wording(error), "error");
      return null;
    }
  }

  async function giveSeat(player) {
    changes += 1;
    const answer = await ask(() => api.giveSeat(code, secret, player));
    if (!answer) return;
    give(code, player, answer.secret);
    held[player] = true;
    shown = player;
    draw();
  }

  async function takeBack(player) {
    changes += 1;
    const answer = await ask(async () => { await api.takeSeat(code, secret, player); return true; });
    if (!answer) return;
    give(code, player, null);
    delete held[player];
    shown = null;
    draw();
    toast(t("ui.seats.taken_back", { name: nameOf(player) }), "info");
  }

  const nameOf = (player) => table.view.players.find((p) => p.id === player)?.name ?? player;

  // A seat given from this phone shows its QR again; one given from another phone can be taken
  // back or given anew (its secret never left that phone).
  function seatRow(p, seats) {
    const here = seats[p.id];
    const given = Boolean(here || held[p.id]);
    const status = here ? t("ui.seats.given", { when: age(here.at) }) : given ? t("ui.seats.given_elsewhere") : t("ui.seats.free");
    return h("li", { class: `seat-row${given ? " given" : ""}`, "data-seat-of": p.id, "data-given": String(given) },
      h("div", { class: "seat-row-head" },
        h("strong", { class: "player-name" }, p.name),
        h("span", { class: `pill${given ? " dealer" : ""}`, "data-seat-status": here ? "given" : given ? "elsewhere" : "free" }, status)),
      h("div", { class: "row seat-row-tools" },
        here ? h("button", { type: "button", class: "primary", "data-seat-action": "qr", onclick: () => { shown = p.id; draw(); } },
          t("ui.seats.show_qr")) : null,
        given && !here ? h("button", { type: "button", class: "primary", "data-seat-action": "give", onclick: () => giveSeat(p.id) },
          t("ui.seats.give_again")) : null,
        given ? h("button", { type: "button", class: "secondary", "data-seat-action": "take-back", onclick: () => takeBack(p.id) },
          t("ui.seats.take_back")) : null,
        given ? null : h("button", { type: "button", class: "primary", "data-seat-action": "give", onclick: () => giveSeat(p.id) },
          t("ui.seats.give"))));
  }

  async function qrOf(player, seats) {
    const url = seatUrl(code, player, seats[player].secret);
    const drawn = await table.qr(url).catch((error) => ({ error }));
    if (shown !== player) return; // another seat or the list was asked meanwhile
    const picture = h("div", { class: "qr" });
    if (drawn.svg) picture.innerHTML = drawn.svg; // drawn by our own engine worker from a URL, not user HTML
    fill(body,
      h("h2", { id: "seat-dialog-title" }, t("ui.seats.qr_title", { name: nameOf(player) })),
      h("p", { class: "hint" }, t("ui.seats.qr_hint", { name: nameOf(player) })),
      drawn.svg ? picture : h("p", { class: "error" }, wording(drawn.error)),
      h("a", { href: url, id: "seat-url", class: "muted qr-url", "data-seat-url": player }, url),
      h("div", { class: "row seat-row-tools" },
        h("button", { type: "button", class: "secondary", "data-seat-action": "again", onclick: () => giveSeat(player) },
          t("ui.seats.give_again")),
        h("button", { type: "button", class: "secondary", "data-seat-action": "list", onclick: () => { shown = null; draw(); } },
          t("ui.seats.back"))));
  }

  function draw() {
    const seats = given(code);
    if (shown && seats[shown]) {
      qrOf(shown, seats);
      return;
    }
    shown = null;
    fill(body,
      h("h2", { id: "seat-dialog-title" }, t("ui.seats.title")),
      h("p", { class: "hint" }, t("ui.seats.hint")),
      h("ul", { class: "seat-list", id: "seat-list" }, table.view.players.map((p) => seatRow(p, seats))));
  }

  // Which seats are given, as the table says now (one read when the dialog opens); the secrets this
  // phone kept for seats no longer given (taken back from another phone) are forgotten.
  async function read() {
    const before = changes;
    const answer = await api.getTable(code).catch(() => null);
    if (!answer?.seats || changes !== before) return;
    held = answer.seats;
    for (const player of Object.keys(given(code))) if (!held[player]) give(code, player, null);
    if (!shown) draw();
  }

  return () => {
    document.getElementById("more-dialog").close();
    shown = null;
    draw();
    dialog.showModal();
    read();
  };
}
