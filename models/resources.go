package models

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
)

// ProgramResources is program.resources (spec/partners-and-embed.md §6.5): what
// the embedded dashboard's Resources tab offers partners to download or copy.
type ProgramResources struct {
	Logos  []ResourceFile  `json:"logos"`
	Colors []ResourceColor `json:"colors"`
	Files  []ResourceFile  `json:"files"`
	Links  []ResourceLink  `json:"links"`
}

// ResourceFile is a brand logo or an additional file.
type ResourceFile struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int64  `json:"size"` // bytes
	URL  string `json:"url"`
}

// ResourceColor is a brand colour.
type ResourceColor struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"` // #rgb or #rrggbb
}

// ResourceLink is a useful link (http, https or mailto).
type ResourceLink struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Empty reports resources with nothing in them.
func (r ProgramResources) Empty() bool {
	return len(r.Logos)+len(r.Colors)+len(r.Files)+len(r.Links) == 0
}

var hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// Validate checks every entry: names present, files on http(s) URLs with a
// size ≥ 0, colours in hex, links http(s) or mailto. It reports the first
// problem with its path.
func (r ProgramResources) Validate() error {
	files := func(kind string, fs []ResourceFile) error {
		for i, f := range fs {
			path := fmt.Sprintf("%s.%d", kind, i)
			if strings.TrimSpace(f.Name) == "" {
				return apierr.Validation("too_small", path+".name", "Name is required.")
			}
			if u, err := url.Parse(f.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return apierr.Validation("invalid_format", path+".url", "Invalid URL")
			}
			if f.Size < 0 {
				return apierr.Validation("too_small", path+".size", "Size cannot be negative.")
			}
		}
		return nil
	}
	if err := files("logos", r.Logos); err != nil {
		return err
	}
	if err := files("files", r.Files); err != nil {
		return err
	}
	for i, c := range r.Colors {
		if !hexColour.MatchString(c.Color) {
			return apierr.Validation("invalid_format", fmt.Sprintf("colors.%d.color", i), "Colors are hex values like #2563eb.")
		}
	}
	for i, l := range r.Links {
		path := fmt.Sprintf("links.%d", i)
		if strings.TrimSpace(l.Name) == "" {
			return apierr.Validation("too_small", path+".name", "Name is required.")
		}
		u, err := url.Parse(l.URL)
		ok := err == nil && ((u.Scheme == "https" || u.Scheme == "http") && u.Host != "" || u.Scheme == "mailto" && u.Opaque != "")
		if !ok {
			return apierr.Validation("invalid_format", path+".url", "Links are http, https or mailto URLs.")
		}
	}
	return nil
}
