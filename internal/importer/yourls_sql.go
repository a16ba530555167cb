package importer

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// YOURLSDump reads a MySQL dump (mysqldump) of a YOURLS database: the
// links table (…_url: keyword, url, title, timestamp) and its click log
// (…_log: click_time, shorturl, referrer, user_agent, country_code), whose
// rows become clicks on their original dates. The dump has no domain: the
// caller names the YOURLS site's short domain.
type YOURLSDump struct {
	domain string
	links  []Link
}

var (
	createRe = regexp.MustCompile("(?is)CREATE TABLE\\s+(?:IF NOT EXISTS\\s+)?`?(\\w+)`?\\s*\\((.*?)\\)\\s*(?:ENGINE|DEFAULT|;)")
	insertRe = regexp.MustCompile("(?i)INSERT\\s+(?:IGNORE\\s+)?INTO\\s+`?(\\w+)`?\\s*(\\([^)]*\\))?\\s*VALUES\\s*")
	colRe    = regexp.MustCompile("(?m)^\\s*`(\\w+)`")
)

// default column orders of YOURLS 1.5+ when the dump has no CREATE TABLE.
var yourlsDefaultCols = map[string][]string{
	"url": {"keyword", "url", "title", "timestamp", "ip", "clicks"},
	"log": {"click_id", "click_time", "shorturl", "referrer", "user_agent", "ip_address", "country_code"},
}

// NewYOURLSDump parses a dump. domain is the site's short domain.
func NewYOURLSDump(dump []byte, domain string) (*YOURLSDump, error) {
	if domain == "" {
		return nil, errors.New("a YOURLS dump has no domain: name the site's short domain")
	}
	s := string(dump)
	cols := map[string][]string{}
	for _, m := range createRe.FindAllStringSubmatch(s, -1) {
		for _, c := range colRe.FindAllStringSubmatch(m[2], -1) {
			cols[m[1]] = append(cols[m[1]], strings.ToLower(c[1]))
		}
	}
	var urls, logs []map[string]string
	for _, loc := range insertRe.FindAllStringSubmatchIndex(s, -1) {
		table := s[loc[2]:loc[3]]
		kind := ""
		switch {
		case strings.HasSuffix(strings.ToLower(table), "url"):
			kind = "url"
		case strings.HasSuffix(strings.ToLower(table), "log"):
			kind = "log"
		default:
			continue
		}
		names := cols[table]
		if loc[4] >= 0 {
			names = nil
			for _, c := range strings.Split(strings.Trim(s[loc[4]:loc[5]], "()"), ",") {
				names = append(names, strings.ToLower(strings.Trim(strings.TrimSpace(c), "`")))
			}
		}
		if names == nil {
			names = yourlsDefaultCols[kind]
		}
		tuples, err := sqlTuples(s[loc[1]:])
		if err != nil {
			return nil, fmt.Errorf("INSERT INTO %s: %w", table, err)
		}
		for _, t := range tuples {
			row := map[string]string{}
			for i, v := range t {
				if i < len(names) {
					row[names[i]] = v
				}
			}
			if kind == "url" {
				urls = append(urls, row)
			} else {
				logs = append(logs, row)
			}
		}
	}
	if len(urls) == 0 {
		return nil, errors.New("no rows of a YOURLS links table (…_url) in the dump")
	}
	clicks := map[string][]Click{}
	for _, r := range logs {
		c := Click{Timestamp: parseAPITime(r["click_time"]), Referer: r["referrer"], UserAgent: r["user_agent"], Country: strings.ToUpper(r["country_code"])}
		if c.Referer == "direct" {
			c.Referer = ""
		}
		clicks[strings.ToLower(r["shorturl"])] = append(clicks[strings.ToLower(r["shorturl"])], c)
	}
	d := &YOURLSDump{domain: domain}
	for i, r := range urls {
		d.links = append(d.links, Link{Row: i + 1, Domain: domain, Key: r["keyword"], URL: r["url"], Title: r["title"],
			CreatedAt: parseAPITime(r["timestamp"]), Clicks: clicks[strings.ToLower(r["keyword"])]})
	}
	return d, nil
}

// Name implements Source.
func (d *YOURLSDump) Name() string { return "YOURLS dump" }

// Total implements Sized.
func (d *YOURLSDump) Total() int { return len(d.links) }

// Each implements Source.
func (d *YOURLSDump) Each(ctx context.Context, fn func(Link) error) error {
	for _, l := range d.links {
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}

// sqlTuples reads "(v,…),(v,…);" — MySQL literals: 'strings' with
// backslash escapes and doubled quotes, NULL, numbers — up to the ';'.
func sqlTuples(s string) ([][]string, error) {
	var out [][]string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i >= len(s) || s[i] == ';' {
			return out, nil
		}
		if s[i] != '(' {
			return nil, fmt.Errorf("want '(' at %q", snippet([]byte(s[i:min(i+20, len(s))])))
		}
		i++
		var tuple []string
		for {
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i >= len(s) {
				return nil, errors.New("unterminated tuple")
			}
			var v string
			if s[i] == '\'' {
				var b strings.Builder
				i++
				for ; i < len(s); i++ {
					c := s[i]
					if c == '\\' && i+1 < len(s) {
						i++
						b.WriteByte(unescapeMySQL(s[i]))
						continue
					}
					if c == '\'' {
						if i+1 < len(s) && s[i+1] == '\'' {
							b.WriteByte('\'')
							i++
							continue
						}
						break
					}
					b.WriteByte(c)
				}
				if i >= len(s) {
					return nil, errors.New("unterminated string")
				}
				i++
				v = b.String()
			} else {
				j := i
				for j < len(s) && s[j] != ',' && s[j] != ')' {
					j++
				}
				v = strings.TrimSpace(s[i:j])
				if strings.EqualFold(v, "NULL") {
					v = ""
				}
				i = j
			}
			tuple = append(tuple, v)
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i >= len(s) {
				return nil, errors.New("unterminated tuple")
			}
			if s[i] == ')' {
				i++
				break
			}
			if s[i] != ',' {
				return nil, fmt.Errorf("unexpected %q in tuple", s[i])
			}
			i++
		}
		out = append(out, tuple)
	}
}

func unescapeMySQL(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case '0':
		return 0
	}
	return c
}
