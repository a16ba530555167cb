// Tailwind CSS v3 (pinned in package.json). Built by `make css` into
// static/css/app.css, minified and committed. Only classes that appear in the
// scanned files end up in the CSS, so class names must be written out whole
// in .templ or .go files (never assembled from pieces at run time).
/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ['./views/**/*.templ', './views/**/*.go'],
  // Class-based dark mode that also follows the system: `dark:` utilities
  // apply under <html class="dark">, and under the OS dark preference unless
  // <html class="light"> forces light. The layout sets the class from
  // layout.Theme (light | dark | system), so no script is needed.
  darkMode: [
    'variant',
    [
      '@media (prefers-color-scheme: dark) { &:not(:where(.light, .light *)) }',
      '&:where(.dark, .dark *)',
    ],
  ],
  theme: {
    extend: {},
  },
  plugins: [],
};
