// ESLint's flat config for every tracked *.js file (tests/static/eslint_check.sh runs it
// from the source root, with the packages package-lock.json pins): the recommended rules,
// and no line over 120 columns. The console (server/http/console/) is ES modules in the
// browser; every other file is a CommonJS script for Node (the tests' validators and
// browser drivers, the bench).
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: { "max-len": ["error", { code: 120 }] },
  },
  {
    files: ["server/http/console/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["**/*.js"],
    ignores: ["server/http/console/**"],
    languageOptions: { ecmaVersion: 2022, sourceType: "commonjs", globals: { ...globals.node } },
  },
];
