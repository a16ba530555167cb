package links

import "encoding/json"

// ParseLinkProps validates the linkProps object of the partner endpoints
// (spec/partners-and-embed.md §3.3) with the update schema, so url is optional
// (partner links get their destination elsewhere). Issue paths start with
// prefix, e.g. "linkProps.title". The caller reads "prefix" itself.
func ParseLinkProps(raw json.RawMessage, prefix string) (*Input, error) {
	return parseItem(raw, SchemaUpdate, prefix)
}
