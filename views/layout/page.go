// Package layout holds the base HTML document every page renders inside.
package layout

import "strings"

// Theme is the colour scheme a page asks for.
type Theme string

// Themes. ThemeSystem follows the visitor's OS preference.
const (
	ThemeSystem Theme = "system"
	ThemeLight  Theme = "light"
	ThemeDark   Theme = "dark"
)

// ParseTheme reads a theme from user input ("light", "dark", "system");
// anything else is ThemeSystem.
func ParseTheme(s string) Theme {
	switch Theme(strings.ToLower(strings.TrimSpace(s))) {
	case ThemeLight:
		return ThemeLight
	case ThemeDark:
		return ThemeDark
	}
	return ThemeSystem
}

// htmlClass is the class on <html> that tailwind.config.js's dark variant
// keys on: "dark" forces dark, "light" forces light, none follows the OS.
func (t Theme) htmlClass() string {
	switch t {
	case ThemeLight:
		return "light"
	case ThemeDark:
		return "dark"
	}
	return ""
}

// Page is the layout's view model: what the document around a page needs.
type Page struct {
	Title       string // the page's own title; the document title is "Title · Relink"
	Description string // meta description; empty: none
	Lang        string // html lang; empty: "en"
	Theme       Theme  // empty: ThemeSystem
	NoIndex     bool   // ask search engines not to index (embed, console)
	// BodyClass replaces the body's classes (background and text colours);
	// empty: the default. The embed sets a transparent body so the host
	// page shows through (spec/partners-and-embed.md §6.9).
	BodyClass string
}

// DefaultBodyClass is the body's classes when Page.BodyClass is empty.
const DefaultBodyClass = "min-h-screen bg-gray-50 text-gray-900 antialiased dark:bg-gray-950 dark:text-gray-100"

func (p Page) bodyClass() string {
	if p.BodyClass == "" {
		return DefaultBodyClass
	}
	return p.BodyClass
}

func (p Page) lang() string {
	if p.Lang == "" {
		return "en"
	}
	return p.Lang
}

func (p Page) documentTitle() string {
	if p.Title == "" {
		return "Relink"
	}
	return p.Title + " · Relink"
}

// htmxConfig turns off what the CSP forbids: htmx's injected indicator
// <style> (replaced by rules in views/styles/input.css) and eval (hx-on,
// js: values), which would need 'unsafe-eval'.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false}`
