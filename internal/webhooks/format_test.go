package webhooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// A bounty event to a Slack URL becomes a Block Kit message with the
// spec's fields (§6.7): name, reward, type, duration, description; to any
// other URL it is the envelope itself.
func TestFormatBountyForSlack(t *testing.T) {
	end := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	b := &models.Bounty{ID: "bnty_1", Name: "Video review", Type: models.BountyProof, RewardAmount: 5000,
		StartsAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), EndsAt: &end}
	env, err := Marshal(Envelope{ID: "evt_1", Event: BountyCreated, CreatedAt: "2026-12-01T00:00:00.000Z", Data: wire.BountyOf(b)})
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := Format(&Webhook{URL: "https://hooks.slack.com/services/T/B/x"}, env)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Blocks []slackBlock `json:"blocks"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("slack body %s: %v", body, err)
	}
	if len(msg.Blocks) != 3 || msg.Blocks[0].Text.Text != "*New bounty created* :money_with_wings:" {
		t.Fatalf("blocks: %s", body)
	}
	var got []string
	for _, f := range msg.Blocks[1].Fields {
		got = append(got, f.Text)
	}
	want := []string{"*Bounty Name*\nVideo review", "*Reward*\n50.00 USD", "*Type*\nSubmission",
		"*Duration*\n2026-12-01 to 2026-12-31", "*Description*\n—"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("fields:\n got %q\nwant %q", got, want)
	}
	plain, _, _ := Format(&Webhook{URL: "https://example.com/hook"}, env)
	if string(plain) != string(env) {
		t.Errorf("a plain receiver got %s", plain)
	}
	var d map[string]any
	_ = json.Unmarshal(env, &struct {
		Data *map[string]any `json:"data"`
	}{&d})
	if d["rewardAmount"] != 5000.0 || d["submissionRequirements"] == nil || d["performanceCondition"] != nil {
		t.Errorf("submission bounty data: %v", d)
	}
}
