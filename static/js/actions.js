// What the engine says may be done now, read the same way by every game's page: the actions of
// `state.actions`, recorded with what the table supplies, and the answers of the engine's checks.

// The listed actions of this type (for this player, if given): a button exists only for them.
export function actionsOf(state, type, player) {
  return state.actions.filter((action) => action.type === type && (player === undefined || action.player === player));
}

// Records an action as the engine listed it, plus what the table supplies (a die, cards).
export function record(ctx, { type, ...fixed }, supplied = {}) {
  return ctx.send(type, { ...fixed, ...supplied });
}

// A page's memory of the engine's checks: `answerTo(ctx, state, name, params)` is the answer about
// the table as it is now, undefined while it is being asked (a redraw follows), null if the check
// failed (not asked again until the state or the params change).
export function checkAnswers() {
  const answers = {};
  return function answerTo(ctx, state, name, params) {
    const question = JSON.stringify([state, params]);
    if (answers[name]?.question === question) return answers[name].answer;
    answers[name] = { question, answer: undefined };
    ctx.check(name, params).catch(() => null).then((answer) => {
      if (answers[name].question !== question) return; // the table or the draft moved on meanwhile
      answers[name].answer = answer ?? null;
      ctx.render();
    });
    return undefined;
  };
}
