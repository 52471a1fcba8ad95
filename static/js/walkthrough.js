// The first-run walkthrough: three screens on the home page (what Arbitre does; one phone
// referees, the others scan the QR; offline and installable), shown once on a phone's first visit,
// remembered in localStorage, skippable, and reopened from the home page's link. The screens are
// rendered by the server in the page's language (home.html); this module only pages through them.
// A modal <dialog>: focus moves into it, Escape skips it, and it is named by its current heading.

const KEY = "arbitre.walkthrough";

export function seen() {
  try { return localStorage.getItem(KEY) === "seen"; } catch { return true; }
}

function remember() {
  try { localStorage.setItem(KEY, "seen"); } catch { /* private mode: it may show again */ }
}

export function walkthrough(dialog) {
  const steps = [...dialog.querySelectorAll("[data-step]")];
  const dots = [...dialog.querySelectorAll(".walkthrough-dots span")];
  const button = (name) => dialog.querySelector(`[data-walkthrough=${name}]`);
  let current = 0;

  function show(index, focus = true) {
    current = Math.max(0, Math.min(index, steps.length - 1));
    steps.forEach((step, i) => { step.hidden = i !== current; });
    dots.forEach((dot, i) => dot.classList.toggle("on", i === current));
    const last = current === steps.length - 1;
    button("back").hidden = current === 0;
    button("next").hidden = last;
    button("done").hidden = !last;
    dialog.dataset.step = current + 1;
    dialog.setAttribute("aria-labelledby", `walkthrough-title-${current + 1}`);
    dialog.setAttribute("aria-describedby", `walkthrough-text-${current + 1}`);
    if (focus) steps[current].querySelector("h2").focus(); // a screen reader reads the new screen
  }

  function close() {
    remember();
    if (dialog.open) dialog.close();
  }

  button("skip").addEventListener("click", close);
  button("done").addEventListener("click", close);
  button("next").addEventListener("click", () => show(current + 1));
  button("back").addEventListener("click", () => show(current - 1));
  dialog.addEventListener("close", remember); // Escape closes it too: skipped, not to come back
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") show(current + 1);
    else if (event.key === "ArrowLeft") show(current - 1);
  });

  return function open() {
    show(0, false);
    dialog.showModal();
    steps[0].querySelector("h2").focus();
  };
}
