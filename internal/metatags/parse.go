package metatags

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// Parse reads the tags of an HTML page fetched from pageURL: every <meta>
// gives property ‖ name ‖ href → content, every <link> rel → href, the first
// of each key winning; then title = og:title ‖ twitter:title ‖ <title> ‖ the
// URL, description = description ‖ og:description ‖ twitter:description ‖
// "No description", image = og:image ‖ twitter:image ‖ image_src ‖ icon ‖
// shortcut icon, resolved by ResolveImage.
func Parse(doc, pageURL string) Tags {
	tags, title := scan(doc)
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := tags[k]; v != "" {
				return v
			}
		}
		return ""
	}
	t := Tags{
		Title:       first("og:title", "twitter:title"),
		Description: first("description", "og:description", "twitter:description"),
		Image:       ResolveImage(pageURL, first("og:image", "twitter:image", "image_src", "icon", "shortcut icon")),
	}
	if t.Title == "" {
		t.Title = title
	}
	if t.Title == "" {
		t.Title = pageURL
	}
	if t.Description == "" {
		t.Description = "No description"
	}
	return t
}

// scan tokenizes the page: meta and link keys (first wins, entities
// decoded by the tokenizer) and the first <title>'s text.
func scan(doc string) (map[string]string, string) {
	tags := map[string]string{}
	title, inTitle, seenTitle := "", false, false
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return tags, strings.TrimSpace(title)
		case html.TextToken:
			if inTitle {
				title += string(z.Text())
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "title" {
				inTitle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "title":
				inTitle, seenTitle = !seenTitle, true
			case "meta", "link":
				if hasAttr {
					addTag(tags, string(name), attrs(z))
				}
			}
		}
	}
}

func attrs(z *html.Tokenizer) map[string]string {
	a := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		if _, ok := a[string(k)]; !ok {
			a[string(k)] = string(v)
		}
		if !more {
			return a
		}
	}
}

func addTag(tags map[string]string, tag string, a map[string]string) {
	var key, val string
	if tag == "meta" {
		key = a["property"]
		if key == "" {
			key = a["name"]
		}
		if key == "" {
			key = a["href"]
		}
		val = a["content"]
	} else {
		key, val = a["rel"], a["href"]
	}
	if key != "" && tags[key] == "" {
		tags[key] = val
	}
}

var base64Image = regexp.MustCompile(`^data:image/(png|jpeg|jpg|gif|webp);base64,`)

// ResolveImage makes a preview image absolute: absolute URLs are kept,
// relative ones are resolved against the page's origin (not its path), and
// data:image/…;base64 values are kept. Anything else must be an http(s) URL
// on a domain name (no localhost, IP literal or single-label host): nil.
func ResolveImage(pageURL, img string) *string {
	if img == "" {
		return nil
	}
	var resolved string
	if u, err := url.Parse(img); err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || strings.HasPrefix(img, "data:")) {
		resolved = u.String()
		if strings.HasPrefix(img, "data:") {
			resolved = img
		}
	} else {
		page, err := url.Parse(pageURL)
		if err != nil || page.Host == "" {
			return nil
		}
		ref, err := url.Parse(strings.TrimPrefix(img, "./"))
		if err != nil {
			return nil
		}
		if !strings.HasPrefix(ref.Path, "/") && ref.Host == "" {
			ref.Path = "/" + ref.Path
		}
		resolved = (&url.URL{Scheme: page.Scheme, Host: page.Host, Path: "/"}).ResolveReference(ref).String()
	}
	if base64Image.MatchString(resolved) {
		return &resolved
	}
	u, err := url.Parse(resolved)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	host := u.Hostname()
	if host == "" || strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return nil
	}
	return &resolved
}
