package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// JSONCol stores a Go value as JSON text; Valid false is NULL.
type JSONCol[T any] struct {
	V     T
	Valid bool
}

// Some wraps a value.
func Some[T any](v T) JSONCol[T] { return JSONCol[T]{V: v, Valid: true} }

// GormDataType tells GORM the column is text.
func (JSONCol[T]) GormDataType() string { return "text" }

// Value stores the value as JSON text.
func (j JSONCol[T]) Value() (driver.Value, error) {
	if !j.Valid {
		return nil, nil
	}
	b, err := json.Marshal(j.V)
	if err != nil {
		return nil, fmt.Errorf("encode json column: %w", err)
	}
	return string(b), nil
}

// Scan reads JSON text.
func (j *JSONCol[T]) Scan(v any) error {
	var zero T
	j.V, j.Valid = zero, false
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		b = []byte(x)
	case []byte:
		b = x
	default:
		return fmt.Errorf("scan json column: unsupported type %T", v)
	}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &j.V); err != nil {
		return fmt.Errorf("scan json column: %w", err)
	}
	j.Valid = true
	return nil
}

// Metadata is a JSON object given by API callers (lead, sale and commission
// metadata), stored as text; nil is NULL.
type Metadata map[string]any

// GormDataType tells GORM the column is text.
func (Metadata) GormDataType() string { return "text" }

// Value stores the object as JSON text.
func (m Metadata) Value() (driver.Value, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(map[string]any(m))
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return string(b), nil
}

// Scan reads JSON text.
func (m *Metadata) Scan(v any) error {
	*m = nil
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		b = []byte(x)
	case []byte:
		b = x
	default:
		return fmt.Errorf("scan metadata: unsupported type %T", v)
	}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("scan metadata: %w", err)
	}
	*m = out
	return nil
}
