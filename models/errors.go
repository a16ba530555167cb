package models

import (
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/relinkhq/relink/internal/apierr"
)

// dbErr maps driver errors to API errors inside models, so handlers never
// import gorm. notFound and conflict are the caller-facing messages; any other
// error is wrapped with op and becomes a 500 whose text is never shown.
func dbErr(err error, op, notFound, conflict string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrRecordNotFound) && notFound != "":
		return apierr.Wrap(apierr.NotFound, err, notFound)
	case errors.Is(err, gorm.ErrDuplicatedKey) && conflict != "":
		return apierr.Wrap(apierr.Conflict, err, conflict)
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return apierr.Wrap(apierr.Unprocessable, err, "A referenced record does not exist.")
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// IsNotFound reports a missing record (for callers that branch on it).
func IsNotFound(err error) bool {
	return errors.Is(err, gorm.ErrRecordNotFound) || apierr.Is(err, apierr.NotFound)
}

var errNotFound = gorm.ErrRecordNotFound
