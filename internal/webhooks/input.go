package webhooks

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
)

// Input is a POST or PATCH /webhooks body (§2.2, §2.4). Has* say which keys
// were given (PATCH applies only those).
type Input struct {
	Name, URL                      string
	Triggers                       []string
	LinkScope                      *string
	LinkIDs, FolderIDs             []string
	HasName, HasURL, HasTriggers   bool
	HasScope, HasLinks, HasFolders bool
	// CreatedBy is the user creating the webhook (the API key's user, the
	// console's viewer): Service.Added tells them by e-mail. Not from JSON.
	CreatedBy string
}

const msgBadJSON = input.MsgBadJSON

// ParseInput validates a body; create says whether name, url and triggers
// are required.
func ParseInput(body []byte, create bool) (*Input, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err, msgBadJSON)
	}
	in := &Input{}
	steps := []func(map[string]json.RawMessage, *Input, bool) error{parseName, parseURL, parseTriggers, parseScope, parseIDs}
	for _, f := range steps {
		if err := f(m, in, create); err != nil {
			return nil, err
		}
	}
	if create || in.HasTriggers {
		if err := scopeRules(in); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "undefined"
	}
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

func typeErr(path, want string, raw json.RawMessage) error {
	return apierr.Validation("invalid_type", path, "Invalid input: expected "+want+", received "+kindOf(raw))
}

func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

// requiredString reads a string key; absent is an error when required.
func requiredString(m map[string]json.RawMessage, key string, required bool) (string, bool, error) {
	raw, ok := m[key]
	if !ok {
		if required {
			return "", false, typeErr(key, "string", nil)
		}
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || kindOf(raw) != "string" {
		return "", false, typeErr(key, "string", raw)
	}
	return s, true, nil
}

func parseName(m map[string]json.RawMessage, in *Input, create bool) error {
	s, ok, err := requiredString(m, "name", create)
	if err != nil || !ok {
		return err
	}
	switch n := jsLen(s); {
	case n < 1:
		return apierr.Validation("too_small", "name", "Too small: expected string to have >=1 characters")
	case n > 40:
		return apierr.Validation("too_big", "name", "Too big: expected string to have <=40 characters")
	}
	in.Name, in.HasName = s, true
	return nil
}

func parseURL(m map[string]json.RawMessage, in *Input, create bool) error {
	s, ok, err := requiredString(m, "url", create)
	if err != nil || !ok {
		return err
	}
	if jsLen(s) > 32000 {
		return apierr.Validation("too_big", "url", "Must be 32000 or fewer characters long.")
	}
	u, ok := NormalizeURL(s)
	if !ok {
		return apierr.Validation("custom", "url", "Invalid URL")
	}
	in.URL, in.HasURL = u, true
	return nil
}

// NormalizeURL is upstream's URL rule (§2.2): an absolute URL is kept as
// given; else a string with a dot and no space gets https:// prepended.
func NormalizeURL(s string) (string, bool) {
	if absolute(s) {
		return s, true
	}
	if strings.Contains(s, ".") && !strings.Contains(s, " ") {
		u, err := url.Parse("https://" + s)
		if err == nil && u.Host != "" {
			if u.Path == "" {
				u.Path = "/"
			}
			return u.String(), true
		}
	}
	return "", false
}

func absolute(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "") && !strings.ContainsAny(s, " \t\n")
}

func parseTriggers(m map[string]json.RawMessage, in *Input, create bool) error {
	raw, ok := m["triggers"]
	if !ok {
		if create {
			return typeErr("triggers", "array", nil)
		}
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || kindOf(raw) != "array" {
		return typeErr("triggers", "array", raw)
	}
	in.Triggers, in.HasTriggers = make([]string, 0, len(list)), true
	for i, r := range list {
		var s string
		if json.Unmarshal(r, &s) != nil || !IsTrigger(s) {
			return apierr.Validation("invalid_value", "triggers["+strconv.Itoa(i)+"]",
				"Invalid option: expected one of "+quoteJoin(Triggers))
		}
		in.Triggers = append(in.Triggers, s)
	}
	return nil
}

func quoteJoin(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, "|")
}

var scopes = []string{ScopeWorkspace, ScopeFolders, ScopeLinks}

func parseScope(m map[string]json.RawMessage, in *Input, _ bool) error {
	raw, ok := m["linkScope"]
	if !ok {
		return nil
	}
	in.HasScope = true
	if kindOf(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || (s != ScopeWorkspace && s != ScopeFolders && s != ScopeLinks) {
		return apierr.Validation("invalid_value", "linkScope", "Invalid option: expected one of "+quoteJoin(scopes))
	}
	in.LinkScope = &s
	return nil
}

func idList(m map[string]json.RawMessage, key string, max int, tooBig string) ([]string, bool, error) {
	raw, ok := m[key]
	if !ok || kindOf(raw) == "null" {
		return nil, false, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, false, typeErr(key, "array", raw)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(list))
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) > max {
		return nil, false, apierr.Validation("too_big", key, tooBig)
	}
	return out, true, nil
}

func parseIDs(m map[string]json.RawMessage, in *Input, _ bool) error {
	var err error
	in.LinkIDs, in.HasLinks, err = idList(m, "linkIds", 1000,
		"You can only select up to 1000 links. Recommended to use the 'Include specific folders' option instead.")
	if err != nil {
		return err
	}
	in.FolderIDs, in.HasFolders, err = idList(m, "folderIds", 100, "You can only select up to 100 folders.")
	return err
}

// scopeRules are §2.9's schema-level rules.
func scopeRules(in *Input) error {
	clicked := false
	for _, t := range in.Triggers {
		clicked = clicked || t == LinkClicked
	}
	switch {
	case !clicked && in.LinkScope != nil:
		return apierr.Validation("custom", "linkScope", `"linkScope" can only be set when the "link.clicked" trigger is enabled.`)
	case clicked && in.LinkScope == nil:
		return apierr.Validation("custom", "linkScope", `"linkScope" is required when the "link.clicked" trigger is enabled.`)
	case clicked && *in.LinkScope == ScopeLinks && in.HasLinks && len(in.LinkIDs) == 0:
		return apierr.Validation("custom", "linkIds", "Select at least one link")
	case clicked && *in.LinkScope == ScopeFolders && in.HasFolders && len(in.FolderIDs) == 0:
		return apierr.Validation("custom", "folderIds", "Select at least one folder.")
	}
	return nil
}
