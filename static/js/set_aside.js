// The referee page's taps set aside while syncing (sync.js): those the rules turned down after
// another phone wrote (the rule says why: seen, and dropped), and those that would have meant
// something else on the table as it is now (a rebase never changes a tap's meaning without asking):
// each shows what it was, in the engine's words, and what happened in between, for the referee to
// keep (sent as it is on the table as it is) or drop. Words from the catalogue, in the page's language.
import { fill, h } from "./ui.js";
import { t } from "./i18n.js";

// A tap in words: the engine's, kept with it when it was tapped; else its raw fields.
function tapWords(op) {
  const said = op.said ? t(op.said.code, op.said.params) : null;
  if (op.kind === "undo") return said ? t("ui.sync.undo_of", { said }) : t("ui.sync.undo");
  if (said) return said;
  const { type, ...params } = op.event || {};
  return `${type} ${JSON.stringify(params)}`;
}

function missedList(entry) {
  if (!entry.missed?.length) return h("p", { class: "hint" }, t("ui.sync.missed_unknown"));
  return [
    h("p", { class: "hint" }, t("ui.sync.missed")),
    h("ul", { class: "missed" }, entry.missed.map(({ said, undone }) => {
      const words = t(said.code, said.params);
      return h("li", { "data-missed": "" }, undone ? t("ui.sync.undone", { said: words }) : words);
    })),
  ];
}

function entryCard(entry, table, wording, refused) {
  const changed = entry.changed && !entry.error;
  const keep = changed && entry.op.kind === "event"
    ? h("button", { type: "button", class: "primary", onclick: async () => {
      const result = await table.keep(entry.seq);
      if (!result.ok && result.error) refused(result.error);
    } }, t("ui.sync.keep"))
    : null;
  return h("div", { class: "set-aside", "data-rejected": entry.op.id },
    h("p", { class: "set-aside-tap", "data-said": "" }, tapWords(entry.op)),
    changed ? missedList(entry) : h("div", { class: "rejected-reason" }, wording(entry.error)),
    !changed && entry.error?.rule ? h("a", { href: entry.error.rule, class: "rule-link" }, t("ui.shell.see_rule")) : null,
    h("div", { class: "row" }, keep,
      h("button", { type: "button", class: "secondary", onclick: () => table.dismiss(entry.seq) },
        t(changed ? "ui.sync.drop" : "ui.sync.seen"))));
}

// Draws the set-aside taps of `table` into `root` (nothing when there are none). `wording(error)`
// words a refusal; `refused(error)` shows one (a tap kept that the rules refuse now).
export function drawSetAside(root, table, wording, refused) {
  if (!table.rejected.length) {
    fill(root);
    return;
  }
  const anyChanged = table.rejected.some((entry) => entry.changed && !entry.error);
  fill(root, h("section", { class: "card rejected", "aria-labelledby": "set-aside-title" },
    h("h2", { id: "set-aside-title" }, t("ui.sync.set_aside_title")),
    h("p", { class: "hint" }, t(anyChanged ? "ui.sync.set_aside_hint" : "ui.sync.refused_hint")),
    table.rejected.map((entry) => entryCard(entry, table, wording, refused))));
}
