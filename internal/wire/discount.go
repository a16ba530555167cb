package wire

import "github.com/relinkhq/relink/models"

// DiscountCode is a DiscountCode (spec/parity.md §8.2).
type DiscountCode struct {
	ID         string  `json:"id"`
	Code       string  `json:"code"`
	DiscountID *string `json:"discountId"`
	PartnerID  string  `json:"partnerId"`
	LinkID     string  `json:"linkId"`
	DisabledAt *string `json:"disabledAt"`
}

// DiscountCodeOf writes c.
func DiscountCodeOf(c *models.DiscountCode) DiscountCode {
	return DiscountCode{ID: c.ID, Code: c.Code, DiscountID: c.DiscountID, PartnerID: c.PartnerID, LinkID: c.LinkID,
		DisabledAt: OptTimestamp(c.DisabledAt)}
}

// DiscountCodeEvent is the data of discount_code.created and
// discount_code.deleted (spec/webhooks.md §3.12).
type DiscountCodeEvent struct {
	ID         string         `json:"id"`
	Code       string         `json:"code"`
	PartnerID  string         `json:"partnerId"`
	LinkID     string         `json:"linkId"`
	DisabledAt *string        `json:"disabledAt"`
	Discount   *EventDiscount `json:"discount"`
}

// EventDiscount is the discount a discount code event carries.
type EventDiscount struct {
	ID          string `json:"id"`
	Amount      int64  `json:"amount"`
	Type        string `json:"type"`
	MaxDuration *int   `json:"maxDuration"`
	Provider    string `json:"provider"`
}

// DiscountCodeEventOf writes c and its discount (nil: none).
func DiscountCodeEventOf(c *models.DiscountCode, d *models.Discount) DiscountCodeEvent {
	ev := DiscountCodeEvent{ID: c.ID, Code: c.Code, PartnerID: c.PartnerID, LinkID: c.LinkID, DisabledAt: OptTimestamp(c.DisabledAt)}
	if d != nil {
		ev.Discount = &EventDiscount{d.ID, d.Amount, d.Type, d.MaxDuration, d.Provider}
	}
	return ev
}
