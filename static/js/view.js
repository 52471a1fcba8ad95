// The table view the QR code opens: read-only, redrawn live on every referee tap.
import { follow } from "./live.js";
import { recall, remember } from "./tables.js";

const app = document.getElementById("app");
const { code, game, player } = app.dataset;
let answer = JSON.parse(document.getElementById("initial").textContent);
const module = await import(`./games/${game}.js`);

if (!recall(code)?.secret) remember(code, { game, role: "follower" });

// The same page shows one player's own page when it names a player (games that have one).
function render() {
  if (player && module.player) module.player(app, answer.state, { code, player });
  else module.view(app, answer.state, { code });
}

render();
follow(code, (fresh) => {
  if (fresh.version >= answer.version) {
    answer = fresh;
    render();
  }
}, document.getElementById("sync"));
