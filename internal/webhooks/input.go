package webhooks

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

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

// ParseInput validates a body; create says whether name, url and triggers
// are required. The body is read with internal/input (the API's JSON
// rules and zod's messages); the rules below are webhooks' own.
func ParseInput(body []byte, create bool) (*Input, error) {
	raw, err := input.Raw(body)
	if err != nil {
		return nil, err
	}
	if input.Kind(raw) == "null" { // as before: a null body is an empty one
		raw = json.RawMessage("{}")
	}
	o, err := input.At(raw, "")
	if err != nil {
		// Not an object: the same 400 as malformed JSON (Dub's parse of the
		// body into its schema's object).
		return nil, apierr.Wrap(apierr.BadRequest, err, input.MsgBadJSON)
	}
	in := &Input{}
	if name := o.Str("name", input.Str{Required: create, Min: 1, Max: 40}); name.Set {
		in.Name, in.HasName = name.Value, true
	}
	if u := o.Str("url", input.Str{Required: create, Max: 32000, MaxMsg: "Must be 32000 or fewer characters long."}); u.Set {
		n, ok := NormalizeURL(u.Value)
		if !ok {
			o.Fail("custom", "url", "Invalid URL")
		}
		in.URL, in.HasURL = n, ok
	}
	for _, f := range []func(*input.Object, *Input, bool){parseTriggers, parseScope, parseIDs} {
		if o.Err() == nil {
			f(o, in, create)
		}
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	if create || in.HasTriggers {
		if err := scopeRules(in); err != nil {
			return nil, err
		}
	}
	return in, nil
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

func parseTriggers(o *input.Object, in *Input, create bool) {
	raw, ok := o.Get("triggers")
	if !ok {
		if create {
			o.TypeErr("triggers", "array", nil)
		}
		return
	}
	var list []json.RawMessage
	if input.Kind(raw) != "array" || json.Unmarshal(raw, &list) != nil {
		o.TypeErr("triggers", "array", raw)
		return
	}
	in.Triggers, in.HasTriggers = make([]string, 0, len(list)), true
	for i, r := range list {
		var s string
		if json.Unmarshal(r, &s) != nil || !IsTrigger(s) {
			o.Fail("invalid_value", "triggers["+strconv.Itoa(i)+"]", "Invalid option: expected one of "+input.QuoteOptions(Triggers))
			return
		}
		in.Triggers = append(in.Triggers, s)
	}
}

var scopes = []string{ScopeWorkspace, ScopeFolders, ScopeLinks}

func parseScope(o *input.Object, in *Input, _ bool) {
	raw, ok := o.Get("linkScope")
	if !ok {
		return
	}
	in.HasScope = true
	if input.Kind(raw) == "null" {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || !slices.Contains(scopes, s) {
		o.Fail("invalid_value", "linkScope", "Invalid option: expected one of "+input.QuoteOptions(scopes))
		return
	}
	in.LinkScope = &s
}

// idList reads a list of ids, duplicates dropped; more than max is an issue.
func idList(o *input.Object, key string, max int, tooBig string) ([]string, bool) {
	raw, ok := o.Get(key)
	if !ok || input.Kind(raw) == "null" {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		o.TypeErr(key, "array", raw)
		return nil, false
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
		o.Fail("too_big", key, tooBig)
		return nil, false
	}
	return out, true
}

func parseIDs(o *input.Object, in *Input, _ bool) {
	in.LinkIDs, in.HasLinks = idList(o, "linkIds", 1000,
		"You can only select up to 1000 links. Recommended to use the 'Include specific folders' option instead.")
	if o.Err() == nil {
		in.FolderIDs, in.HasFolders = idList(o, "folderIds", 100, "You can only select up to 100 folders.")
	}
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
