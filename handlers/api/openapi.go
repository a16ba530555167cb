package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// OpenAPIDocument is Relink's OpenAPI 3.0 document: every route of the API
// face with its parameters, request bodies, responses and errors. It is
// generated (tests/sdk/openapi/generate.mjs, `make openapi`) from the dub
// SDK's schemas and tests/sdk/openapi/relink.json, committed, and checked
// for staleness by `make check-generated`; the API tests validate every
// response they record against it (handlers/api/openapi_test.go).
//
//go:embed openapi.json
var OpenAPIDocument []byte

// OpenAPI serves GET /openapi.json (public, as upstream's).
func OpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.Send(OpenAPIDocument)
}
