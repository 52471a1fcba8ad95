// ESLint for the pages' ES modules (static/js, no build step): `bash scripts/arbitre.sh lint`, and
// before the tests in `bash scripts/arbitre.sh test`. CommonJS, so it loads on any Node that ESLint 9
// supports without "type": "module" in package.json.
const js = require("@eslint/js");
const globals = require("globals");
const importX = require("eslint-plugin-import-x");

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
    // No import circle between the pages' modules (issue 30): a module that needs another's pieces
    // imports them from a third that both share. A dynamic `import("./x.js")` counts as an edge too:
    // a module loaded on demand is still a module whose pieces must come from below it.
    plugins: { "import-x": importX },
    settings: { "import-x/resolver-next": [importX.createNodeResolver()] },
    // `named`: a piece moved to another module is imported from where it now is.
    rules: { "import-x/no-cycle": "error", "import-x/named": "error" },
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
