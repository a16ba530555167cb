package console

import (
	"errors"

	"github.com/relinkhq/relink/internal/apierr"
	vc "github.com/relinkhq/relink/views/console"
)

// fieldErrors turns a model error into form field errors: a 422 validation
// error goes to its field (apierr.Error.Field), a 409 conflict to
// conflictField, and any other 4xx to "_" (the form's top). Server errors
// are returned for the error handler (ok false).
func fieldErrors(err error, conflictField string) (vc.FieldErrors, int, bool) {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status() >= 500 {
		return nil, 0, false
	}
	switch e.Code {
	case apierr.Unprocessable:
		if e.Field != "" {
			return vc.FieldErrors{e.Field: e.FieldMessage()}, e.Status(), true
		}
	case apierr.Conflict:
		if conflictField != "" {
			return vc.FieldErrors{conflictField: e.Message}, e.Status(), true
		}
	}
	return vc.FieldErrors{"_": e.Message}, e.Status(), true
}
