// Command ceiling is the benchmark's ceiling: a bare Fiber handler answering
// every request with the same 302 Relink's redirect sends, with nothing else
// (no host dispatch, no lookup, no click). Relink's redirect is measured
// against it on the same machine with the same wrk settings.
package main

import (
	"flag"
	"log"

	"github.com/gofiber/fiber/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "listen address")
	dest := flag.String("dest", "https://example.com/landing", "Location of the 302")
	flag.Parse()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/*", func(c *fiber.Ctx) error {
		return c.Redirect(*dest, fiber.StatusFound)
	})
	log.Fatal(app.Listen(*addr))
}
