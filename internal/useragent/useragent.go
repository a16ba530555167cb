// Package useragent turns a User-Agent header into the device, browser, OS
// and engine a click records (spec/links.md §11), and decides whether a request
// comes from a bot or link-preview crawler (spec/links.md §10.5). Parsing is done
// by github.com/mileusna/useragent; names are mapped to the vocabulary Dub's
// analytics use (ua-parser-js names: "Mobile Safari", "Mac OS", …).
package useragent

import (
	"bytes"
	"strings"
	"sync"

	mua "github.com/mileusna/useragent"
)

// Unknown is the value of every field the parser could not determine.
const Unknown = "Unknown"

// Info is what a click records about the user agent.
type Info struct {
	Device         string // Desktop, Mobile, Tablet (capitalised; default Desktop)
	DeviceVendor   string
	DeviceModel    string
	Browser        string
	BrowserVersion string
	Engine         string
	EngineVersion  string
	OS             string
	OSVersion      string
	CPU            string
	Bot            bool // the parser flags a bot, or IsBot matches
}

// Parse parses ua. The empty string gives all-Unknown fields.
func Parse(ua string) Info {
	in := Info{Device: "Desktop", DeviceVendor: Unknown, DeviceModel: Unknown, Browser: Unknown,
		BrowserVersion: Unknown, Engine: Unknown, EngineVersion: Unknown, OS: Unknown, OSVersion: Unknown, CPU: Unknown}
	if ua == "" {
		return in
	}
	p := mua.Parse(ua)
	switch {
	case p.Tablet:
		in.Device = "Tablet"
	case p.Mobile:
		in.Device = "Mobile"
	}
	if p.Device != "" {
		in.DeviceModel = p.Device
		switch p.Device {
		case "iPhone", "iPad", "iPod":
			in.DeviceVendor = "Apple"
		}
	}
	in.OS = osName(p.OS)
	in.OSVersion = orUnknown(p.OSVersion)
	in.Browser = browserName(p)
	in.BrowserVersion = orUnknown(p.Version)
	in.Engine, in.EngineVersion = engine(ua, in.Browser, in.OS)
	in.CPU = cpu(ua)
	in.Bot = p.Bot || IsBot(ua)
	return in
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

// osName maps the parser's OS names to ua-parser-js's.
func osName(os string) string {
	switch os {
	case "":
		return Unknown
	case mua.MacOS:
		return "Mac OS"
	case mua.ChromeOS, mua.CrOS:
		return "Chromium OS"
	}
	return os
}

func browserName(p mua.UserAgent) string {
	switch {
	case p.Name == "":
		return Unknown
	case p.Name == mua.Safari && (p.OS == mua.IOS || p.Mobile || p.Tablet):
		return "Mobile Safari"
	case p.Name == "Chrome" && p.OS == mua.IOS:
		return "Mobile Chrome"
	case p.Name == "Firefox" && p.OS == mua.IOS:
		return "Mobile Firefox"
	case p.Name == mua.SamsungBrowser:
		return "Samsung Internet"
	}
	return p.Name
}

// engine derives the rendering engine and its version from the UA tokens.
func engine(ua, browser, os string) (string, string) {
	switch {
	case os == "iOS":
		return "WebKit", tokenVersion(ua, "AppleWebKit/")
	case strings.Contains(ua, "Gecko/") && strings.Contains(ua, "Firefox/"):
		return "Gecko", tokenVersion(ua, "rv:")
	case strings.Contains(ua, "Chrome/") || strings.Contains(ua, "Chromium/"):
		return "Blink", tokenVersion(ua, "Chrome/")
	case strings.Contains(ua, "AppleWebKit/"):
		return "WebKit", tokenVersion(ua, "AppleWebKit/")
	case strings.Contains(ua, "Trident/"):
		return "Trident", tokenVersion(ua, "Trident/")
	case strings.Contains(ua, "Presto/"):
		return "Presto", tokenVersion(ua, "Presto/")
	}
	return Unknown, Unknown
}

func tokenVersion(ua, prefix string) string {
	i := strings.Index(ua, prefix)
	if i < 0 {
		return Unknown
	}
	v := ua[i+len(prefix):]
	end := strings.IndexFunc(v, func(r rune) bool { return !(r == '.' || (r >= '0' && r <= '9')) })
	if end >= 0 {
		v = v[:end]
	}
	return orUnknown(v)
}

func cpu(ua string) string {
	switch {
	case strings.Contains(ua, "x86_64"), strings.Contains(ua, "x64"), strings.Contains(ua, "Win64"), strings.Contains(ua, "WOW64"), strings.Contains(ua, "amd64"):
		return "amd64"
	case strings.Contains(ua, "aarch64"), strings.Contains(ua, "arm64"), strings.Contains(ua, "ARM64"):
		return "arm64"
	case strings.Contains(ua, "armv7"), strings.Contains(ua, "armv8l"):
		return "arm"
	case strings.Contains(ua, "i686"), strings.Contains(ua, "i386"):
		return "ia32"
	}
	return Unknown
}

// botPatterns is upstream's list (spec/links.md §10.5), lower-cased.
var botPatterns = lowerAll(strings.Fields(`bot crawler spider http scraper fetch curl wget python
  node ruby chatgpt bluesky facebookexternalhit meta-externalagent meta-externalads
  meta-externalfetcher meta-webindexer thirdLandingPageFeInfra WhatsApp google baidu bing msn
  duckduckbot teoma slurp yandex MetaInspector iframely HeadlessChrome ia_archiver Sogou
  SkypeUriPreview vkShare Slackbot Tumblr FeedBurner upptime Hyperping cron-job InternetMeasurement
  HostTracker Expanse anthropic-ai Claude-Web Applebot-Extended perplexity Omigili timpi
  ShortLinkTranslate BingPreview facebookcatalog Embedly Scrapy axios Guzzle Postman Insomnia
  Newman Qwantify Wayback heritrix nutch seokicks sistrix searchmetrics linkdex opensiteexplorer
  spyfu serpstat cognitiveseo seobility seositecheckup woorank gtmetrix pingdom statuscake
  site24x7 monitis gomez neustar catchpoint webpagetest speedcurve dareboost yellowlab linkchecker
  deadlinkchecker brokenlinkcheck xenu scrutiny powermapper siteimprove monsido`))

var (
	google       = []byte("google")
	googleGoogle = []byte("google/google")
)

func lowerAll(in []string) [][]byte {
	out := make([][]byte, len(in))
	for i, s := range in {
		out[i] = []byte(strings.ToLower(s))
	}
	return out
}

var lowerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// IsBot reports whether ua matches upstream's bot list (spec/links.md §10.5),
// case-insensitively. "Google/google" inside an otherwise human UA (the
// Instagram in-app browser on Pixel phones) does not count as "google".
func IsBot(ua string) bool {
	if ua == "" {
		return false
	}
	bp := lowerBufs.Get().(*[]byte)
	defer lowerBufs.Put(bp)
	b := (*bp)[:0]
	for i := 0; i < len(ua); i++ {
		c := ua[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	*bp = b
	for _, p := range botPatterns {
		if !bytes.Contains(b, p) {
			continue
		}
		if bytes.Equal(p, google) && bytes.Count(b, google) == 2*bytes.Count(b, googleGoogle) {
			continue // only the Pixel webview's "Google/google"
		}
		return true
	}
	return false
}

// IsIOS and IsAndroid are the cheap checks the redirect uses for device
// targeting (spec/links.md §10.2 #12-13) without a full parse.
func IsIOS(ua string) bool {
	return strings.Contains(ua, "iPhone") || strings.Contains(ua, "iPad") || strings.Contains(ua, "iPod")
}

// IsAndroid reports an Android user agent.
func IsAndroid(ua string) bool { return strings.Contains(ua, "Android") }
