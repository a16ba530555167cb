package wire

import "github.com/relinkhq/relink/models"

// PerformanceCondition is a performance bounty's goal (spec/webhooks.md §3.10).
type PerformanceCondition struct {
	Attribute string `json:"attribute"`
	Operator  string `json:"operator"`
	Value     int64  `json:"value"`
}

// Bounty is the data of bounty.created and bounty.updated (spec/webhooks.md §3.10), keys in
// the spec's order.
type Bounty struct {
	ID                        string                `json:"id"`
	Name                      *string               `json:"name"`
	Description               *string               `json:"description"`
	Type                      string                `json:"type"`
	StartsAt                  *string               `json:"startsAt"`
	EndsAt                    *string               `json:"endsAt"`
	StartMode                 string                `json:"startMode"`
	EndsAfterDays             *int                  `json:"endsAfterDays"`
	SubmissionsOpenAt         *string               `json:"submissionsOpenAt"`
	SubmissionFrequency       *string               `json:"submissionFrequency"`
	MaxSubmissions            int                   `json:"maxSubmissions"`
	RewardAmount              *int64                `json:"rewardAmount"`
	RewardDescription         *string               `json:"rewardDescription"`
	PerformanceCondition      *PerformanceCondition `json:"performanceCondition"`
	PerformanceScope          *string               `json:"performanceScope"`
	SubmissionRequirements    map[string]any        `json:"submissionRequirements"`
	SocialMetricsLastSyncedAt *string               `json:"socialMetricsLastSyncedAt"`
	Groups                    []IDRef               `json:"groups"`
	PartnerTags               []IDRef               `json:"partnerTags"`
}

// BountyOf is b as its webhook data. Relink's bounties start at a fixed time
// (startMode absolute) and take one final submission per partner. A
// performance bounty's goal is sale commission earnings made inside its
// window: Dub's totalCommissions condition with the "new" scope. A
// submission bounty asks for proof URLs; a reward of 0 (set by the reviewer)
// is null, as a bounty without a fixed amount is in Dub. No group means
// every group: groups is empty.
func BountyOf(b *models.Bounty) Bounty {
	name := b.Name
	out := Bounty{ID: b.ID, Name: &name, Description: b.Description, Type: b.Type, StartsAt: OptTimestamp(&b.StartsAt),
		EndsAt: OptTimestamp(b.EndsAt), StartMode: "absolute", MaxSubmissions: 1, RewardDescription: b.RewardDescription,
		Groups: []IDRef{}, PartnerTags: []IDRef{}}
	if b.RewardAmount > 0 {
		r := b.RewardAmount
		out.RewardAmount = &r
	}
	if b.Type == models.BountyPerformance {
		scope := "new"
		out.PerformanceCondition = &PerformanceCondition{Attribute: "totalCommissions", Operator: "gte", Value: b.GoalEarnings}
		out.PerformanceScope = &scope
	} else {
		out.SubmissionRequirements = map[string]any{"url": map[string]any{}}
	}
	if b.GroupID != nil {
		out.Groups = []IDRef{{ID: *b.GroupID}}
	}
	return out
}

// Submission is the bounty submission object (spec/parity.md §7.2).
type Submission struct {
	ID                string                  `json:"id"`
	BountyID          string                  `json:"bountyId"`
	PartnerID         string                  `json:"partnerId"`
	Description       *string                 `json:"description"`
	URLs              []string                `json:"urls"`
	Files             []models.SubmissionFile `json:"files"`
	Status            string                  `json:"status"`
	PerformanceCount  *int64                  `json:"performanceCount"`
	SocialMetricCount *int64                  `json:"socialMetricCount"`
	CreatedAt         string                  `json:"createdAt"`
	CompletedAt       *string                 `json:"completedAt"`
	ReviewedAt        *string                 `json:"reviewedAt"`
	RejectionReason   *string                 `json:"rejectionReason"`
	RejectionNote     *string                 `json:"rejectionNote"`
	PeriodNumber      int                     `json:"periodNumber"`
}

// SubmissionOf writes s.
func SubmissionOf(s *models.BountySubmission) Submission {
	j := Submission{ID: s.ID, BountyID: s.BountyID, PartnerID: s.PartnerID, Description: s.Description, Status: s.Status,
		PerformanceCount: s.PerformanceCount, CreatedAt: Timestamp(s.CreatedAt), CompletedAt: OptTimestamp(s.CompletedAt),
		ReviewedAt: OptTimestamp(s.ReviewedAt), RejectionReason: s.RejectionReason, RejectionNote: s.RejectionNote, PeriodNumber: s.PeriodNumber}
	if s.URLs.Valid {
		j.URLs = s.URLs.V
	}
	if s.Files.Valid {
		j.Files = s.Files.V
	}
	return j
}
