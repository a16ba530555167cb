package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
)

// BindJSON decodes a request body into v. Malformed JSON is a 400 with
// upstream's message; a value of the wrong type is a 422 naming the field in
// zod's format; unknown fields are ignored, and an empty body counts as {}.
func BindJSON(raw []byte, v any) error {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return jsonError(err)
	}
	return nil
}

func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// encoding/json says "bool" and "number 1.5"; zod says "boolean" and
		// "number", and "expected int" for a fraction given to an integer.
		received, detail, _ := strings.Cut(te.Value, " ")
		expected := jsonKind(te.Type)
		switch received {
		case "bool":
			received = "boolean"
		case "number":
			if detail != "" && isInteger(te.Type) {
				expected = "int"
			}
		}
		return apierr.Validation("invalid_type", te.Field,
			fmt.Sprintf("Invalid input: expected %s, received %s", expected, received))
	}
	return apierr.Wrap(apierr.BadRequest, err, MsgBadJSON)
}

// jsonKind names a Go type the way zod names the expected input.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return strings.ToLower(t.Kind().String())
}

func isInteger(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}
