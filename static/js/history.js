// The story of the table: every event in words, undone ones shown as such (filled in next).
document.addEventListener("arbitre:table", () => {});
