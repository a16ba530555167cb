package webhooks

import (
	"context"
	"reflect"

	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// LinkEvents writes link.created, link.updated and link.deleted to the
// outbox; internal/links calls it inside its transactions (links.Events).
type LinkEvents struct{ Wire wire.Writer }

// LinkEvent emits event with l in its webhook form. For an update, old is
// the link before it; an update that changed nothing but updatedAt emits
// nothing (§3.2's no-change rule).
func (e *LinkEvents) LinkEvent(ctx context.Context, tx *models.DB, event string, l, old *models.Link) error {
	data := e.Wire.Link(l)
	if old != nil {
		before := e.Wire.Link(old)
		before.UpdatedAt = data.UpdatedAt
		if reflect.DeepEqual(before, data) {
			return nil
		}
	}
	return Emit(ctx, tx, l.WorkspaceID, event, data)
}
