"""The web layer: the blueprints (API, pages, rules, calendar, OpenAPI), the one error path, the
headers, the limits and the languages."""
