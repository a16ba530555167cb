package webhooks

import (
	_ "embed"
	"encoding/json"
)

// samples.json holds a sample data object per event, taken from the
// examples of the wire contract (spec/webhooks.md §3); "send a
// test event" delivers them (§2.8).
//
//go:embed samples.json
var samplesJSON []byte

var samples = func() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(samplesJSON, &m); err != nil {
		panic("webhooks: samples.json: " + err.Error())
	}
	m[BountyUpdated] = m[BountyCreated]
	m[DiscountCodeDeleted] = m[DiscountCodeCreated]
	m[CommissionUpdated] = m[CommissionCreated]
	return m
}()

// Sample is event's sample data object.
func Sample(event, _ string) json.RawMessage {
	if s, ok := samples[event]; ok {
		return s
	}
	return json.RawMessage("{}")
}
