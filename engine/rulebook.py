"""Which section of the app's short rules explains each refusal: a refusal names its rule.

The rules pages (``/rules/<game>``, `companion.web.rules`) have a stable anchor per section; a refusal's
code maps here to its ``(game, anchor)``, and `engine.messages.refusal` adds the link as ``rule``, so
a refusal made by the phone's own engine (offline) points to its rule exactly as the server's does.
"""

from __future__ import annotations

# Error code -> (game, anchor). A key ending in "*" covers every code starting with what precedes it;
# the exact code wins, then the longest prefix. Codes shared by every game (bad_json, unknown_player,
# game_over…) say what is malformed rather than which rule forbids it: they have no rule.
RULES: dict[str, tuple[str, str]] = {
    # Il Morto
    "morto.dealer_may_touch": ("morto", "touch"),
    "morto.dead_cannot_touch": ("morto", "touch"),
    "morto.not_dealt": ("morto", "touch"),
    "morto.dealer_may_speak": ("morto", "dead"),
    "morto.speaker_is_dead": ("morto", "dead"),
    "morto.listener_is_alive": ("morto", "dead"),
    "morto.same_player": ("morto", "dead"),
    "morto.bad_cards": ("morto", "reveal"),
    "morto.missing_cards": ("morto", "reveal"),
    "morto.card_not_dealt": ("morto", "reveal"),
    "morto.bad_rank": ("morto", "cards"),
    "morto.too_many_of_rank": ("morto", "cards"),
    "morto.cards_or_lowest": ("morto", "reveal"),
    "morto.bad_lowest": ("morto", "reveal"),
    "morto.named_twice": ("morto", "reveal"),
    "morto.too_many_lowest": ("morto", "reveal"),
    "morto.bad_face_up": ("morto", "swap"),
    "morto.swap.*": ("morto", "swap"),
    # Le jeu existentiel
    "existentiel.no_players": ("existentiel", "players"),
    "existentiel.bad_birth_month": ("existentiel", "players"),
    "existentiel.table_full": ("existentiel", "players"),
    "existentiel.join_while_assigning": ("existentiel", "players"),
    "existentiel.bad_titles": ("existentiel", "adventures"),
    "existentiel.bad_title": ("existentiel", "adventures"),
    "existentiel.player_left": ("existentiel", "adventures"),
    "existentiel.must_roll_first": ("existentiel", "landing"),
    "existentiel.already_offered": ("existentiel", "accept"),
    "existentiel.already_current": ("existentiel", "accept"),
    "existentiel.player_eliminated": ("existentiel", "jokers"),
    "existentiel.adventures_underway": ("existentiel", "rendezvous"),
    "existentiel.bad_rendezvous": ("existentiel", "rendezvous"),
    "existentiel.bad_place": ("existentiel", "rendezvous"),
    "existentiel.validate_while_assigning": ("existentiel", "validate"),
    "existentiel.nothing_to_validate": ("existentiel", "validate"),
    # Le Grand Jeu de la Vie: the score sheet
    "gjdlv.bad_card": ("gjdlv", "cards"),
    "gjdlv.gf_must_be_red": ("gjdlv", "cards"),
    "gjdlv.gm_must_be_black": ("gjdlv", "cards"),
    "gjdlv.faces_need_abondantes": ("gjdlv", "cards"),
    "gjdlv.duplicate_card": ("gjdlv", "cards"),
    "gjdlv.card_already_recorded": ("gjdlv", "cards"),
    "gjdlv.imperial_needs_royal": ("gjdlv", "fecundation"),
    "gjdlv.steal_from_self": ("gjdlv", "royal"),
    "gjdlv.no_queen_take": ("gjdlv", "royal"),
    "gjdlv.nothing_to_steal": ("gjdlv", "royal"),
    "gjdlv.bad_gms": ("gjdlv", "ejaculation"),
    "gjdlv.bad_against": ("gjdlv", "bonuses"),
    # … the round played through
    "gjdlv.play.*": ("gjdlv", "round"),
    "gjdlv.play.seen.*": ("gjdlv", "cards"),
    "gjdlv.play.surrogate_own": ("gjdlv", "surrogacy"),
    "gjdlv.play.no_embryo": ("gjdlv", "surrogacy"),
    "gjdlv.play.not_held": ("gjdlv", "ejaculation"),
    "gjdlv.play.own_gf": ("gjdlv", "ejaculation"),
    "gjdlv.play.contest_answered": ("gjdlv", "ejaculation"),
    "gjdlv.play.nothing_to_answer": ("gjdlv", "abortion"),
    "gjdlv.play.nothing_to_abort": ("gjdlv", "abortion"),
    "gjdlv.play.answer_own": ("gjdlv", "abortion"),
    "gjdlv.play.abort_card": ("gjdlv", "abortion"),
    "gjdlv.play.abort_card_or_jack": ("gjdlv", "abortion"),
    "gjdlv.play.cancel_card": ("gjdlv", "bonuses"),
    "gjdlv.play.no_removal": ("gjdlv", "royal"),
    "gjdlv.play.remove_own": ("gjdlv", "royal"),
    "gjdlv.play.round_goes_on": ("gjdlv", "last-lap"),
    # … and the checks (their refusals, and their answers' codes)
    "gjdlv.check.fecundate_*": ("gjdlv", "fecundation"),
    "gjdlv.check.surrogate_*": ("gjdlv", "surrogacy"),
    "gjdlv.check.abortion_*": ("gjdlv", "abortion"),
    "gjdlv.check.ejaculation_*": ("gjdlv", "ejaculation"),
    "gjdlv.check.bonus_*": ("gjdlv", "bonuses"),
}

_PREFIXES = sorted(
    ((key[:-1], rule) for key, rule in RULES.items() if key.endswith("*")), key=lambda item: -len(item[0])
)


def rule_for(code: str) -> tuple[str, str] | None:
    """The ``(game, anchor)`` of the rule an error code names, or None for a code with no rule."""
    if code in RULES:
        return RULES[code]
    for prefix, rule in _PREFIXES:
        if code.startswith(prefix):
            return rule
    return None


def rule_url(code: str) -> str | None:
    """Where the rule behind ``code`` is explained (``/rules/morto#dead``), or None."""
    rule = rule_for(code)
    return f"/rules/{rule[0]}#{rule[1]}" if rule else None
