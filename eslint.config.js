// ESLint for the pages' ES modules (static/js, no build step): `bash scripts/arbitre.sh lint`, and
// before the tests in `bash scripts/arbitre.sh test`. CommonJS, so it loads on any Node that ESLint 9
// supports without "type": "module" in package.json.
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  {
    // templates/sw.js is a Jinja template, not JavaScript until it is rendered
    // (`const ASSETS = {{ assets | tojson }};` does not parse). mutants/ is mutmut's working copy.
    ignores: ["templates/**", "mutants/**", ".venv/**", "instance/**", "test-results/**", "e2e/artifacts/**"],
  },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: globals.browser,
    },
  },
  {
    files: ["static/js/engine-worker.js"],
    languageOptions: { globals: globals.worker },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
];
